"""Unbiased pass@k (Chen et al. 2021 estimator) from stored samples, with bootstrap CIs over problems.

The estimator per problem is 1 - C(n-c, k) / C(n, k) for n samples of which c passed; averaging
it over problems is unbiased for pass@k. The CI resamples problems, the unit the test set draws.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

GROUP_KEYS: tuple[str, ...] = ("run_id", "sweep", "algo", "seed", "step", "max_length", "eval_temperature")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn without replacement from n (c correct) passes."""
    if k > n:
        raise ValueError(f"k={k} exceeds the {n} samples stored")
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def _per_problem(samples: pd.DataFrame, k: int) -> pd.Series:
    counts = samples.groupby("problem_id")["passed"].agg(["size", "sum"])
    return pd.Series(
        [
            pass_at_k(int(n), int(c), k) if n >= k else np.nan
            for n, c in zip(counts["size"], counts["sum"], strict=True)
        ],
        index=counts.index,
    )


def bootstrap_ci(values: np.ndarray, level: float = 0.95, n_boot: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean; seeded so reports are reproducible."""
    if len(values) < 2:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    means = rng.choice(values, size=(n_boot, len(values)), replace=True).mean(axis=1)
    tail = (1.0 - level) / 2.0
    return (float(np.quantile(means, tail)), float(np.quantile(means, 1.0 - tail)))


def pass_at_k_table(
    samples: pd.DataFrame, ks: Sequence[int] = (1, 2, 4), by: Sequence[str] = GROUP_KEYS
) -> pd.DataFrame:
    """pass@k with a 95% CI for each group of samples (run, step, max_length, temperature by default).

    Only feasible k are reported: k at most the fewest samples any problem of the group has (a k above
    it would drop problems, or leave none); ``samples_per_problem`` says what bounded it.
    """
    keys = [c for c in by if c in samples.columns and samples[c].notna().any()]
    rows = []
    for group, sub in samples.groupby(keys, dropna=False, sort=True):
        per_problem = int(sub.groupby("problem_id").size().min())
        for k in (k for k in ks if k <= per_problem):
            per = _per_problem(sub, k).dropna().to_numpy()
            lo, hi = bootstrap_ci(per)
            rows.append(
                {
                    **dict(zip(keys, group, strict=True)),
                    "k": k,
                    "samples_per_problem": per_problem,
                    "n_problems": len(per),
                    "pass@k": float(per.mean()) if len(per) else np.nan,
                    "ci_low": lo,
                    "ci_high": hi,
                }
            )
    return pd.DataFrame(rows)
