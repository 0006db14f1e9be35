"""Verdicts need positive evidence about the claim's own arm: no 'holds' from a point estimate, from not
finding a difference, from another arm than the claim names or from the best of several arms picked by
mean; no crash on a missing series. SIMULATED worlds throughout."""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest

from mcsweep.analysis import reasons
from mcsweep.analysis.criteria import ACC
from mcsweep.analysis.insights import BY_ID, INSIGHTS

from . import simulate as sim

TEMP = sim.PAPER["temperature"]


def _frames(sweep: str, arms: dict[str, dict[str, float]], seeds: tuple[int, ...] = (0, 1, 2)):
    return sim.frames(sim.make_sweep(sweep, arms, seeds))


def _flat_acc(frame: pd.DataFrame, per_arm: dict[str, list[float]], axis: str = "temperature") -> pd.DataFrame:
    """``frame`` with each run's test pass@1 flat at its seed's value in ``per_arm`` (seeds in order)."""
    out = frame.copy()
    for arm, values in per_arm.items():
        runs = sorted(out.loc[out[axis] == arm, "run_id"].unique())
        for rid, v in zip(runs, values, strict=True):
            out.loc[(out["run_id"] == rid) & (out["metric"] == ACC), "value"] = v
    return out


# --- 1. 'similar' / 'best' claims need positive evidence ------------------------------------------------


def test_t7_similar_final_diversity_needs_an_equivalence_test() -> None:
    """Final diversities 0.05 apart by mean (under the 0.068 tolerance: half the initial spread) with a
    2-point seed SD: the spread is not shown to be within the tolerance, so 'converges to similar values'
    does not hold (it did, on the point estimate)."""
    arms = {a: {**TEMP[a], "dseed": 0.02} for a in ("1.2", "1.8")}
    verdict = BY_ID["T7"].run(*_frames("temperature", arms))
    assert verdict.status == "inconclusive", verdict
    assert any(p.flat for p in verdict.parts), verdict.parts


def test_t8_the_rules_pick_must_be_shown_not_worse_than_every_other_arm() -> None:
    """The rule picks t = 1.2; t = 1.8 ends 0.02 higher by mean, with a 2-point seed SD (within noise):
    'within noise of the best' is no evidence that the pick is as good, so T8 does not hold."""
    arms = {**{a: TEMP[a] for a in ("0.6", "1.2")}, "1.8": {**TEMP["1.8"], "ap": 0.43}}
    arms = {a: {**p, "aseed": 0.02} for a, p in arms.items()}
    frame, samples = _frames("temperature", arms)
    verdict = BY_ID["T8"].run(frame, samples)
    assert verdict.status == "inconclusive", verdict
    assert reasons.group_of(verdict.reason) == "within noise", verdict.reason


def test_t8_the_best_arm_by_mean_is_not_thereby_the_best() -> None:
    """The rule's pick t = 1.2 ends highest by mean, but t = 1.8 is within noise of it: not shown."""
    frame, samples = _frames("temperature", {a: TEMP[a] for a in ("0.6", "1.2", "1.8")})
    frame = _flat_acc(frame, {"1.2": [0.40, 0.42, 0.44], "1.8": [0.39, 0.41, 0.43]})
    verdict = BY_ID["T8"].run(frame, samples)
    assert verdict.status == "inconclusive", verdict
    assert reasons.group_of(verdict.reason) == "within noise", verdict.reason


# --- 2. a claim about a named arm judges that arm, or none -----------------------------------------------


@pytest.mark.parametrize(("iid", "kept"), [("T5", ("1.2", "1.8")), ("T6", ("0.6", "1.2"))])
def test_a_claim_whose_temperature_did_not_run_is_inconclusive(iid: str, kept: tuple[str, ...]) -> None:
    """T5 is about t = 0.6 and T6 about t = 1.8: without that arm, the lowest or highest other
    temperature is not judged in its place."""
    frame, samples = _frames("temperature", {a: TEMP[a] for a in kept})
    verdict = BY_ID[iid].run(frame, samples)
    assert verdict.status == "inconclusive", verdict
    assert reasons.group_of(verdict.reason) == "arm not run", verdict.reason


