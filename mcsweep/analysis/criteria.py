"""The testable criteria the insight checks share: run summaries, noise, and signed comparisons.

A difference counts only when it exceeds a minimum effect and a t-test over seeds rejects 'no
difference' at two-sided ``ALPHA`` (docs/analysis.md, "The noise rule"). The seed SD comes from the
seeds within each arm; where an arm has one seed, it is borrowed from the ``seeds`` sweep (repeats
of one config, with its degrees of freedom), and where neither exists the comparison is
inconclusive rather than guessed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from mcsweep.analysis.style import smooth

ACC = "eval/pass@1"
ACC_EXT = "eval/pass@1_ext"
ACC_COMMON = "evals@common/pass@1"
"""Test pass@1 at the sweep-wide common evaluation length (evals.jsonl rows flagged ``common_length``)."""
JUDGES = ("livecodebench", "microcoder")
DEFAULT_JUDGE = "livecodebench"
"""The study's test accuracy is LiveCodeBench's."""


def acc_judged(judge: str) -> str:
    """Test pass@1 at the training length, every arm's samples graded by the comparator ``judge``."""
    return f"evals@train/pass@1/judge_{judge}"


REWARD = "reward"
LENGTH = "completions/mean_length"
DIVERSITY = "diversity/group_4gram"

ALPHA = 0.02
"""Two-sided level of each part's t-test over seeds (1% chance per direction when there is no effect)."""
HEAD_FRAC, TAIL_FRAC = 0.1, 0.2
"""'initial' is the mean of the first 10% of a run's points, 'final' of the last 20%."""
MIN_EFFECT_ABS = 0.01
"""Smallest difference that counts for rates (pass@1, reward, diversity): one point."""
MIN_EFFECT_REL_LENGTH = 0.03
"""Smallest length difference that counts: 3% of the mean length."""
MAX_SEEDS = 30
"""The most seeds per arm a report projects a within-noise difference to (beyond: 'more than 30')."""
POWER = 0.8
"""The chance at which a projected number of seeds would decide a part, were its effect as measured."""
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


def min_effect(metric: str, level: float) -> float:
    """Smallest difference that counts: 3% of the length's level (not of a length gain), else 0.01."""
    return MIN_EFFECT_REL_LENGTH * abs(level) if "length" in metric else MIN_EFFECT_ABS


def run_series(frame: pd.DataFrame, metric: str) -> dict[str, pd.Series]:
    """run_id -> the metric against step (sorted, steps deduplicated by mean)."""
    means = frame[frame["metric"] == metric].groupby(["run_id", "step"])["value"].mean()
    return {str(rid): s.droplevel(0) for rid, s in means.groupby(level=0)}


@dataclass(frozen=True)
class Cmp:
    """a - b (or a - 0) with its standard error, the seed SD behind it and the t-test's degrees of freedom.

    ``sign`` is +1/-1 when the difference exceeds the minimum effect and the t-test rejects 'no
    difference' at two-sided ``ALPHA``, 0 within noise, None with no noise estimate; ``sign_at`` applies
    a stricter level (the correction for a claim's several parts).
    """

    diff: float
    se: float | None
    eps: float
    df: float = 0
    sd: float | None = None
    """The seed SD behind ``se``: pooled (one arm, borrowed) or the root mean of two arms' variances (Welch)."""
    sds: tuple[float, ...] = ()
    """Each arm's own seed SD where the test is Welch's: what projecting its degrees of freedom needs."""
    flip: bool = False
    """True for a part that claims 'no difference' (D1's flat easy arm): +1 when its t-interval lies
    within the minimum effect, -1 when it differs beyond noise, else 0."""
    arms: int = 2
    """2 for a two-sample comparison, 1 for a one-sample one (against 0)."""
    noninferior: bool = False
    """True for a part that claims 'a is not worse than b' (T8's pick against each other arm): +1 when the
    lower end of a - b's t-interval lies above -eps, -1 when b is higher beyond noise, else 0. Not finding
    b higher is no evidence that a is as good."""

    def critical_at(self, alpha: float) -> float:
        """The t-test's critical difference at two-sided ``alpha`` (nan without a noise estimate)."""
        if self.se is None or self.df < 1:
            return math.nan
        return float(stats.t.ppf(1 - alpha / 2, self.df)) * self.se

    def threshold_at(self, alpha: float) -> float:
        return max(self.eps, self.critical_at(alpha))

    @property
    def threshold(self) -> float:
        return self.threshold_at(ALPHA)

    def bound_at(self, alpha: float) -> float:
        """The bound the difference must pass to count as claimed at ``alpha``, as a report shows it: the
        threshold; for a 'no difference' part the largest |difference| that counts (eps - critical); for a
        'not worse' part the lowest difference that counts (critical - eps)."""
        if self.flip:
            return self.eps - self.critical_at(alpha)
        if self.noninferior:
            return self.critical_at(alpha) - self.eps
        return self.threshold_at(alpha)

    def sign_at(self, alpha: float) -> int | None:
        """+1 as claimed, -1 reversed, 0 within noise. A 'no difference' part is reversed by a difference
        beyond noise, and counts only when its t-interval lies within the minimum effect (an equivalence
        test): a difference merely not shown is not shown to be absent."""
        if self.se is None or self.df < 1 or not math.isfinite(self.diff):
            return None
        thr = self.threshold_at(alpha)
        raw = 1 if self.diff > thr else -1 if self.diff < -thr else 0
        if self.noninferior:
            return -1 if raw == -1 else 1 if self.diff - self.critical_at(alpha) >= -self.eps else 0
        if not self.flip:
            return raw
        if raw:
            return -1
        return 1 if abs(self.diff) + self.critical_at(alpha) <= self.eps else 0

    @property
    def sign(self) -> int | None:
        return self.sign_at(ALPHA)

    def seeds_needed(self, alpha: float, most: int = MAX_SEEDS) -> int | None:
        """Seeds per arm at which a part within noise would count (at two-sided ``alpha``) with ``POWER``
        chance, were the true difference and seed SD as measured: the observed difference merely reaching
        the threshold would be a coin flip. None when more seeds cannot decide it (no noise estimate, a
        difference below the minimum effect, a 'no difference' part not within it, a 'not worse' part
        below -eps) or would take more than
        ``most``."""
        if self.sd is None or not math.isfinite(self.diff):
            return None
        margin = self._margin()
        if margin <= 0:
            return None
        for n in range(2, most + 1):
            se, df = self.sd * math.sqrt(self.arms / n), self.df_at(n)
            crit = float(stats.t.ppf(1 - alpha / 2, df))
            if self.flip or self.noninferior:  # the interval's end must clear the margin: crit + t_power SEs
                powered = margin >= (crit + float(stats.t.ppf(POWER, df))) * se
            else:  # the t statistic beyond crit, and the difference beyond eps, each with POWER chance
                powered = stats.nct.sf(crit, df, abs(self.diff) / se) >= POWER
                powered = powered and margin >= float(stats.norm.ppf(POWER)) * se
            if powered:
                return n
        return None

    def _margin(self) -> float:
        """Room between the difference and the bound it must clear to count (<= 0: no seeds suffice)."""
        if self.flip:
            return self.eps - abs(self.diff)
        if self.noninferior:
            return self.diff + self.eps
        return abs(self.diff) - self.eps

    def df_at(self, n: int) -> float:
        """Degrees of freedom with ``n`` seeds per arm: Welch's from the arms' SDs, else the pooled count."""
        if len(self.sds) == 2:
            return welch_df([s**2 / n for s in self.sds], [n, n])
        return self.arms * (n - 1)

    def numbers(self, name: str) -> dict[str, float]:
        return {
            f"{name}.diff": round(self.diff, 4),
            f"{name}.threshold": round(self.threshold, 4),
            f"{name}.sd": round(self.sd, 4) if self.sd is not None else math.nan,
        }


