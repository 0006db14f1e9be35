"""The testable criteria the insight checks share: run summaries, noise, and signed comparisons.

A difference counts only when it exceeds both a minimum effect and ``Z`` standard errors. The
standard error comes from the spread across seeds within each arm; where an arm has one seed, it
is borrowed from the ``seeds`` sweep (repeats of one config), and where neither exists the
comparison is inconclusive rather than guessed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mcsweep.analysis.style import smooth

ACC = "eval/pass@1"
ACC_EXT = "eval/pass@1_ext"
REWARD = "reward"
LENGTH = "completions/mean_length"
DIVERSITY = "diversity/group_4gram"

Z = 2.0
"""A difference must exceed Z standard errors of the seed noise."""
HEAD_FRAC, TAIL_FRAC = 0.1, 0.2
"""'initial' is the mean of the first 10% of a run's points, 'final' of the last 20%."""
MIN_EFFECT_ABS = 0.01
"""Smallest difference that counts for rates (pass@1, reward, diversity): one point."""
MIN_EFFECT_REL_LENGTH = 0.03
"""Smallest length difference that counts: 3% of the mean length."""
COLLAPSE_ABS, COLLAPSE_REL = 0.02, 0.10
"""A run collapses (fails) when its final pass@1 is below its smoothed peak by more than
max(COLLAPSE_ABS, COLLAPSE_REL * peak)."""
PEAK_WINDOW = 3

Summary = Callable[[pd.Series], float]


def _n(s: pd.Series, frac: float) -> int:
    return max(1, round(frac * len(s)))


def initial(s: pd.Series) -> float:
    return float(s.iloc[: _n(s, HEAD_FRAC)].mean())


def final(s: pd.Series) -> float:
    return float(s.iloc[-_n(s, TAIL_FRAC) :].mean())


def peak(s: pd.Series) -> float:
    return float(np.nanmax(smooth(s.to_numpy(), PEAK_WINDOW)))


def peak_step(s: pd.Series) -> float:
    return float(s.index[int(np.nanargmax(smooth(s.to_numpy(), PEAK_WINDOW)))])


def gain(s: pd.Series) -> float:
    return final(s) - initial(s)


def drop(s: pd.Series) -> float:
    return peak(s) - final(s)


def mean(s: pd.Series) -> float:
    return float(s.mean())


def fall(s: pd.Series) -> float:
    """How much the metric fell from the start to the end of the run."""
    return -gain(s)


def window(s: pd.Series, lo: float, hi: float) -> float:
    """Mean over the part of the run between fractions ``lo`` (excluded) and ``hi`` of its steps."""
    x = (s.index - s.index.min()) / max(s.index.max() - s.index.min(), 1)
    return float(s[(x > lo) & (x <= hi)].mean())


def early_minus_late(s: pd.Series) -> float:
    """Mean over 10-40% of the run minus mean over the last 30%."""
    return window(s, 0.1, 0.4) - window(s, 0.7, 1.0)


def fall_by_midpoint(s: pd.Series) -> float:
    """Diversity lost between the start and the middle (40-60%) of the run."""
    return initial(s) - window(s, 0.4, 0.6)


def collapsed(s: pd.Series) -> bool:
    """The stated failure criterion: final pass@1 fell from its smoothed peak by more than the margin."""
    return drop(s) > max(COLLAPSE_ABS, COLLAPSE_REL * peak(s))


def min_effect(metric: str, scale: float) -> float:
    return MIN_EFFECT_REL_LENGTH * abs(scale) if "length" in metric else MIN_EFFECT_ABS


def run_series(frame: pd.DataFrame, metric: str) -> dict[str, pd.Series]:
    """run_id -> the metric against step (sorted, steps deduplicated by mean)."""
    sub = frame[frame["metric"] == metric]
    return {rid: g.groupby("step")["value"].mean().sort_index() for rid, g in sub.groupby("run_id")}


def arm_runs(frame: pd.DataFrame, axis: str) -> dict[str, list[str]]:
    """Arm (axis value) -> its run ids, one per seed."""
    runs = frame.drop_duplicates("run_id")
    return {str(a): sorted(g["run_id"]) for a, g in runs.groupby(axis) if a is not None}


@dataclass(frozen=True)
class Cmp:
    """a - b with its standard error; sign is +1/-1 beyond noise, 0 within it, None with no noise estimate."""

    diff: float
    se: float | None
    threshold: float
    sign: int | None

    def numbers(self, name: str) -> dict[str, float]:
        return {
            f"{name}.diff": round(self.diff, 4),
            f"{name}.threshold": round(self.threshold, 4) if self.se is not None else math.nan,
        }


def _se(a: np.ndarray, b: np.ndarray, borrowed_sd: float | None) -> float | None:
    if len(a) >= 2 and len(b) >= 2:
        return float(math.sqrt(np.var(a, ddof=1) / len(a) + np.var(b, ddof=1) / len(b)))
    if borrowed_sd is not None and len(a) and len(b):
        return borrowed_sd * math.sqrt(1 / len(a) + 1 / len(b))
    return None


def compare(a: np.ndarray, b: np.ndarray, eps: float, borrowed_sd: float | None = None) -> Cmp:
    """Is mean(a) above mean(b) beyond max(eps, Z * SE)?"""
    if not len(a) or not len(b):
        return Cmp(math.nan, None, math.nan, None)
    diff = float(np.mean(a) - np.mean(b))
    se = _se(a, b, borrowed_sd)
    if se is None:
        return Cmp(diff, None, math.nan, None)
    thr = max(eps, Z * se)
    return Cmp(diff, se, thr, 1 if diff > thr else -1 if diff < -thr else 0)
