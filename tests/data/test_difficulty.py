"""The rubric and the offline deterministic scorer."""

from __future__ import annotations

import pytest
from datafix import make_pool

from mcsweep.data.difficulty import (
    DEFAULT_RUBRIC,
    OfflineScorer,
    code_features,
    rubric_from_config,
    score_problem,
    statement_features,
    weighted,
)
from mcsweep.data.schema import Problem


def test_default_rubric_stresses_reasoning_and_implementation() -> None:
    weights = {d.key: d.weight for d in DEFAULT_RUBRIC}
    assert sum(weights.values()) == pytest.approx(1.0)
    top_two = sorted(weights, key=weights.get, reverse=True)[:2]  # type: ignore[arg-type]
    assert set(top_two) == {"algorithmic_thinking", "implementation"}
    assert {d.name for d in DEFAULT_RUBRIC} >= {"Algorithmic Thinking", "Implementation"}


def test_rubric_config_and_weighting() -> None:
    rubric = rubric_from_config([{"key": "a", "weight": 3}, {"key": "b", "weight": 1}])
    assert weighted({"a": 10.0, "b": 2.0}, rubric) == pytest.approx(8.0)
    with pytest.raises(ValueError, match="non-negative"):
        rubric_from_config([{"key": "a", "weight": -1}])


def test_features() -> None:
    f = statement_features(r"Given $1 \le n \le 2 \cdot 10^5$ numbers, sort them, then print the median.")
    assert f["constraint_exp"] == 5 and f["constraints"] == 2 and f["operations"] == 2
    nested = code_features(
        "import heapq\nfor i in range(3):\n    for j in range(i):\n        if i and j:\n            print(i)\n"
    )
    flat = code_features("print(1)\n")
    assert nested["loop_depth"] == 2 and nested["algo_imports"] == 1 and nested["cyclomatic"] == 5
    assert nested["halstead"] > flat["halstead"] and code_features("def (:")["halstead"] == 0


def test_offline_scores_grow_with_chain_length_and_are_deterministic() -> None:
    pool = [Problem.from_dict(r) for r in make_pool(30)]
    scorer = OfflineScorer()
    by_len: dict[int, list[float]] = {1: [], 2: [], 3: []}
    for p in pool:
        by_len[len(p.meta["chain"])].append(score_problem(p, scorer, DEFAULT_RUBRIC)["score"])
    means = [sum(v) / len(v) for v in by_len.values()]
    assert means[0] < means[1] < means[2]
    assert score_problem(pool[0], scorer, DEFAULT_RUBRIC) == score_problem(pool[0], scorer, DEFAULT_RUBRIC)


def test_noise_varies_repeats_but_is_seeded() -> None:
    p = Problem.from_dict(make_pool(1)[0])
    noisy = score_problem(p, OfflineScorer(noise=0.5, seed=3), DEFAULT_RUBRIC, repeats=3)
    assert noisy["std"] > 0 and len(set(noisy["weighted"])) == 3
    assert noisy == score_problem(p, OfflineScorer(noise=0.5, seed=3), DEFAULT_RUBRIC, repeats=3)
