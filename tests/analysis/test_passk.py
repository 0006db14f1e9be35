"""Unbiased pass@k against brute-force enumeration, and its table on SIMULATED samples."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from mcsweep.analysis.passk import bootstrap_ci, pass_at_k, pass_at_k_table


def _brute(n: int, c: int, k: int) -> float:
    draws = list(itertools.combinations(range(n), k))
    return sum(any(i < c for i in d) for d in draws) / len(draws)


@pytest.mark.parametrize(("n", "c", "k"), [(4, 0, 1), (4, 1, 1), (4, 2, 2), (5, 1, 3), (6, 3, 4), (4, 4, 4)])
def test_pass_at_k_matches_enumeration(n: int, c: int, k: int) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(_brute(n, c, k))


def test_k_above_n_is_an_error() -> None:
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_table_and_ci() -> None:
    rng = np.random.default_rng(0)
    rows = [
        {"run_id": "r", "step": 5, "problem_id": f"p{i}", "passed": bool(rng.random() < 0.3)}
        for i in range(40)
        for _ in range(4)
    ]
    t = pass_at_k_table(pd.DataFrame(rows), ks=(1, 4))
    p1 = t[t["k"] == 1].iloc[0]
    assert p1["pass@k"] == pytest.approx(np.mean([r["passed"] for r in rows]))
    assert p1["ci_low"] < p1["pass@k"] < p1["ci_high"]
    assert t[t["k"] == 4].iloc[0]["pass@k"] >= p1["pass@k"]
    assert all(np.isnan(bootstrap_ci(np.array([1.0]))))  # one problem: no interval