def welch_df(shares: list[float], ns: list[int]) -> float:
    """Welch-Satterthwaite degrees of freedom of a sum of variance shares s_i^2 / n_i; the pooled count
    when every arm's seeds agree exactly (no variance to weigh)."""
    total = sum(shares)
    if total <= 0:
        return float(sum(n - 1 for n in ns))
    return total**2 / sum(v**2 / (n - 1) for v, n in zip(shares, ns, strict=True))


def _pooled(groups: list[np.ndarray]) -> tuple[float, int] | None:
    """Pooled seed SD and its degrees of freedom over the groups with >= 2 values."""
    usable = [g for g in groups if len(g) >= 2]
    df = sum(len(g) - 1 for g in usable)
    if df < 1:
        return None
    return float(math.sqrt(sum(float(np.var(g, ddof=1)) * (len(g) - 1) for g in usable) / df)), df


def _noise(groups: list[np.ndarray], borrowed: tuple[float, int] | None) -> tuple[float, int] | None:
    """Seed SD and df from the arms' own seeds when every arm has 2, else the seeds sweep's."""
    if all(len(g) >= 2 for g in groups):
        return _pooled(groups)
    return borrowed


def _welch(a: np.ndarray, b: np.ndarray, diff: float, eps: float) -> Cmp:
    """Welch's two-sample t-test: each arm keeps its own variance. A pooled SD lets a tight arm vouch
    for a noisy one: with one arm's SD 3x the other's, the pooled test called 3.5% of no-effect pairs
    an effect at two-sided 2% with 3 seeds a side and 6.5% with 2 noisy seeds against 3 (Welch: 2.1%
    and 3.6%)."""
    sds = (float(np.std(a, ddof=1)), float(np.std(b, ddof=1)))
    shares = [s**2 / len(g) for s, g in zip(sds, (a, b), strict=True)]
    df = welch_df(shares, [len(a), len(b)])
    sd = math.sqrt((sds[0] ** 2 + sds[1] ** 2) / 2)
    return Cmp(diff, math.sqrt(sum(shares)), eps, df, sd, sds=sds)


def compare(a: np.ndarray, b: np.ndarray | None, eps: float, borrowed: tuple[float, int] | None = None) -> Cmp:
    """Is mean(a) above mean(b) (above 0 when ``b`` is None) beyond max(eps, t-test threshold)?

    Two arms of >= 2 seeds: Welch's t-test over seeds (each arm its own variance, Welch-Satterthwaite
    df). One arm: one-sample t-test (df = n - 1). Where an arm has one seed, the seed SD and its df
    come from the seeds sweep (one SD for both arms, so a pooled test with that df).
    """
    groups = [a] if b is None else [a, b]
    if any(not len(g) for g in groups):
        return Cmp(math.nan, None, eps)
    diff = float(np.mean(a) - (0.0 if b is None else np.mean(b)))
    if b is not None and len(a) >= 2 and len(b) >= 2:
        return _welch(a, b, diff, eps)
    noise = _noise(groups, borrowed)
    if noise is None:
        return Cmp(diff, None, eps)
    sd, df = noise
    se = sd * math.sqrt(sum(1 / len(g) for g in groups))
    return Cmp(diff, se, eps, df, sd, arms=len(groups))
