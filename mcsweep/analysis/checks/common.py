"""Criterion phrases the checks' declarations share, so every report states them the same way."""

FINAL = "'final' = mean of the last 20% of a run's points, 'initial' = of the first 10%"
NOISE = "a difference counts when it exceeds max(minimum effect, 2 SE over seeds)"
COLLAPSE = "collapse = final pass@1 below the smoothed peak by more than max(0.02, 10% of the peak)"
