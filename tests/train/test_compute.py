"""A run's cost record: segments add up, and CPU time includes the children a run waited for (its
sandboxed solutions), which is where a micro run spends much of its CPU."""

from __future__ import annotations

import subprocess
import sys

from mcsweep.train.compute import Segment, SegmentClock, add_segment, cpu_seconds


def test_a_resumed_run_sums_its_segments_and_keeps_each():
    first = add_segment(None, Segment("2026-12-01T10:00:00", "2026-12-01T10:30:00", 1800.0, 1700.5), 1)
    both = add_segment(first, Segment("2026-12-02T09:00:00", "2026-12-02T09:10:00", 600.0, 590.25), 1)
    assert both["wall_s"] == 2400.0 and both["cpu_s"] == 2290.75 and both["world_size"] == 1
    assert [s["started"] for s in both["segments"]] == ["2026-12-01T10:00:00", "2026-12-02T09:00:00"]
    assert first["wall_s"] == 1800.0, "adding a segment returns a new record"


def test_cpu_time_counts_a_waited_for_child():
    before = cpu_seconds()
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass"
    subprocess.run([sys.executable, "-c", burn], check=True)
    assert cpu_seconds() - before >= 0.6


def test_a_segment_measures_from_its_start():
    clock = SegmentClock()
    t = cpu_seconds()
    while cpu_seconds() - t < 0.2:
        pass
    seg = clock.stop()
    assert seg.cpu_s >= 0.2 and seg.wall_s >= 0.2 and seg.started <= seg.ended
