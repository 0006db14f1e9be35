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
