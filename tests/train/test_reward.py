"""The training reward: the last fenced block of a completion, run against hidden tests in the sandbox."""

from __future__ import annotations

import pytest

from mcsweep.evaluator import Evaluator
from mcsweep.micro.problems import WorldSpec
from mcsweep.micro.world import problem_set
from mcsweep.train.reward import ExecutionReward


@pytest.fixture(scope="module")
def evaluator():
    ev = Evaluator(comparator="microcoder", workers=2, timeout_s=2.0, shadow_comparators=("livecodebench",))
    yield ev
    ev.close()


def test_reward_grades_the_last_fenced_block(evaluator):
    problem = problem_set("test", WorldSpec(), 1)[0]
    good = f"Plan:\n1. solve it.\n```python\nprint('draft')\n```\nFinal:\n```python\n{problem['reference']}```"
    bad_last = f"```python\n{problem['reference']}```\nActually:\n```python\nprint(0)\n```"
    unclosed = f"Plan:\n```python\n{problem['reference']}"
    messages = [[{"role": "assistant", "content": text}] for text in (good, bad_last, unclosed, "no code at all")]
    reward = ExecutionReward(evaluator)
    got = reward(
        prompts=[None] * 4,
        completions=messages,
        input_output=[problem["input_output"]] * 4,
        problem_id=[problem["id"]] * 4,
    )
    assert got == [1.0, 0.0, 0.0, 0.0]
    assert reward.last.verdicts[0] == "accepted" and reward.last.verdicts[2:] == ["no_code", "no_code"]
    assert reward.last.shadow == {"livecodebench": [True, False, False, False]}
    assert reward.shadow_metrics() == {"reward/shadow_livecodebench": 0.25, "reward/disagreement_livecodebench": 0.0}


def test_crashing_solution_scores_zero_as_runtime_error(evaluator):
    problem = problem_set("test", WorldSpec(), 1)[0]
    reward = ExecutionReward(evaluator)
    got = reward(
        prompts=[None],
        completions=["```python\nraise SystemExit(3)\n```"],
        input_output=[problem["input_output"]],
        problem_id=[problem["id"]],
    )
    assert got == [0.0] and reward.last.verdicts == ["runtime_error"]
