"""The report's compute figures: recorded costs are taken as they are, older runs estimated and named,
copies cost nothing, and runs side by side count once in the campaign's wall time."""

from __future__ import annotations

import pytest

from mcsweep.analysis import compute
from mcsweep.analysis.load import LoadReport
from mcsweep.analysis.report import _compute_section

RECORDED = {
    "run_id": "a",
    "sweep": "seeds",
    "started": "2026-12-01T09:00:00",
    "finished": "2026-12-02T10:00:00",
    "compute": {
        "segments": [
            {"started": "2026-12-01T09:00:00", "ended": "2026-12-01T10:00:00", "wall_s": 3600.0, "cpu_s": 3000.0},
            {"started": "2026-12-02T09:30:00", "ended": "2026-12-02T10:00:00", "wall_s": 1800.0, "cpu_s": 1500.0},
        ],
        "wall_s": 5400.0,
        "cpu_s": 4500.0,
        "world_size": 1,
    },
}
OLD = {
    "run_id": "b",
    "sweep": "seeds",
    "started": "2026-12-01T09:30:00",
    "finished": "2026-12-01T10:30:00",
    "machine": {"torch_threads": 2},
}
COPY = {"run_id": "c", "sweep": "batch", "reused_from": "runs/seeds/a", **{k: RECORDED[k] for k in ("compute",)}}
RUNNING = {"run_id": "d", "sweep": "batch", "started": "2026-12-01T09:00:00"}


def _entries(*cards: dict) -> list[dict]:
    return [{"run_id": c["run_id"], "sweep": c["sweep"], **compute.run_cost(c)} for c in cards]


def test_run_cost_by_source():
    recorded, old, copy, running = _entries(RECORDED, OLD, COPY, RUNNING)
    assert (recorded["cost"], recorded["wall_s"], recorded["cpu_s"]) == ("recorded", 5400.0, 4500.0)
    assert len(recorded["intervals"]) == 2, "the idle night between the segments is not busy time"
    assert (old["cost"], old["wall_s"], old["cpu_s"]) == ("estimated", 3600.0, 7200.0)
    assert (copy["cost"], copy["wall_s"], copy["cpu_s"]) == ("copy", 0.0, 0.0)
    assert (running["cost"], running["wall_s"]) == ("unknown", None)


@pytest.mark.parametrize(
    ("intervals", "busy"),
    [
        ([], 0.0),
        ([("2026-12-01T09:00:00", "2026-12-01T10:00:00"), ("2026-12-01T09:30:00", "2026-12-01T10:30:00")], 5400.0),
        ([("2026-12-01T09:00:00", "2026-12-01T11:00:00"), ("2026-12-01T09:30:00", "2026-12-01T10:00:00")], 7200.0),
        ([("2026-12-01T09:00:00", "2026-12-01T09:10:00"), ("2026-12-01T10:00:00", "2026-12-01T10:05:00")], 900.0),
        ([("2026-12-01T09:00:00", "not a time")], 0.0),
    ],
)
def test_busy_seconds_is_the_union(intervals, busy):
    assert compute.busy_seconds(intervals) == busy


def test_summary_and_report_section():
    runs = _entries(RECORDED, OLD, COPY, RUNNING)
    total = compute.summary(runs)
    assert (total["recorded"], total["estimated"], total["copy"], total["unknown"]) == (1, 1, 1, 1)
    assert total["run_wall_h"] == pytest.approx(2.5) and total["core_h"] == pytest.approx(3.25)
    # 09:00-10:30 on day one (a and b overlap) plus 09:30-10:00 on day two
    assert total["busy_wall_h"] == pytest.approx(2.0)
    assert total["estimated_runs"] == ["b"] and total["unknown_runs"] == ["d"]
    text = _compute_section(LoadReport(runs=runs))
    assert "2.00 h" in text and "3.25 core-hours" in text and "Estimated" in text and ": b." in text
    assert "| seeds | 2 | 0 | 0 | 2.5 | 3.25 |" in text and "| batch | 2 | 1 | 1 | 0 | 0 |" in text


def test_a_load_report_older_than_the_cost_fields_counts_its_runs_unknown():
    """A report's shipped data from before the cost record has run entries without ``cost``."""
    runs = [{"run_id": "x", "sweep": "seeds"}, *_entries(OLD)]
    total = compute.summary(runs)
    assert (total["runs"], total["unknown"], total["estimated"]) == (2, 1, 1) and total["unknown_runs"] == ["x"]
    assert "| seeds | 2 | 0 | 1 | 1 | 2 |" in _compute_section(LoadReport(runs=runs))


def test_a_run_whose_first_lifetime_was_killed_is_named_with_the_time_it_may_miss():
    """A process killed before it closed (a stopped session) records no segment; the run's card keeps the
    time it first started, so the gap to its first recorded segment is said, not silently dropped."""
    killed = RECORDED | {"run_id": "k", "started": "2026-12-01T08:00:00"}
    runs = _entries(RECORDED, killed)
    assert [r["unrecorded_s"] for r in runs] == [0.0, 3600.0]
    total = compute.summary(runs)
    assert total["unrecorded_runs"] == ["k"] and total["unrecorded_h"] == pytest.approx(1.0)
    text = _compute_section(LoadReport(runs=runs))
    assert "killed before it closed (a stopped session), whose time is in no record: 1 (k), up to 1.00 h" in text
    assert "killed" not in _compute_section(LoadReport(runs=_entries(RECORDED)))
