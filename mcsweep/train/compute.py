"""What a run cost: wall time and CPU time, one segment per process lifetime, so a campaign can state
its wall time and core-hours (issue 19) from the runs themselves rather than from a stopwatch.

A segment opens when the run session opens and closes after the evaluator shut its sandbox workers
down: CPU time is this process's own plus that of its reaped children (the sandboxed solutions), so
grading is counted. A resumed run adds a segment; the totals are sums over segments, which leaves
out the time a run sat interrupted between sessions. Under multi-process training the main process
records its own CPU time and the world size (GPU-hours are wall time x world size).
"""

from __future__ import annotations

import resource
import time
from dataclasses import asdict, dataclass

TOTALS = ("wall_s", "cpu_s", "world_size")
"""The run card's compute totals, also logged to the W&B summary as ``compute/<name>``."""


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its children that have been waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@dataclass(frozen=True)
class Segment:
    """One process lifetime of a run: ISO start and end times, wall and CPU seconds."""

    started: str
    ended: str
    wall_s: float
    cpu_s: float


class SegmentClock:
    """Started when a run session opens; `stop` gives the segment so far."""

    def __init__(self) -> None:
        self._wall0 = time.monotonic()
        self._cpu0 = cpu_seconds()
        self._started = stamp()

    def stop(self) -> Segment:
        return Segment(
            self._started,
            stamp(),
            round(time.monotonic() - self._wall0, 3),
            round(cpu_seconds() - self._cpu0, 3),
        )


def stamp() -> str:
    """Local time to the second, as run cards write their times (the cost record's segments too)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S")


def add_segment(compute: dict | None, segment: Segment, world_size: int) -> dict:
    """The run card's ``compute`` entry with `segment` appended and its totals summed again."""
    segments = [*(compute or {}).get("segments", []), asdict(segment)]
    return {
        "segments": segments,
        "wall_s": round(sum(s["wall_s"] for s in segments), 3),
        "cpu_s": round(sum(s["cpu_s"] for s in segments), 3),
        "world_size": world_size,
    }
