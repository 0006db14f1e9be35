"""Batch axis (fig 11_2): train batch (prompts per rollout) against a fixed PPO mini-batch."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mcsweep.analysis import criteria as cr
from mcsweep.analysis.arms import Arm
from mcsweep.analysis.checks.common import NOISE
from mcsweep.analysis.criteria import ACC, DIVERSITY, LENGTH
from mcsweep.analysis.registry import definition, insight
from mcsweep.analysis.verdicts import Ctx, NotEnoughData, Verdict, judge, quantity

definition("B1", "batch", "Train batch = prompts per rollout; mini-batch = prompts per update.")
definition("B2", "batch", "A smaller train batch (fixed mini-batch) is more on-policy.")


def _batches(ctx: Ctx, at_least: int) -> list[Arm]:
    b = ctx.fixed()
    if len(b) < at_least:
        raise NotEnoughData(f"fewer than {at_least} batch sizes (have {ctx.labels(ctx.arms)})")
    return b


def _common_step(ctx: Ctx) -> float:
    """Last step every batch arm reached. In the run store one step is one optimizer update of
    ``mini_batch`` prompts in every batch arm, so equal steps are equal data (docs/analysis.md)."""
    last = ctx.frame.groupby("run_id")["step"].max()
    return float(min(last[r] for a in ctx.fixed() for r in ctx.runs_of[a]))


def _grain(ctx: Ctx, metric: str) -> float:
    """The coarsest logging interval of ``metric`` among the sweep's runs, in steps. A rollout logs its
    training metrics once, so the largest batch logs one point per several updates, each the mean over
    more prompts; the smaller batches' points are noisier, and a peak over many noisy points sits higher."""
    gaps = [float(np.median(np.diff(s.index))) for s in ctx.store.series(ctx.sweep, metric).values() if len(s) > 1]
    return max(gaps, default=1.0)


def at_grain(s: pd.Series, grain: float) -> pd.Series:
    """The series averaged over blocks of ``grain`` steps, each indexed by its block's last step."""
    if grain <= 1:
        return s
    block = np.ceil(s.index.to_numpy() / grain) * grain
    return s.groupby(block).mean()


def _equal_data(ctx: Ctx, metric: str, fn: cr.Summary, arm: Arm) -> np.ndarray:
    """``fn`` over the part of each run within the data (steps) every arm reached, every run's series
    averaged to the sweep's coarsest logging interval first, so that each point of every arm covers
    the same updates."""
    limit, grain = _common_step(ctx), _grain(ctx, metric)
    cut = [at_grain(s[s.index <= limit], grain) for s in ctx.series(metric, arm).values()]
    return ctx.record(f"{quantity(metric, fn)} at equal data", arm, np.array([fn(s) for s in cut if len(s)]))


def _rel_length_drop(s: pd.Series) -> float:
    return cr.drop(s) / max(cr.peak(s), 1e-9)


@insight(
    "B3",
    "On-policy training is less stable (diversity converges faster; length rises then "
    "falls); off-policy is more stable.",
    sweep="batch",
    metrics=(LENGTH, DIVERSITY),
    figure="11_2",
    criterion="within the data every arm reached, the smallest batch's length falls from its peak by a larger "
    f"share (min effect 0.03) and its diversity falls more by mid-run than the largest batch's; {NOISE}",
)
def on_policy_less_stable(ctx: Ctx) -> Verdict:
    b = _batches(ctx, 2)
    on, off = b[0], b[-1]
    parts = {
        f"length falls from its peak more at {on.label} than {off.label}": ctx.cmp_values(
            LENGTH,
            _rel_length_drop,
            _equal_data(ctx, LENGTH, _rel_length_drop, on),
            _equal_data(ctx, LENGTH, _rel_length_drop, off),
            eps=0.03,
        ),
        f"diversity settles faster at {on.label} than {off.label}": ctx.cmp_values(
            DIVERSITY,
            cr.fall_by_midpoint,
            _equal_data(ctx, DIVERSITY, cr.fall_by_midpoint, on),
            _equal_data(ctx, DIVERSITY, cr.fall_by_midpoint, off),
        ),
    }
    return judge(parts, {"common data (steps of mini_batch prompts)": _common_step(ctx)})


@insight(
    "B4",
    "The intermediate batch size is best.",
    sweep="batch",
    metrics=(ACC,),
    figure="11_2",
    criterion=f"final pass@1 within the data every arm reached, middle batch > smallest and largest; {NOISE}",
)
def intermediate_batch_best(ctx: Ctx) -> Verdict:
    b = _batches(ctx, 3)
    mid = b[len(b) // 2]
    vals = {a: _equal_data(ctx, ACC, cr.final, a) for a in b}
    parts = {
        f"final acc [{mid.label}] > [{o.label}]": ctx.cmp_values(ACC, cr.final, vals[mid], vals[o])
        for o in (b[0], b[-1])
    }
    return judge(parts, {f"final acc at equal data[{a.label}]": round(float(np.mean(v)), 4) for a, v in vals.items()})
