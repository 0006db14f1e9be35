"""Truncation masks computed by hand for small groups (pure functions; the trainer seam test is in tests/train)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mcsweep.algo import truncation_mask as tm

EOS, PAD = 2, 0
STOP = [EOS, PAD]


def _decide(ids, verdicts, rewards, mode, rho=0.3, draws=None, non_incorrect="no_answer", m=2):
    draws = np.zeros(len(ids)) if draws is None else np.asarray(draws)
    return tm.decide(
        ids,
        verdicts,
        rewards,
        mode=mode,
        rho=rho,
        non_incorrect=non_incorrect,
        repeat_window=m,
        stop_ids=STOP,
        draws=draws,
    )


# Four responses: finished correct, truncated with no answer, truncated and looping, truncated wrong answer.
IDS = [[5, 6, EOS], [5, 6, 7, 8, 9, 10], [5, 7, 8, 7, 8], [5, 6, 9, 4, 3]]
VERDICTS = ["accepted", "no_code", "no_code", "wrong_answer"]
REWARDS = [1.0, 0.0, 0.0, 0.0]


def test_truncated_and_repeat_definitions():
    assert [tm.is_truncated(x, STOP) for x in IDS] == [False, True, True, True]
    assert tm.is_repeat([5, 7, 8, 7, 8], 2) and not tm.is_repeat([5, 6, 9, 4, 3], 2)
    assert not tm.is_repeat([7, 8], 2)


@pytest.mark.parametrize(
    ("mode", "rho", "expected"),
    [
        ("none", 0.3, [False, False, False, False]),
        ("all", 0.3, [False, True, True, True]),
        ("all_failed", 0.3, [False, True, True, True]),
        ("conditional", 1.0, [False, True, False, False]),  # loop and wrong answer are never masked
        ("conditional", 0.0, [False, False, False, False]),  # rho = 0 masks nothing
    ],
)
def test_modes(mode, rho, expected):
    assert _decide(IDS, VERDICTS, REWARDS, mode, rho).masked.tolist() == expected


def test_all_failed_keeps_truncated_correct_responses():
    d = _decide([[5, 6, 7, 8]], ["accepted"], [1.0], "all_failed")
    assert d.masked.tolist() == [False]
    assert _decide([[5, 6, 7, 8]], ["accepted"], [1.0], "all").masked.tolist() == [True]


def test_conditional_uses_the_draws_against_rho():
    ids = [[5, 6, 7, 9]] * 4
    d = _decide(ids, ["no_code"] * 4, [0.0] * 4, "conditional", rho=0.3, draws=[0.1, 0.29, 0.3, 0.9])
    assert d.masked.tolist() == [True, True, False, False]


def test_non_incorrect_definitions():
    ids = [[5, 6, 7, 9]] * 3
    verdicts = ["compile_error", "runtime_error", "wrong_answer"]
    got = {
        name: _decide(ids, verdicts, [0.0] * 3, "conditional", 1.0, non_incorrect=name).masked.tolist()
        for name in tm.NON_INCORRECT_VERDICTS
    }
    assert got == {
        "no_answer": [False, False, False],
        "unparsable": [True, False, False],
        "not_wrong_answer": [True, True, False],
    }


def test_apply_zeroes_exactly_the_masked_advantages_and_group_stats():
    adv = torch.tensor([1.5, -0.5, -0.5, -0.5])
    d = _decide(IDS, VERDICTS, REWARDS, "all")
    assert tm.apply(adv, d).tolist() == [1.5, 0.0, 0.0, 0.0]
    assert adv.tolist() == [1.5, -0.5, -0.5, -0.5]
    stats = tm.group_stats(d, group_size=2)
    assert stats["mask/truncated"] == 1.5 and stats["mask/masked_frac"] == 0.75
    assert stats["mask/repetitive"] == 0.5 and stats["mask/non_incorrect"] == 1.0


def test_draws_replay_by_seed_step_and_process():
    assert np.array_equal(tm.mask_draws(3, 7, 0, 8), tm.mask_draws(3, 7, 0, 8))
    assert not np.array_equal(tm.mask_draws(3, 7, 0, 8), tm.mask_draws(3, 8, 0, 8))
    assert not np.array_equal(tm.mask_draws(3, 7, 0, 8), tm.mask_draws(3, 7, 1, 8))


def test_period_agnostic_detector_sees_loops_whose_period_does_not_divide_m():
    """A period-3 loop at m=4: the paper's repeat(o, m) misses it, the any-period detector does not."""
    loop3 = [9, 1] + [5, 6, 7] * 4  # last 8 tokens: 6 7 5 6 | 7 5 6 7
    assert not tm.is_repeat(loop3, 4) and tm.is_periodic_tail(loop3, 4)
    loop4 = [9] + [5, 6, 7, 8] * 3
    assert tm.is_repeat(loop4, 4) and tm.is_periodic_tail(loop4, 4)  # the literal case is kept
    plain = [5, 6, 7, 8, 9, 10, 11, 12, 13]
    assert not tm.is_periodic_tail(plain, 4) and not tm.is_periodic_tail(loop3[-7:], 4)

    ids, verdicts, rewards = [loop3, plain], ["no_code", "no_code"], [0.0, 0.0]
    literal = tm.decide(
        ids,
        verdicts,
        rewards,
        mode="conditional",
        rho=1.0,
        non_incorrect="no_answer",
        repeat_window=4,
        stop_ids=STOP,
        draws=np.zeros(2),
        repeat_detector="literal",
    )
    periodic = tm.decide(
        ids,
        verdicts,
        rewards,
        mode="conditional",
        rho=1.0,
        non_incorrect="no_answer",
        repeat_window=4,
        stop_ids=STOP,
        draws=np.zeros(2),
    )
    assert literal.masked.tolist() == [True, True]  # the loop is taken for a plain truncation
    assert periodic.masked.tolist() == [False, True]
    stats = tm.group_stats(literal, 2)
    assert (stats["mask/repetitive_literal"], stats["mask/repetitive_any_period"]) == (0.0, 1.0)
    assert stats["mask/repetitive"] == 0.0 and tm.group_stats(periodic, 2)["mask/repetitive"] == 1.0
    with pytest.raises(ValueError, match="unknown repeat detector 'fuzzy'"):
        tm.decide(
            ids,
            verdicts,
            rewards,
            mode="none",
            rho=0.0,
            non_incorrect="no_answer",
            repeat_window=4,
            stop_ids=STOP,
            draws=np.zeros(2),
            repeat_detector="fuzzy",
        )
