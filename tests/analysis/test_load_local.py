"""The run-store loader on SIMULATED run folders, including broken and partial runs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from mcsweep.analysis import arms as ar
from mcsweep.analysis import load, load_report, load_samples
from mcsweep.analysis.load import TIDY_COLUMNS
from mcsweep.analysis.names import canonical, to_verl

from . import simulate as sim


def _store(tmp_path: Path) -> Path:
    runs = sim.make_sweep("data", sim.PAPER["data"], (0,))
    runs[0].card["status"] = "running"
    root = sim.write_store(tmp_path / "runs", runs)
    broken = root / "data" / "no-card"
    broken.mkdir()
    (broken / "metrics.jsonl").write_text('{"step": 0, "reward": 0.1}\nnot json\n{"reward": 0.2}\n')
    verl = root / "single" / "verl-run"
    verl.mkdir(parents=True)
    (verl / "run_card.json").write_text(json.dumps({"run_id": "verl-run", "sweep": "single", "status": "finished"}))
    (verl / "metrics.jsonl").write_text(
        json.dumps({"step": 3, "critic/score/mean": 0.4, "response_length/clip_ratio": 0.1}) + "\n"
    )
    return root


def test_tidy_schema_and_values(tmp_path: Path) -> None:
    frame = load(_store(tmp_path))
    assert list(frame.columns) == list(TIDY_COLUMNS)
    run = frame[frame["run_id"] == "sim-data-microcoder-s0"]
    assert run["data"].unique().tolist() == ["microcoder"]
    assert run["simulated"].all()
    acc = run[(run["metric"] == "eval/pass@1")]
    assert acc["step"].tolist() == list(range(0, sim.N_STEPS + 1, sim.EVAL_EVERY))
    evals = run[run["file"] == "evals"]
    assert set(evals["max_length"]) == {sim.TRAIN_LEN, sim.EXT_LEN}
    assert "evals/pass@1/hard" in set(evals["metric"])


def test_partial_and_broken_runs_are_reported_not_dropped(tmp_path: Path) -> None:
    frame = load(_store(tmp_path))
    rep = load_report(frame)
    assert {r["run_id"] for r in rep.runs} == {
        "sim-data-deepcoder-s0",
        "sim-data-microcoder-s0",
        "no-card",
        "verl-run",
    }
    assert set(rep.partial_runs()) == {"sim-data-deepcoder-s0", "no-card"}
    problems = " | ".join(f"{i.run_id}: {i.problem}" for i in rep.issues)
    assert "no-card: run_card.json unreadable" in problems
    assert "no-card: line 2 is not JSON" in problems
    assert "no-card: 1 rows without a trainer step" in problems
    assert "verl-run: evals.jsonl missing" in problems
    assert "sim-data-deepcoder-s0: status is 'running'" in problems
    broken = frame[frame["run_id"] == "no-card"]
    assert broken["sweep"].unique().tolist() == ["data"]


def test_verl_names_in_metrics_jsonl_are_mapped(tmp_path: Path) -> None:
    frame = load(_store(tmp_path))
    verl = frame[frame["run_id"] == "verl-run"]
    assert set(verl["metric"]) == {"reward", "completions/clipped_ratio"}


def test_config_option_names_become_arm_values(tmp_path: Path) -> None:
    """The trainer's axes are config option names; config.yaml gives the numbers the checks order by."""
    run = sim.make_run("context", "micro_extend", {}, 0)
    run.card["axes"] = {
        "context": "micro_extend",
        "batch": "micro_tb4",
        "temperature": "ramp_0.6_1.8",
        "masking": "conditional_0.1",
    }
    root = sim.write_store(tmp_path, [run])
    (root / "context" / run.card["run_id"] / "config.yaml").write_text(
        "context: {name: micro_extend, max_completion_length: 112, extend_to: 224, extend_at_step: 20}\n"
        "batch: {name: micro_tb4, train_batch: 4, mini_batch: 4}\n"
        "temperature: {name: ramp_0.6_1.8, kind: ramp, value: 0.6, stages: [[0, 0.6], [40, 1.8]]}\n"
        "masking: {name: conditional_0.1, mode: conditional, rho: 0.1}\n"
    )
    row = load(root).iloc[0]
    assert (row["context"], row["batch"], row["temperature"], row["masking"]) == (
        "112->224@20",
        "4",
        "0.6~1.8",
        "conditional_0.1",
    )
    assert row["arm"] == ar.Arm("context", "micro_extend", ar.STAGED, 112, ar.Schedule(ar.STAGED, 112, 224, 20))
    assert ar.arm_of("temperature", "ramp_0.6_1.8").schedule == ar.Schedule(ar.RAMP, 0.6, 1.8)
    assert ar.arm_of("masking", "conditional_0.1").value == 0.1 and ar.arm_of("masking", "conditional").value is None


def test_missing_source_is_reported(tmp_path: Path) -> None:
    frame = load(tmp_path / "nowhere")
    assert frame.empty and list(frame.columns) == list(TIDY_COLUMNS)
    assert load_report(frame).issues[0].problem == "source does not exist"


def test_samples_keep_eval_temperature_apart_from_the_axis(tmp_path: Path) -> None:
    root = sim.write_store(tmp_path, sim.make_sweep("temperature", {"1.2": {}}, (0,)))
    samples = load_samples(root)
    assert set(samples["temperature"]) == {"1.2"}
    assert set(samples["eval_temperature"]) == set(sim.TEMPS)
    assert isinstance(samples, pd.DataFrame) and samples["passed"].dtype == bool


def test_name_map_round_trips() -> None:
    assert canonical("train/completions/mean_length") == "completions/mean_length"
    assert canonical("val-core/livecodebench/acc/mean@4") == "eval/pass@1"
    assert canonical("actor/pg_clipfrac") == "clip_ratio/region_mean"
    assert to_verl("reward") == "critic/score/mean"
    assert canonical(to_verl("completions/clipped_ratio")) == "completions/clipped_ratio"
    assert canonical("diversity/group_4gram") == "diversity/group_4gram"
