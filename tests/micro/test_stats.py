"""The stats command's measures on hand-made graded rows (their inputs are labelled, not measured)."""

from __future__ import annotations

import pytest

from mcsweep.micro.stats import (
    Graded,
    diversity,
    eval_noise,
    pass_at_1,
    reasoning,
    strict_rejection,
    temperature_unit,
    truncation,
)
from mcsweep.train.evaluation import Sample


def _problem(pid: str, level: str = "hard", chain=(("mean", None),), fmt: str = "call") -> dict:
    return {"id": pid, "difficulty": level, "meta": {"chain": [list(s) for s in chain], "format": fmt}}


def _row(pid: str, robust: bool, strict: bool, truncated=False, verdict="accepted", ids=(1, 2, 3), level="hard"):
    return Graded(_problem(pid, level), 0, 112, list(ids), truncated, verdict, robust, strict)


def test_strict_rejection_counts_only_robust_correct_answers_by_type():
    rows = [_row("a", True, False), _row("a", True, True), _row("b", False, False), _row("c", True, True)]
    out = strict_rejection(rows)
    assert out["all"] == pytest.approx(1 / 3) and out["n_correct"] == 3
    assert out["F/call"] == pytest.approx(1 / 3) and "L/stdin" not in out


def test_pass_at_1_averages_per_problem_then_over_problems():
    rows = [_row("a", True, False), _row("a", False, False), _row("b", True, True)]
    assert pass_at_1(rows) == pytest.approx(0.75)
    assert pass_at_1(rows, strict=True) == pytest.approx(0.5)


def test_eval_noise_is_the_standard_error_over_problems_and_the_size_for_a_target():
    # problem shares 1, 0.5, 0, 0.5: variance 1/6, so SE = sqrt(1/6 / 4) and 1.5 pp needs 1/6 / 0.015^2
    rows = [_row(p, ok, ok) for p, oks in {"a": (1, 1), "b": (1, 0), "c": (0, 0), "d": (0, 1)}.items() for ok in oks]
    noise = eval_noise(rows)
    assert noise["se"] == pytest.approx((1 / 6 / 4) ** 0.5)
    assert noise["n_for_target"] == 741


def test_truncation_separates_cut_no_answer_and_loops():
    loop = (7, 8) * 8  # the last 8 tokens repeat the 8 before them
    rows = [
        _row("a", False, False, True, "no_code"),
        _row("b", False, False, True, "no_code", ids=loop),
        _row("c", False, False, True, "wrong_answer"),
        _row("d", True, True),
        _row("e", True, True, level="easy"),
    ]
    hard = next(r for r in truncation(rows, repeat_window=8) if r["difficulty"] == "hard")
    assert (hard["n"], hard["truncated"], hard["truncated_no_answer"], hard["maskable"]) == (4, 0.75, 0.5, 0.25)
    every = next(r for r in truncation(rows, repeat_window=8) if r["difficulty"] == "all")
    assert every["n"] == 5 and every["pass@1"] == pytest.approx(0.4)


def test_diversity_of_identical_samples_is_one_over_the_group():
    problem = _problem("a")
    same = [Sample(problem, i, [1, 2, 3, 4, 5]) for i in range(8)]
    assert diversity(same) == pytest.approx(2 / 16)
    distinct = [Sample(problem, i, [10 * i + j for j in range(5)]) for i in range(8)]
    assert diversity(distinct) == 1.0


def test_temperature_unit_maps_the_study_collapse_onto_the_policy_collapse():
    # labelled pass@1 per temperature (world 2's step-0 shape): 5% of the best 0.654 is 0.0327
    rows = [{"temperature": t, "pass@1": p} for t, p in ((0.6, 0.654), (1.2, 0.30), (1.4, 0.089), (1.5, 0.026))]
    assert temperature_unit(rows) == {"collapse": 1.5, "study_collapse": 2.0, "share": 0.05, "unit": 0.75}
    assert temperature_unit(rows[:3])["unit"] is None


def test_reasoning_splits_uncut_responses_by_how_they_state_constants():
    """World 3: each response's form (hand-written texts behind the ids), its steps and its accuracy,
    per difficulty, read at the longest length only."""
    texts = {
        1: "   9-4=5, 5+2=7, so k=7.",
        2: "   9-4=6, 6+2=8, so k=8.",
        3: "   k = 9-4+2 = 7.",
        4: "No constants to work out.",
    }
    rows = [
        _row("a", True, True, ids=(1,)),
        _row("b", False, False, ids=(2,)),
        _row("c", False, False, ids=(3,), level="easy"),
        _row("d", True, True, ids=(4,), level="easy"),
    ]
    cut = Graded(_problem("a"), 0, 56, [1], True, "no_code", False, False)  # a shorter length: not read
    table = {(t["difficulty"], t["form"]): t for t in reasoning([*rows, cut], lambda ids: texts[ids[0]])}
    worked = table[("hard", "worked")]
    assert (worked["share"], worked["steps_right"], worked["accuracy"], worked["mean_tokens"]) == (1.0, 0.5, 0.5, 1)
    assert table[("all", "worked")]["share"] == 0.5 and table[("easy", "shortcut")]["accuracy"] == 0.0
    assert table[("all", "none")]["share"] == 0.25 and ("hard", "shortcut") not in table
