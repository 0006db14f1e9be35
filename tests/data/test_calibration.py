"""Calibration math: quantile thresholds, agreement figures and target-mix selection."""

from __future__ import annotations

import itertools
import random

import pytest

from mcsweep.data.calibration import (
    BinCuts,
    MixTarget,
    agreement,
    calibrate,
    fit_thresholds,
    measured_bin,
    mix_sizes,
    predicted_bin,
    select_mix,
)


def test_measured_bins() -> None:
    cuts = BinCuts(easy_min=0.75, hard_max=0.25)
    assert [measured_bin(r, cuts) for r in (1.0, 0.75, 0.5, 0.25, 0.0)] == ["easy", "easy", "medium", "hard", "hard"]


def test_thresholds_match_the_measured_split() -> None:
    scores = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
    bins = ["hard", "easy", "medium", "easy", "hard", "hard", "medium", "hard", "easy", "medium"]
    low, high = fit_thresholds(scores, bins)  # 3 easy -> 3 lowest; 4 hard -> 4 highest
    assert (low, high) == (3.5, 6.5)
    predicted = [predicted_bin(s, (low, high)) for s in scores]
    assert predicted.count("easy") == 3 and predicted.count("hard") == 4
    assert fit_thresholds([1.0, 2.0], ["medium", "medium"]) == (float("-inf"), float("inf"))


def test_agreement_perfect_and_inverted() -> None:
    scores = [float(i) for i in range(12)]
    rates = [1 - i / 11 for i in range(12)]  # harder problems fail more
    cuts = BinCuts()
    thresholds = fit_thresholds(scores, [measured_bin(r, cuts) for r in rates])
    good = agreement(scores, rates, thresholds, cuts)
    assert good.accuracy == 1.0 and good.spearman == pytest.approx(1.0)
    assert sum(map(sum, good.confusion)) == 12 and good.confusion[0][0] == good.measured_split["easy"] * 12
    bad = agreement(scores, rates[::-1], thresholds, cuts)
    assert bad.spearman == pytest.approx(-1.0) and bad.confusion[0][0] == bad.confusion[2][2] == 0


def test_calibrate_reports_heldout() -> None:
    rng = random.Random(0)
    ids = [f"p{i}" for i in range(100)]
    hardness = {i: rng.random() for i in ids}
    scores = {i: 1 + 9 * h + rng.gauss(0, 0.5) for i, h in hardness.items()}
    rates = {i: min(max(1.1 - 1.2 * h, 0.0), 1.0) for i, h in hardness.items()}
    calib = calibrate(scores, rates, BinCuts(), heldout_frac=0.3, seed=1)
    assert calib.heldout is not None and calib.heldout.n == 30 and calib.fit.n == 70
    assert not set(calib.fit_ids) & set(calib.heldout_ids)
    assert calib.fit.predicted_split == pytest.approx(calib.fit.measured_split, abs=0.02)
    assert calib.heldout.spearman > 0.8 and calib.heldout.accuracy > 0.6


def _brute(counts: dict[str, int], target: MixTarget) -> int:
    best = 0
    for e, m, h in itertools.product(*(range(counts[d] + 1) for d in ("easy", "medium", "hard"))):
        n = e + m + h
        if n and e < target.max_easy * n and h > target.min_hard * n:
            best = max(best, n)
    return best


@pytest.mark.parametrize("easy,medium,hard", [(10, 10, 10), (40, 0, 7), (0, 30, 5), (3, 3, 0), (8, 2, 20)])
def test_mix_sizes_are_the_largest_feasible(easy: int, medium: int, hard: int) -> None:
    counts = {"easy": easy, "medium": medium, "hard": hard}
    target = MixTarget(max_easy=0.25, min_hard=0.5)
    sizes = mix_sizes(counts, target)
    n = sum(sizes.values())
    assert n == _brute(counts, target)
    if n:
        assert sizes["easy"] < 0.25 * n and sizes["hard"] > 0.5 * n


def test_select_mix_keeps_the_hardest_within_a_bin() -> None:
    labels = {"e1": "easy", "e2": "easy", "e3": "easy", "m1": "medium", "h1": "hard", "h2": "hard", "h3": "hard"}
    scores = {"e1": 1.0, "e2": 2.0, "e3": 1.5, "m1": 5.0, "h1": 8.0, "h2": 9.0, "h3": 8.5}
    chosen, sizes = select_mix(labels, scores, MixTarget())
    assert sizes == {"easy": 1, "medium": 1, "hard": 3} and chosen == ["e2", "m1", "h2", "h3", "h1"]
