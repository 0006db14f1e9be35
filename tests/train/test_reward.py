"""The training reward: the last fenced block of a completion, run against hidden tests in the sandbox."""

from __future__ import annotations

import pytest

from mcsweep.evaluator import Evaluator
from mcsweep.micro.problems import WorldSpec
from mcsweep.micro.world import problem_set
from mcsweep.train.reward import ExecutionReward, ScaledOverlongPunishment, check_natural_length
from mcsweep.train.run import train


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
    assert reward.judge_metrics() == {
        "reward/duplicate_share": 0.0,
        "reward/shadow_livecodebench": 0.25,
        "reward/disagreement_livecodebench": 0.0,
    }


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


def test_overlong_buffer_is_a_fraction_of_the_length_and_follows_extension():
    """DAPO's 4096 of 20480 tokens; at 112 tokens the penalty starts at 90, not at 80 (fixed 32)."""
    assert ScaledOverlongPunishment(20480, 0.2).buffer == 4096
    shaping = ScaledOverlongPunishment(112, 0.2)
    assert (shaping.buffer, shaping.penalty_start) == (22, 90)
    assert shaping([[0] * 90, [0] * 101, [0] * 112, [0] * 113]) == [0.0, -0.5, -1.0, -1.0]
    shaping.max_completion_len = 224  # what set_max_completion_length does on context extension
    assert (shaping.buffer, shaping.penalty_start) == (45, 179)
    assert shaping([[0] * 112]) == [0.0]


def test_natural_length_check_flags_a_policy_that_mostly_sits_in_the_penalty_zone():
    shaping = ScaledOverlongPunishment(112, 0.2)
    assert check_natural_length([60, 80, 95, 100], shaping) is None  # half inside: not "mostly"
    message = check_natural_length([60, 95, 100, 112], shaping)
    assert "75%" in message and "penalty's start (90 of 112 tokens, buffer 22)" in message


def test_first_rollout_in_the_penalty_zone_fails_the_run_when_asked(tiny_run):
    """A real DAPO run whose answers (cut at 24 tokens) all sit past the penalty's start (20)."""
    cfg, raw = tiny_run(
        [
            "algo=dapo",
            "algo.overlong_start_check=fail",
            "train.steps=1",
            "train.eval_at_start=false",
            "batch.train_batch=2",
            "batch.mini_batch=2",
            "batch.group_size=4",
            "context.max_completion_length=24",
            "context.eval_lengths=[24]",
            "context.repeat_window=4",
        ]
    )
    with pytest.raises(RuntimeError, match=r"DAPO overlong shaping: \d+% of the first rollout"):
        train(cfg, raw)
