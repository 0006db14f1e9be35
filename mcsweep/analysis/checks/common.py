"""Criterion phrases the checks' declarations share, so every report states them the same way."""

from mcsweep.analysis.criteria import ALPHA

FINAL = "'final' = mean of the last 20% of a run's points, 'initial' = of the first 10%"
NOISE = (
    f"a part counts when it exceeds the minimum effect and a t-test over seeds (two-sided alpha {ALPHA:g}; a "
    "'no difference' or 'not worse' part when its t-interval lies within the minimum effect); "
    "every part for 'holds', a reversal at alpha / parts for 'contradicted'"
)
COLLAPSE = "collapse = final pass@1 below the smoothed peak by more than max(0.02, 10% of the peak)"
