"""The noise rule on SIMULATED worlds with a known answer: no effect must rarely be called an effect (issue 20).

``DRAWS`` no-effect worlds (every sweep, every arm alike, flat curves, 3 seeds; ``simulate.NULL``), each
with its own seeded noise. Per insight, a verdict is false when the null world does not allow it
(``simulate.NULL_RIGHT``). Why 50 draws: 50 x 34 = 1,700 verdicts put the overall rate (0.35% measured)
within about 0.2 pp (binomial SE), far inside the 2% bound. Per insight the bound is at most 2 false
verdicts of 50; a single-part two-arm claim carries about 2% (1% per direction), multi-part claims less,
so a fresh set of draws would exceed it for such an insight with probability about 8%, and for one whose
rate is 6% or more with probability above 50%. The draws are seeded, so the test is deterministic (the
measured maximum is 1 of 50: E6, T4, D1, D2, B3, B4); ``benchmarks/bench_verdicts.py --draws N`` measures with more
draws and the power. Runtime: 50 worlds, each built in memory and checked once (10-15 s a world here
with the 2 cores shared at load 12).
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import pandas as pd
import pytest

from mcsweep.analysis import INSIGHTS, check_all, false_verdicts
from mcsweep.analysis.insights import BY_ID

from . import simulate as sim

DRAWS = 50
CHECKED = [i.id for i in INSIGHTS if not i.is_definition]


@cache
def _false_verdicts() -> Counter:
    wrong: Counter = Counter()
    for d in range(DRAWS):
        for r in check_all(*sim.frames(sim.null_world(d))).itertuples():
            if r.id in CHECKED and r.status not in sim.NULL_RIGHT.get(r.id, {"inconclusive"}):
                wrong[r.id] += 1
    return wrong


def test_false_verdict_rate_overall_below_2_percent() -> None:
    wrong = _false_verdicts()
    rate = sum(wrong.values()) / (DRAWS * len(CHECKED))
    assert rate < 0.02, (rate, dict(wrong))


@pytest.mark.parametrize("iid", CHECKED)
def test_false_verdict_rate_of_each_insight_below_5_percent(iid: str) -> None:
    assert _false_verdicts()[iid] / DRAWS < 0.05, dict(_false_verdicts())


def test_batch_arms_at_equal_steps_have_seen_equal_data() -> None:
    """One step is one update of mini_batch prompts in every batch arm: no arm's run is cut short."""
    frame, _ = sim.frames(sim.make_sweep("batch", dict.fromkeys(sim.PAPER["batch"], sim.NULL), draw=0))
    verdict = BY_ID["B3"].run(frame)
    assert verdict.numbers["common data (steps of mini_batch prompts)"] == sim.N_STEPS


def _logged_per_rollout(frame, runs: list[str], metric: str, every: int):
    """The frame with ``metric`` of ``runs`` logged as a rollout of ``every`` updates logs it: one point
    per rollout, the mean of its updates (so with ``every`` times the prompts, less noise). SIMULATED."""
    mine = frame["run_id"].isin(runs) & (frame["metric"] == metric)
    part = frame[mine].copy()
    part["step"] = ((part["step"] + every - 1) // every) * every
    keys = [c for c in part.columns if c != "value"]
    return pd.concat([frame[~mine], part.groupby(keys, as_index=False, dropna=False)["value"].mean()])


@pytest.mark.parametrize("draw", range(5))
def test_a_batch_that_logs_once_per_rollout_is_compared_at_the_same_grain(draw: int) -> None:
    """Alike arms whose updates are equally noisy (SD 12 tokens of length; 240 steps), where the largest batch
    logs one point per 4 updates (their mean): the smallest batch's noisier points put its peak higher,
    so its relative drop from the peak looked larger beyond noise ('as claimed' in 3 of these 5 draws).
    Every run averaged to the coarsest grain first, the length part finds no effect."""
    alike = {**sim.NULL, "lnoise": 12.0, "steps": 240}
    frame, _ = sim.frames(sim.make_sweep("batch", dict.fromkeys(sim.PAPER["batch"], alike), draw=draw))
    largest = frame.loc[frame["batch"] == max(sim.PAPER["batch"], key=int), "run_id"].unique().tolist()
    verdict = BY_ID["B3"].run(_logged_per_rollout(frame, largest, "completions/mean_length", 4))
    part = next(k for k in verdict.numbers if k.startswith("length falls from its peak") and k.endswith(".diff"))
    threshold = verdict.numbers[part.replace(".diff", ".threshold")]
    assert abs(verdict.numbers[part]) < threshold, verdict.numbers


def test_length_minimum_effect_is_relative_to_the_length_not_the_gain() -> None:
    """Final lengths 5% apart but gains under 2% of the length apart, with next to no noise: the growth part
    is not an effect (a minimum effect of 3% of the gain, 0.5 tokens, called it one)."""
    arms = {
        "deepcoder": {"lnoise": 0.1, "l0": 290.0, "lp": 305.0},
        "microcoder": {"lnoise": 0.1, "l0": 300.0, "lp": 320.0},
    }
    verdict = BY_ID["D4"].run(sim.frames(sim.make_sweep("data", arms, draw=0))[0])
    assert verdict.status == "inconclusive" and "length growth" in verdict.reason, verdict


def test_the_rates_the_report_quotes_are_this_codes() -> None:
    """The report quotes ``false_verdict_rates.json`` beside each verdict; measured on older code it
    said E3 had 0 false verdicts in 50 worlds where the code since gives 2. The bench's draws are
    these draws, so its --write must be rerun whenever a check changes."""
    recorded = false_verdicts.measured()
    assert recorded["draws"] == DRAWS
    assert recorded["per_insight"] == {i: _false_verdicts()[i] / DRAWS for i in CHECKED}