# --- 3. no check crashes on a missing or empty series ---------------------------------------------------


def test_m3_without_the_masked_arms_pass_at_1_is_inconclusive() -> None:
    frame, _ = _frames("masking", sim.PAPER["masking"])
    masked = frame["masking"].isin(["10%", "20%", "30%", "all"]) & (frame["metric"] == ACC)
    verdict = BY_ID["M3"].run(frame[~masked])
    assert verdict.status == "inconclusive" and verdict.reason, verdict


@cache
def _paper(sweep: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    return _frames(sweep, sim.PAPER[sweep])


@pytest.mark.parametrize("iid", [i.id for i in INSIGHTS if not i.is_definition])
def test_no_check_crashes_when_a_metric_is_missing(iid: str) -> None:
    """Each metric the check reads dropped from every run, then from one arm's runs: a verdict, never an
    error (M3 took min() over an empty list)."""
    ins = BY_ID[iid]
    frame, samples = _paper(ins.sweep)
    axis = sim.AXIS_OF_SWEEP[ins.sweep]
    first = sorted(frame[axis].dropna().unique())[0]
    for metric in sorted(set(ins.metrics) & set(frame["metric"])):
        gone = frame["metric"] == metric
        for rows in (gone, gone & (frame[axis] == first)):
            verdict = ins.run(frame[~rows], samples)
            assert verdict.status in ("holds", "contradicted", "inconclusive"), (metric, verdict)


# --- 4. the best of several arms, picked by mean, is tested at a corrected level ------------------------


def test_t9_the_best_of_two_staged_arms_is_tested_at_alpha_over_two() -> None:
    """The better staged arm beats the fixed one by 0.035 (t = 4.3 at 4 df): beyond the critical value at
    alpha (3.7) but not at alpha / 2 (4.6), the level a pick of the best of 2 staged arms must pass."""
    arms = {a: TEMP[a] for a in ("1.2", "0.6->1.2@30", "0.6->1.8@30")}
    frame, _ = _frames("temperature", arms)
    frame = _flat_acc(
        frame, {"0.6->1.8@30": [0.495, 0.505, 0.515], "0.6->1.2@30": [0.40, 0.41, 0.42], "1.2": [0.46, 0.47, 0.48]}
    )
    verdict = BY_ID["T9"].run(frame)
    assert verdict.status == "inconclusive", verdict
    assert reasons.group_of(verdict.reason) == "within noise", verdict.reason


def test_t9_the_staged_arm_must_beat_every_fixed_arm() -> None:
    """The staged arm beats the fixed arm with the highest mean beyond noise, but not a noisy fixed arm
    just below it: 'ends higher than any fixed temperature' is not shown."""
    arms = {a: TEMP[a] for a in ("1.2", "1.8", "0.6->1.8@30")}
    frame, _ = _frames("temperature", arms)
    frame = _flat_acc(frame, {"0.6->1.8@30": [0.50, 0.51, 0.52], "1.2": [0.46, 0.47, 0.48], "1.8": [0.40, 0.465, 0.53]})
    verdict = BY_ID["T9"].run(frame)
    assert verdict.status == "inconclusive", verdict
    assert reasons.group_of(verdict.reason) == "within noise", verdict.reason


# --- 5. an arm no claim reads is named, not dropped silently ---------------------------------------------


def test_an_arm_with_no_role_is_listed_as_unused() -> None:
    """The data sweep's third arm (mcsweep's micro_pipeline) has no role in D1-D4: the report names it."""
    from mcsweep.analysis.tables import unused_arms

    arms = {**sim.PAPER["data"], "micro_pipeline": sim.PAPER["data"]["microcoder"]}
    frame, _ = _frames("data", arms)
    assert unused_arms(frame) == {"data": ["micro_pipeline"]}
    assert np.isin(["deepcoder", "microcoder"], frame["data"].unique()).all()
