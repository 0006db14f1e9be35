"""The study's 34 insights and 6 definitions: the registry filled by ``checks``, and ``check_all``.

Each check declares its claim, sweep, metrics, figure and criterion beside its code
(``registry.insight``); this module collects them in the insights page's order.
"""

from __future__ import annotations

import pandas as pd

from mcsweep.analysis import checks  # noqa: F401  (importing the checks registers them)
from mcsweep.analysis.arms import AXIS_OF_SWEEP
from mcsweep.analysis.criteria import DEFAULT_JUDGE
from mcsweep.analysis.registry import Insight, registered, sweep_command
from mcsweep.analysis.verdicts import Store, Verdict

__all__ = ["AXIS_OF_SWEEP", "BY_ID", "INSIGHTS", "SWEEPS", "Insight", "Verdict", "check_all", "sweep_command"]

INSIGHTS: tuple[Insight, ...] = registered()
BY_ID: dict[str, Insight] = {i.id: i for i in INSIGHTS}
SWEEPS: tuple[str, ...] = (
    "evaluator",
    "temperature",
    "temperature_schedules",
    "data",
    "context",
    "masking",
    "batch",
    "kl_clip",
    "table1",
    "seeds",
)


def check_all(frame: pd.DataFrame, samples: pd.DataFrame | None = None, judge: str = DEFAULT_JUDGE) -> pd.DataFrame:
    """One row per registry entry: id, aspect, claim, sweep, figure, criterion, status, reason, numbers, test,
    observed (the per-arm quantities, seed by seed) and parts (each compared difference against its threshold)."""
    rows, store = [], Store(frame, samples, judge)
    for ins in INSIGHTS:
        v = ins.run(store)
        rows.append(
            {
                "id": ins.id,
                "aspect": ins.aspect,
                "claim": ins.claim,
                "sweep": ins.sweep,
                "figure": ins.figure,
                "criterion": ins.criterion,
                "status": v.status,
                "reason": v.reason,
                "numbers": v.numbers,
                "test": v.test,
                "observed": v.observed,
                "parts": v.parts,
            }
        )
    return pd.DataFrame(rows)
