"""The checks of the study's 34 insights, one module per axis; importing this package registers them.

Each check declares its claim with ``registry.insight`` and returns a ``Verdict``; shared thresholds
live in ``criteria``, comparisons and verdict rules in ``verdicts``.
"""

from mcsweep.analysis.checks import batch, context, data, evaluator, kl_clip, masking, temperature

__all__ = ["batch", "context", "data", "evaluator", "kl_clip", "masking", "temperature"]
