"""What the runs behind a report cost: wall time and core-hours, from each run card's cost record
(`mcsweep.train.compute`), so a campaign's report states its own budget (issue 19).

A run without a record (it predates it, or its W&B summary lacks it) is estimated from its card's
start and finish times at the cores it was given (``machine.torch_threads``), and named as estimated:
such an estimate includes any time the run sat interrupted. A copy of a twin (``reused_from``) cost
nothing of its own. The campaign's wall time is the union of the runs' busy intervals (runs side by
side count once), not their sum. A process killed before it closed (a stopped session) records no
segment: a run whose first recorded segment began well after the run did had such a lifetime, and the
report says so, with the gap as an upper bound of the time missing (it includes any time it sat idle).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

RECORDED, ESTIMATED, COPY, UNKNOWN = "recorded", "estimated", "copy", "unknown"
UNRECORDED_GAP_S = 60.0
"""A first recorded segment starting this long after the run's card: a lifetime before it was killed."""


def _time(stamp: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(stamp)) if stamp else None
    except ValueError:
        return None


def _seconds(start: Any, end: Any) -> float | None:
    a, b = _time(start), _time(end)
    return (b - a).total_seconds() if a and b and b >= a else None


def run_cost(card: dict[str, Any]) -> dict[str, Any]:
    """The fields a load report's run entry gets from one run card: ``cost`` (where the numbers come
    from), ``wall_s``, ``cpu_s`` and ``intervals`` (the (start, end) ISO times the run was busy)."""
    if card.get("reused_from"):
        return {"cost": COPY, "wall_s": 0.0, "cpu_s": 0.0, "intervals": []}
    record = card.get("compute") or {}
    if record.get("wall_s") is not None:
        spans = [[s["started"], s["ended"]] for s in record.get("segments", [])]
        gap = _seconds(card.get("started"), spans[0][0]) if spans else None
        return {
            "cost": RECORDED,
            "wall_s": record["wall_s"],
            "cpu_s": record.get("cpu_s"),
            "intervals": spans,
            "unrecorded_s": gap if gap is not None and gap >= UNRECORDED_GAP_S else 0.0,
        }
    wall = _seconds(card.get("started"), card.get("finished"))
    if wall is None:
        return {"cost": UNKNOWN, "wall_s": None, "cpu_s": None, "intervals": []}
    cores = (card.get("machine") or {}).get("torch_threads") or 1
    span = [card["started"], card["finished"]]
    return {"cost": ESTIMATED, "wall_s": wall, "cpu_s": wall * cores, "intervals": [span]}


def busy_seconds(intervals: Iterable[Sequence[str]]) -> float:
    """Seconds covered by at least one (start, end) interval."""
    spans = sorted((a, b) for a, b in ((_time(s), _time(e)) for s, e in intervals) if a and b and b > a)
    total, end = 0.0, None
    for a, b in spans:
        if end is None or a > end:
            total += (b - a).total_seconds()
            end = b
        elif b > end:
            total += (b - end).total_seconds()
            end = b
    return total


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals over load-report run entries: counts by cost source, summed run wall and CPU hours,
    the campaign's busy wall hours, and which runs were estimated or unknown."""
    kinds = [r.get("cost") or UNKNOWN for r in runs]  # a load report older than the cost fields: unknown
    costed = [r for r, k in zip(runs, kinds, strict=True) if k in (RECORDED, ESTIMATED)]
    return {
        "runs": len(runs),
        **{kind: kinds.count(kind) for kind in (RECORDED, ESTIMATED, COPY, UNKNOWN)},
        "run_wall_h": sum(r["wall_s"] for r in costed) / 3600,
        "core_h": sum(r["cpu_s"] or 0.0 for r in costed) / 3600,
        "busy_wall_h": busy_seconds(i for r in costed for i in r.get("intervals") or []) / 3600,
        "unrecorded_runs": sorted(r["run_id"] for r in costed if r.get("unrecorded_s")),
        "unrecorded_h": sum(r.get("unrecorded_s") or 0.0 for r in costed) / 3600,
        **{
            f"{kind}_runs": sorted(r["run_id"] for r, k in zip(runs, kinds, strict=True) if k == kind)
            for kind in (ESTIMATED, UNKNOWN)
        },
    }
