"""Test-set grading: every sample is judged by both comparators, whatever the arm's reward uses."""

from __future__ import annotations

import json

import pytest
from transformers import AutoTokenizer

from mcsweep.micro.policy import policy_path
from mcsweep.train.evaluation import EvalSettings, Sample, grade_samples, summarize
from mcsweep.train.run import make_evaluator, policy_spec

# 1/3 printed with full float precision: the robust comparator's tolerance accepts it, LCB's exact
# Decimal comparison does not (see the evaluator's shadow-disagreement test).
IO = json.dumps({"inputs": ["3\n"], "outputs": ["0.333333333333\n"]})
FLOAT = "Here:\n```python\nprint(1 / int(input()))\n```\n"
EXACT = "Here:\n```python\nprint('0.333333333333')\n```\n"
WRONG = "Here:\n```python\nprint(0)\n```\n"


@pytest.mark.parametrize("arm", ["livecodebench", "microcoder"])
def test_both_comparators_grade_every_test_sample(tiny_run, arm):
    cfg, _ = tiny_run([f"evaluator={arm}", "evaluator.shadow=[]", "evaluator.workers=1"])
    tokenizer = AutoTokenizer.from_pretrained(str(policy_path(policy_spec(cfg))))
    eos = tokenizer.eos_token_id
    problem = {"id": "p", "input_output": IO, "difficulty": "easy"}
    samples = [
        Sample(problem, i, [*tokenizer(text, add_special_tokens=False)["input_ids"], eos])
        for i, text in enumerate([FLOAT, EXACT, WRONG, FLOAT])
    ]
    settings = EvalSettings(4, 1.0, (200,))
    evaluator = make_evaluator(cfg, shadow=True)
    try:
        rows = grade_samples(samples, settings, tokenizer, evaluator, 0, [eos])
    finally:
        evaluator.close()
    assert [r["passed_microcoder"] for r in rows] == [True, True, False, True]
    assert [r["passed_livecodebench"] for r in rows] == [False, True, False, False]
    assert [r["passed"] for r in rows] == [r[f"passed_{arm}"] for r in rows]
    summary = summarize(rows, 0, 200, 4)
    assert summary["pass@1/judge_microcoder"] == 0.75 and summary["pass@1/judge_livecodebench"] == 0.25
    assert summary["pass@1"] == summary[f"pass@1/judge_{arm}"]


def test_a_prefix_the_same_at_several_lengths_is_graded_once(tiny_run):
    """Grading is the evaluation's cost: equal (problem, tokens) views share one verdict, and a
    sample cut shorter at a smaller length is a different view, graded on its own."""
    cfg, _ = tiny_run(["evaluator.shadow=[]", "evaluator.workers=1"])
    tokenizer = AutoTokenizer.from_pretrained(str(policy_path(policy_spec(cfg))))
    eos = tokenizer.eos_token_id
    problem = {"id": "p", "input_output": IO, "difficulty": "easy"}
    ids = [[*tokenizer(text, add_special_tokens=False)["input_ids"], eos] for text in (FLOAT, EXACT, FLOAT)]
    cut = len(ids[1]) - 1  # EXACT loses its end token at this length; FLOAT (shorter) does not
    assert len(ids[0]) <= cut
    samples = [Sample(problem, i, x) for i, x in enumerate(ids)]
    evaluator = make_evaluator(cfg, shadow=True)
    sizes: list[int] = []
    grade_many = evaluator.grade_many
    evaluator.grade_many = lambda requests: sizes.append(len(requests)) or grade_many(requests)
    try:
        rows = grade_samples(samples, EvalSettings(3, 1.0, (cut, 200)), tokenizer, evaluator, 0, [eos])
    finally:
        evaluator.close()
    assert sizes == [3]  # FLOAT once for both samples and both lengths, EXACT whole and EXACT cut
    by = {(r["max_length"], r["sample"]): r for r in rows}
    assert [by[200, i]["passed_microcoder"] for i in range(3)] == [True, True, True]
    assert by[cut, 1]["truncated"] and not by[200, 1]["truncated"] and by[cut, 0]["ids"] == ids[0]
