"""Each check on SIMULATED sweeps built to hold its claim and to contradict it (both asserted)."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mcsweep.analysis import INSIGHTS, check_all, load, load_samples, reasons
from mcsweep.analysis.insights import BY_ID
from mcsweep.analysis.verdicts import NO_NOISE

from . import simulate as sim

# insight -> arm overrides (on its sweep's PAPER arms) that make the claim false. SIMULATED.
CONTRADICT: dict[str, dict[str, dict[str, float]]] = {
    "E3": {"microcoder": {"rnoise": 0.05}, "livecodebench": {"rnoise": 0.005, "r0": 0.28, "r1": 0.40}},
    "E4": {"microcoder": {"r0": 0.20, "r1": 0.28}},
    "E5": {"microcoder": {"ap": 0.37, "p": 1.0}},
    "E6": {"microcoder": {"p": 1.0}, "livecodebench": {"p": 4.0}},
    "T1": {"1.2": {"tgrow": -1.0}},
    "T2": {"1.8": {"d0": 0.40}},
    "T3": {"1.8": {"de": 0.85}},
    "T4": {"0.6": {"tp": 1.0, "de": 0.45}},  # starts below, neither collapses nor loses diversity
    "T5": {"0.6": {"tp": 1.0}},
    "T6": {"1.8": {"tp": 0.5, "ae": 0.30}},
    "T7": {"1.8": {"de": 0.85}},
    "T8": {"1.8": {"ap": 0.46}},
    "T9": {"0.6->1.2@30": {"ap": 0.38}, "0.6->1.8@30": {"ap": 0.38}},
    "T10": {"0.6~1.8": {"ap": 0.47, "tp": 1.0}},
    "D1": {"deepcoder": {"ap": 0.40}},
    "D2": {"microcoder": {"r0": 0.60, "r1": 0.75}},
    "D3": {"deepcoder": {"ap": 0.40}},
    "D4": {"microcoder": {"lp": 300.0}},
    "C1": {"512": {"ap": 0.33}},
    "C2": {"512": {"lp": 180.0}},
    "C3": {"512": {"de": 0.45}},
    "C4": {"256->512@30": {"ap": 0.46}},
    # C5 and C6 presuppose C4's deficit: their counter-worlds keep every extension below the 512 arm
    "C5": {"256->512@30": {"ap": 0.40}, "384->512@30": {"ap": 0.37}},
    "C6": {"256->512@45": {"ap": 0.40}, "256->512@30": {"ap": 0.37}},
    "M3": {a: {"tp": 1.0} for a in ("10%", "20%", "30%", "all")},
    "M4": {"10%": {"lp": 540.0}, "all": {"lp": 420.0}},
    "M5": {"10%": {"tp": 0.1}, "20%": {"tp": 0.3}, "30%": {"tp": 0.5}, "all": {"tp": 0.7}},
    "M6": {"none": {"ap": 0.35}},
    "M7": {"none": {"tau": 0.1, "de": 0.10}},
    "M8": {"none": {"ap": 0.52}},
    "B3": {
        "32": {"tl": 1.0, "tau": 0.6, "de": 0.55},
        "128": {"tl": 0.5, "le": 330.0, "tau": 0.05, "de": 0.3},
    },
    "B4": {"64": {"ap": 0.35}},
    "K1": {"kl": {"de": 0.80, "lp": 600.0, "ap": 0.45, "tp": 1.0}},
    "K2": {"kl": {"tp": 1.0}},
}
CHECKED = [i.id for i in INSIGHTS if not i.is_definition]
_WORLDS = tempfile.TemporaryDirectory(prefix="sim_worlds_")  # removed at exit; shared by the cached worlds


def _arms(sweep: str, overrides: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    return {arm: {**p, **overrides.get(arm, {})} for arm, p in sim.PAPER[sweep].items()}


@cache
def _world(sweep: str, overrides_key: str, seeds: tuple[int, ...] = (0, 1, 2)) -> tuple[pd.DataFrame, pd.DataFrame]:
    overrides = CONTRADICT.get(overrides_key, {})
    root = Path(_WORLDS.name) / f"{sweep}-{overrides_key or 'paper'}-{len(seeds)}"
    sim.write_store(root, sim.make_sweep(sweep, _arms(sweep, overrides), seeds))
    return load(root), load_samples(root)


def test_registry_has_34_insights_and_6_definitions() -> None:
    assert len(CHECKED) == 34
    assert sorted(i.id for i in INSIGHTS if i.is_definition) == ["B1", "B2", "E1", "E2", "M1", "M2"]
    assert set(CONTRADICT) == set(CHECKED)
    assert all(i.claim and i.criterion and i.metrics and i.figure for i in INSIGHTS if not i.is_definition)


@pytest.mark.parametrize("iid", CHECKED)
def test_check_holds_on_simulated_paper_world(iid: str) -> None:
    ins = BY_ID[iid]
    frame, samples = _world(ins.sweep, "")
    verdict = ins.run(frame, samples)
    assert verdict.status == "holds", verdict


@pytest.mark.parametrize("iid", CHECKED)
def test_check_contradicted_on_simulated_counter_world(iid: str) -> None:
    ins = BY_ID[iid]
    frame, samples = _world(ins.sweep, iid)
    verdict = ins.run(frame, samples)
    assert verdict.status == "contradicted", verdict
    assert verdict.numbers


def test_one_seed_without_seeds_sweep_is_inconclusive() -> None:
    frame, _ = _world("data", "", seeds=(0,))
    verdict = BY_ID["D2"].run(frame)
    assert verdict.status == "inconclusive" and verdict.reason == NO_NOISE


def test_one_seed_borrows_noise_from_the_seeds_sweep(tmp_path: Path) -> None:
    root = tmp_path
    sim.write_store(
        root,
        sim.make_sweep("data", sim.PAPER["data"], (0,)) + sim.make_sweep("seeds", sim.PAPER["seeds"], (0, 1, 2)),
    )
    verdict = BY_ID["D2"].run(load(root))
    assert verdict.status == "holds", verdict


def test_effect_within_noise_is_inconclusive(tmp_path: Path) -> None:
    root = tmp_path
    same = {"deepcoder": {}, "microcoder": {}}
    sim.write_store(root, sim.make_sweep("data", same, (0, 1, 2)))
    verdict = BY_ID["D2"].run(load(root))
    assert verdict.status == "inconclusive" and "within noise" in verdict.reason


def test_missing_sweep_names_the_command(paper_frame: pd.DataFrame) -> None:
    verdict = BY_ID["K1"].run(paper_frame[paper_frame["sweep"] != "kl_clip"])
    assert verdict.status == "inconclusive"
    assert "python -m mcsweep +sweep=kl_clip -m" in verdict.reason


def test_check_all_on_the_simulated_store(paper_frame: pd.DataFrame, paper_samples: pd.DataFrame) -> None:
    table = check_all(paper_frame, paper_samples)
    assert len(table) == 40
    assert table["status"].value_counts().to_dict() == {"holds": 34, "definition": 6}


def test_conditional_mask_is_the_default_rho_arm_of_a_rate_sweep(tmp_path: Path) -> None:
    """mcsweep's masking sweep names its arms conditional_<rho>; M8's conditional mask is rho 0.3. SIMULATED."""
    paper = sim.PAPER["masking"]
    arms = {
        "none": paper["none"],
        "conditional_0.1": paper["10%"],
        "conditional_0.3": paper["conditional"],
        "all": paper["all"],
    }
    sim.write_store(tmp_path, sim.make_sweep("masking", arms))
    verdict = BY_ID["M8"].run(load(tmp_path))
    assert verdict.status == "holds", verdict
    assert any("[conditional_0.3]" in k for k in verdict.numbers)


def test_curve_shape_needs_enough_evaluations() -> None:
    """Three evaluations cannot show a rise, a fall and a plateau: M3 says so instead of judging. SIMULATED."""
    frame, _ = _world("masking", "")
    acc = BY_ID["M3"].metrics[0]
    few = frame[(frame["metric"] != acc) | frame["step"].isin([0, 30, 60])]
    verdict = BY_ID["M3"].run(few)
    assert verdict.status == "inconclusive" and "needs >= 5 evaluations per run (have 3)" in verdict.reason


def test_reward_accuracy_correlation_needs_three_evaluations_with_reward() -> None:
    frame, _ = _world("evaluator", "")
    acc = BY_ID["E3"].metrics[1]
    few = frame[(frame["metric"] != acc) | frame["step"].isin([30, 60])]
    verdict = BY_ID["E3"].run(few)
    assert verdict.status == "inconclusive" and "needs >= 3 evaluation steps" in verdict.reason


@pytest.mark.parametrize("world", ["", "E3"])
def test_reward_logged_between_evaluations_still_correlates(world: str) -> None:
    """Training with two updates per rollout logs its reward on odd steps only, while evaluations fall
    on even ones (the campaign's runs: no evaluation step logs a reward). E3 pairs each evaluation with
    the mean reward since the one before, so it decides as on the fully logged store. SIMULATED."""
    frame, _ = _world("evaluator", world)
    odd = frame[(frame["metric"] != "reward") | (frame["step"] % 2 == 1)]
    assert BY_ID["E3"].run(odd).status == BY_ID["E3"].run(frame).status == ("holds" if not world else "contradicted")


def test_one_seed_borrows_e3_noise_from_the_judged_accuracy(tmp_path: Path) -> None:
    """With one seed per arm E3 takes its seed SD from the seeds sweep, correlating reward with test
    pass@1 graded by the same fixed judge as the arms, not the run's own-comparator pass@1. SIMULATED."""
    runs = sim.make_sweep("evaluator", sim.PAPER["evaluator"], (0,)) + sim.make_sweep("seeds", sim.PAPER["seeds"])
    frame = load(sim.write_store(tmp_path, runs))
    rng = np.random.default_rng(0)
    own = (frame["sweep"] == "seeds") & (frame["metric"] == "eval/pass@1")
    scrambled = frame.copy()
    scrambled.loc[own, "value"] = rng.uniform(0, 1, int(own.sum()))  # the comparator E3 does not judge by
    before, after = BY_ID["E3"].run(frame), BY_ID["E3"].run(scrambled)
    sd = next(k for k in before.numbers if k.endswith(".sd"))
    assert before.numbers[sd] == after.numbers[sd]


@pytest.mark.parametrize("iid", ["T4", "T8"])
def test_no_convergence_value_when_diversities_do_not_converge(iid: str) -> None:
    """T4 and T8 compare with the value diversity converges to; where T7 fails there is none. SIMULATED."""
    frame, samples = _world("temperature", "T7")
    verdict = BY_ID[iid].run(frame, samples)
    assert verdict.status == "inconclusive" and verdict.reason.startswith("no convergence diversity"), verdict
    assert reasons.group_of(verdict.reason) == "premise not established"  # T7's convergence


@pytest.mark.parametrize(("iid", "status"), [("T5", "holds"), ("T6", "inconclusive")])
def test_a_lone_fixed_temperature_decides_only_the_claim_about_it(tmp_path: Path, iid: str, status: str) -> None:
    """A temperature sweep with only t = 0.6 finished (SIMULATED): T5 (about t = 0.6) is judged on it, T6
    (about t = 1.8) is inconclusive, its arm not run; neither takes the lone arm for another one."""
    arms = {a: p for a, p in sim.PAPER["temperature"].items() if a == "0.6" or "->" in a or "~" in a}
    sim.write_store(tmp_path, sim.make_sweep("temperature", arms, (0, 1, 2)))
    verdict = BY_ID[iid].run(load(tmp_path), load_samples(tmp_path))
    assert verdict.status == status, verdict
    if status == "inconclusive":
        assert reasons.group_of(verdict.reason) == "arm not run", verdict.reason


@pytest.mark.parametrize("iid", ["T5", "T6"])
def test_one_run_per_arm_decides_no_per_run_claim(tmp_path: Path, iid: str) -> None:
    """'Every seed must agree' needs two seeds: one run of each fixed temperature (SIMULATED) decides
    neither end's claim, though the same arms at three seeds do (the holding worlds above)."""
    arms = {a: p for a, p in sim.PAPER["temperature"].items() if a in ("0.6", "1.2", "1.8")}
    sim.write_store(tmp_path, sim.make_sweep("temperature", arms, (0,)))
    verdict = BY_ID[iid].run(load(tmp_path), load_samples(tmp_path))
    assert verdict.status == "inconclusive" and verdict.reason.startswith("fewer than 2 runs to agree"), verdict


def test_an_unfinished_run_is_left_out_of_the_verdicts() -> None:
    """A running run's last point is not its end: with the hard arm's runs still running, D2 has no
    hard arm to compare (the old code compared their partial values and said 'holds')."""
    frame, _ = _world("data", "")
    assert BY_ID["D2"].run(frame).status == "holds"
    running = frame.assign(status=frame["status"].where(frame["data"] != "microcoder", "running"))
    verdict = BY_ID["D2"].run(running)
    assert verdict.status == "inconclusive", verdict


@pytest.mark.parametrize("state", ["preempted", "pending", "preempting"])
def test_a_run_in_any_unfinished_state_is_left_out(state: str) -> None:
    """W&B states beyond running/crashed/failed/killed (a preempted run stopped where it was) pass
    through the loader as they are; they are no more finished than a running run. SIMULATED."""
    frame, _ = _world("data", "")
    stopped = frame.assign(status=frame["status"].where(frame["data"] != "microcoder", state))
    verdict = BY_ID["D2"].run(stopped)
    assert verdict.status == "inconclusive" and verdict.reason.startswith("arm missing"), verdict
