"""Calibrate predicted difficulty against a policy's measured pass rates, then select a target mix.

Measured bins come from pass rates (easy: p >= easy_min, hard: p <= hard_max). Thresholds on the
predicted score are the quantiles that give the same easy/hard fractions on the fit problems, so
the predicted split matches the measured one by construction there; agreement is then reported on
held-out problems (confusion matrix, accuracy, Spearman rank correlation of score vs. failure rate).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from mcsweep.data.schema import DIFFICULTIES, Problem

PassRateProvider = Callable[[list[Problem]], dict[str, float]]


@dataclass
class BinCuts:
    easy_min: float = 0.75
    hard_max: float = 0.25


def measured_bin(pass_rate: float, cuts: BinCuts) -> str:
    if pass_rate >= cuts.easy_min:
        return "easy"
    return "hard" if pass_rate <= cuts.hard_max else "medium"


def predicted_bin(score: float, thresholds: tuple[float, float]) -> str:
    low, high = thresholds
    if score < low:
        return "easy"
    return "hard" if score >= high else "medium"


def _cut(sorted_scores: list[float], k: int) -> float:
    """A threshold with exactly k scores below it (midpoint between neighbours)."""
    if k <= 0:
        return -math.inf
    if k >= len(sorted_scores):
        return math.inf
    return (sorted_scores[k - 1] + sorted_scores[k]) / 2


def fit_thresholds(scores: Sequence[float], bins: Sequence[str]) -> tuple[float, float]:
    """Quantile matching: the fraction predicted easy/hard equals the fraction measured easy/hard."""
    if not scores:
        raise ValueError("no calibration problems")
    ordered = sorted(scores)
    n = len(ordered)
    counts = Counter(bins)
    return _cut(ordered, counts["easy"]), _cut(ordered, n - counts["hard"])


def confusion(measured: Sequence[str], predicted: Sequence[str]) -> list[list[int]]:
    """Rows: measured easy/medium/hard; columns: predicted easy/medium/hard."""
    idx = {d: i for i, d in enumerate(DIFFICULTIES)}
    out = [[0] * 3 for _ in DIFFICULTIES]
    for m, p in zip(measured, predicted, strict=True):
        out[idx[m]][idx[p]] += 1
    return out


def split_fractions(bins: Sequence[str]) -> dict[str, float]:
    counts = Counter(bins)
    return {d: counts[d] / max(len(bins), 1) for d in DIFFICULTIES}


@dataclass
class Agreement:
    n: int
    accuracy: float
    spearman: float | None
    confusion: list[list[int]]
    measured_split: dict[str, float]
    predicted_split: dict[str, float]


def agreement(scores: list[float], rates: list[float], thresholds: tuple[float, float], cuts: BinCuts) -> Agreement:
    measured = [measured_bin(r, cuts) for r in rates]
    predicted = [predicted_bin(s, thresholds) for s in scores]
    from scipy.stats import spearmanr

    rho = None
    if len(scores) > 2 and len(set(scores)) > 1 and len(set(rates)) > 1:
        rho = float(spearmanr(scores, [-r for r in rates]).statistic)
    hits = sum(m == p for m, p in zip(measured, predicted, strict=True))
    return Agreement(
        len(scores),
        hits / max(len(scores), 1),
        rho,
        confusion(measured, predicted),
        split_fractions(measured),
        split_fractions(predicted),
    )


@dataclass
class Calibration:
    thresholds: tuple[float, float]
    cuts: BinCuts
    fit: Agreement
    heldout: Agreement | None
    fit_ids: list[str] = field(default_factory=list)
    heldout_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def calibrate(
    scores: dict[str, float], rates: dict[str, float], cuts: BinCuts, heldout_frac: float = 0.3, seed: int = 0
) -> Calibration:
    """Fit thresholds on part of the measured problems and report agreement on the rest."""
    ids = sorted(set(scores) & set(rates))
    random.Random(seed).shuffle(ids)
    n_held = int(len(ids) * heldout_frac) if len(ids) >= 10 else 0
    held, fit = ids[:n_held], ids[n_held:]
    thresholds = fit_thresholds([scores[i] for i in fit], [measured_bin(rates[i], cuts) for i in fit])

    def agree(group: list[str]) -> Agreement:
        return agreement([scores[i] for i in group], [rates[i] for i in group], thresholds, cuts)

    return Calibration(thresholds, cuts, agree(fit), agree(held) if held else None, fit, held)


# ------------------------------------------------------------------ target mix


@dataclass
class MixTarget:
    max_easy: float = 0.25
    min_hard: float = 0.50


def mix_sizes(counts: dict[str, int], target: MixTarget) -> dict[str, int]:
    """The largest (easy, medium, hard) counts with easy < max_easy*N and hard > min_hard*N.

    Keeping every hard problem is optimal (more hard only loosens the hard bound); the loop then
    looks for the largest N whose easy and medium quotas fit what is available.
    """
    e_avail, m_avail, hard = counts.get("easy", 0), counts.get("medium", 0), counts.get("hard", 0)
    for n in range(hard + m_avail + e_avail, hard, -1):
        if not hard > target.min_hard * n:
            continue
        easy = min(e_avail, math.ceil(target.max_easy * n) - 1)
        medium = n - hard - easy
        if medium < 0:
            easy, medium = n - hard, 0
        if medium <= m_avail and easy >= 0:
            return {"easy": easy, "medium": medium, "hard": hard}
    return {"easy": 0, "medium": 0, "hard": hard}


def select_mix(labels: dict[str, str], scores: dict[str, float], target: MixTarget) -> tuple[list[str], dict[str, int]]:
    """Pick ids per bin, hardest first within a bin, so the kept easy/medium ones are the tougher."""
    sizes = mix_sizes(Counter(labels.values()), target)
    chosen: list[str] = []
    for level in DIFFICULTIES:
        members = sorted((i for i, b in labels.items() if b == level), key=lambda i: (-scores[i], i))
        chosen.extend(members[: sizes[level]])
    return chosen, sizes
