"""The noise rule's tests over seeds, on draws with a known answer (no effect, or a known effect)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from mcsweep.analysis import criteria as cr
from mcsweep.analysis.criteria import ALPHA, MIN_EFFECT_ABS, compare
from mcsweep.analysis.verdicts import judge, part_of

DRAWS = 4000


def _false_rate(n_noisy: int, n_tight: int, sd_ratio: float) -> float:
    """Share of no-effect pairs (arms alike in mean) that a comparison calls an effect either way."""
    rng = np.random.default_rng(7)
    calls = 0
    for _ in range(DRAWS):
        noisy = rng.normal(0.4, 0.01 * sd_ratio, n_noisy)
        tight = rng.normal(0.4, 0.01, n_tight)
        calls += compare(noisy, tight, eps=0.0).sign != 0
    return calls / DRAWS


def test_a_noisy_arm_is_not_vouched_for_by_a_tight_one() -> None:
    """3 seeds a side, one arm's SD 3x the other's, no effect: a pooled SD (df 4) called 3.5% of these
    pairs an effect at two-sided 2%; each arm's own variance (Welch) keeps it near 2%."""
    assert _false_rate(3, 3, 3.0) <= ALPHA + 0.005


def test_a_noisy_arm_with_fewer_seeds_is_not_vouched_for_by_a_tight_one() -> None:
    """2 noisy seeds against 3 tight ones (a partial campaign): pooled 6.5%, Welch about 3.6%."""
    assert _false_rate(2, 3, 3.0) <= 0.045


def test_alike_arms_are_called_different_at_about_alpha() -> None:
    """Equal SDs, 3 seeds each: the test is not so strict that it never calls noise an effect."""
    assert 0.005 <= _false_rate(3, 3, 1.0) <= ALPHA + 0.005


def test_a_clear_difference_between_two_tight_arms_still_counts() -> None:
    c = compare(np.array([0.50, 0.51, 0.505]), np.array([0.40, 0.41, 0.405]), MIN_EFFECT_ABS)
    assert c.sign == 1 and c.df == pytest.approx(4), c  # equal SDs: Welch df is the pooled count


def test_a_flat_part_counts_only_when_shown_within_the_minimum_effect() -> None:
    """D1's 'the easy arm stays flat': a gain of +0.03 (3x the minimum effect) whose seeds spread too
    widely to call it a rise is not thereby flat (it counted as flat: absence of evidence); a gain whose
    t-interval lies within +-0.01 is; one beyond noise reverses the part."""
    noisy = replace(compare(np.array([0.01, 0.03, 0.05]), None, MIN_EFFECT_ABS), flip=True)
    assert noisy.sign == 0, noisy
    tight = replace(compare(np.array([0.0005, 0.001, 0.0015]), None, MIN_EFFECT_ABS), flip=True)
    assert tight.sign == 1, tight
    rising = replace(compare(np.array([0.049, 0.05, 0.051]), None, MIN_EFFECT_ABS), flip=True)
    assert rising.sign == -1, rising


def test_a_pick_made_for_the_claim_does_not_make_its_reversal_harder():
    """T9/T10 test their best-by-mean pick at alpha / arms for 'holds'; a reversal of the best arm needs no such
    correction (it was tested at alpha / (arms x parts)): t = -4 on 4 df reverses at 0.02, not at 0.01."""
    c = cr.Cmp(-0.04, 0.01, 0.01, 4, 0.01)
    assert judge({"staged > fixed": c}, alpha=cr.ALPHA / 2).status == "contradicted"


def test_a_no_difference_or_not_worse_part_shows_the_bound_it_had_to_pass():
    """An equivalence part counts when |diff| <= eps - t * SE, a non-inferiority one when diff >= t * SE - eps:
    the report's threshold column showed max(eps, t * SE), a bound neither was judged against."""
    crit = float(stats.t.ppf(1 - cr.ALPHA / 2, 4)) * 0.001
    flat = part_of("flat", cr.Cmp(0.001, 0.001, 0.01, 4, 0.001, flip=True), cr.ALPHA)
    not_worse = part_of("not worse", cr.Cmp(0.001, 0.001, 0.01, 4, 0.001, noninferior=True), cr.ALPHA)
    assert (flat.threshold, not_worse.threshold) == pytest.approx((0.01 - crit, crit - 0.01))
    assert flat.outcome == not_worse.outcome == "as claimed"
