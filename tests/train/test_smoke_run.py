"""A real two-step GRPO run on the tiny micro policy writes a complete run folder."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from mcsweep.train.run import train
from mcsweep.train.run_store import RunStore


def test_two_step_run_writes_a_complete_run_folder(tiny_run):
    cfg, raw = tiny_run(["train.steps=2", "train.eval_every=2", "train.save_every=1", "tracker=wandb"])
    summary = train(cfg, raw)
    store = RunStore(summary["run_dir"])
    names = {p.name for p in store.path.iterdir()}
    assert {
        "config.yaml",
        "run_card.json",
        "metrics.jsonl",
        "evals.jsonl",
        "eval_samples.jsonl",
        "completions.jsonl",
        "checkpoints",
        "wandb",
    } <= names
    card = json.loads((store.path / "run_card.json").read_text())
    assert card["status"] == "finished" and card["seed"] == 0
    assert set(card["versions"]) == {"mcsweep", "trl", "torch", "transformers"}
    assert card["axes"]["masking"] == "conditional" and card["run_id"] == store.path.name

    metrics = pd.read_json(store.path / "metrics.jsonl", lines=True)
    assert metrics["step"].tolist() == [0, 1, 2]
    for col in (
        "reward",
        "completions/mean_length",
        "completions/clipped_ratio",
        "entropy",
        "diversity/group_4gram",
        "diversity/per_sample_4gram",
        "mask/masked_token_frac",
        "mask/repetitive_any_period",
        "mask/masked_frac",
        "temperature",
        "time/generation_s",
        "time/reward_s",
        "time/update_s",
        "clip_ratio/high_mean",
        "eval/pass@1",
        "eval/pass@1_ext",
        "reward/duplicate_share",
    ):
        assert col in metrics.columns, col
    sampled = metrics["temperature"].dropna()
    assert cfg.temperature.unit != 1.0 and sampled.tolist() == pytest.approx([0.45] * len(sampled))
    evals = store.read("evals")
    # the training length, the sweep's common length (context.common_eval_length) and eval_lengths
    assert sorted(evals["max_length"].unique()) == [160, 224, 256] and evals["step"].tolist() == [0] * 3 + [2] * 3
    assert evals.groupby("step")[["train_length", "common_length"]].sum().eq(1).all().all()
    assert evals.loc[evals["common_length"], "max_length"].eq(224).all()
    samples = store.read("eval_samples")
    assert len(samples) == 2 * 3 * 4 * 2  # evaluations x lengths x problems x samples
    assert (store.path / "checkpoints" / "checkpoint-2").is_dir()


def test_finished_run_is_not_rerun(tiny_run):
    cfg, raw = tiny_run(["train.steps=1", "train.eval_every=1", "train.eval_at_start=false"])
    first = train(cfg, raw)
    mtime = (RunStore(first["run_dir"]).path / "metrics.jsonl").stat().st_mtime
    assert train(cfg, raw)["run_dir"] == first["run_dir"]
    assert (RunStore(first["run_dir"]).path / "metrics.jsonl").stat().st_mtime == mtime


def test_temperature_eval_over_checkpoints_resumes(tiny_run):
    from mcsweep.train.temperature_eval import evaluate_at_temperatures

    cfg, raw = tiny_run(
        [
            "train.steps=2",
            "train.eval_every=100",
            "train.eval_at_start=false",
            "train.save_every=1",
            "context.max_completion_length=16",
            "context.eval_lengths=[16]",
            "context.repeat_window=4",
        ]
    )
    run_dir = RunStore(train(cfg, raw)["run_dir"]).path
    assert evaluate_at_temperatures(run_dir, [0.5, 2.0], steps=[0, 2], samples=2) == 4
    assert evaluate_at_temperatures(run_dir, [0.5, 2.0], steps=[0, 2], samples=2) == 0
    rows = pd.read_json(run_dir / "eval_samples.jsonl", lines=True)
    extra = rows[rows["temperature"].isin([0.5, 2.0])]
    assert sorted(extra.groupby(["step", "temperature"]).size().index) == [(0, 0.5), (0, 2.0), (2, 0.5), (2, 2.0)]
    assert (extra.groupby(["step", "temperature"]).size() == 4 * 2).all()  # 4 problems x 2 samples


def test_in_run_robustness_evals_match_the_checkpoint_command(tiny_run):
    """train.robustness_temperatures evaluates step 0 and every checkpoint step in the run, with the
    rows `temperature_eval` writes, so the analysis tells them from the regular evaluation."""
    from mcsweep.analysis.load import LoadReport, evaluation_kind
    from mcsweep.train.temperature_eval import evaluate_at_temperatures

    cfg, raw = tiny_run(
        [
            "train.steps=2",
            "train.eval_every=100",
            "train.eval_at_start=false",
            "train.save_every=2",
            "train.robustness_temperatures=[0.5,2.0]",
            "train.robustness_samples=2",
            "train.eval_prompts_per_batch=2",  # two batches, each with its own seed
            "context.max_completion_length=16",
            "context.eval_lengths=[16]",
            "context.repeat_window=4",
        ]
    )
    run_dir = RunStore(train(cfg, raw)["run_dir"]).path
    done = pd.read_json(run_dir / "temperature_evals.jsonl", lines=True)
    assert sorted(zip(done["step"], done["temperature"], strict=True)) == [(0, 0.5), (0, 2.0), (2, 0.5), (2, 2.0)]
    assert done["max_length"].eq(16).all() and done["k"].eq(2).all()
    samples = pd.read_json(run_dir / "eval_samples.jsonl", lines=True)
    kinds = evaluation_kind(samples.rename(columns={"temperature": "eval_temperature"}), run_dir, "r", LoadReport())
    extra = samples[[k == "temperatures" for k in kinds]]
    assert (extra.groupby(["step", "temperature"]).size() == 4 * 2).all()  # 4 problems x 2 samples
    # the checkpoint command finds these pairs done
    assert evaluate_at_temperatures(run_dir, [0.5, 2.0], steps=[0, 2], samples=2) == 0
    # and, asked again from the checkpoints, draws the very same samples (settings, batches and seeds)
    again = run_dir.parent / "again"
    shutil.copytree(run_dir, again)
    (again / "temperature_evals.jsonl").unlink()
    keep = samples[[k != "temperatures" for k in kinds]]
    keep.to_json(again / "eval_samples.jsonl", orient="records", lines=True)
    assert evaluate_at_temperatures(again, [0.5, 2.0], steps=[0, 2]) == 4
    redone = pd.read_json(again / "eval_samples.jsonl", lines=True).iloc[len(keep) :]

    def key(frame):
        columns = (frame["step"], frame["temperature"], frame["problem_id"], frame["sample"], map(tuple, frame["ids"]))
        return sorted(zip(*columns, strict=True))

    assert key(redone) == key(extra)


def test_resume_drops_robustness_rows_past_the_checkpoint(tmp_path):
    store = RunStore(tmp_path).create()
    store.append("temperature_evals", [{"step": 0, "temperature": 0.5}, {"step": 4, "temperature": 0.5}])
    store.truncate_after(2)
    assert store.rows("temperature_evals") == [{"step": 0, "temperature": 0.5}]


def test_a_checkpoint_without_model_weights_is_named(tmp_path):
    """FSDP's sharded checkpoints hold no HF weights; from_pretrained's error did not say why."""
    from mcsweep.config.schema import RunConfig
    from mcsweep.train.temperature_eval import load_checkpoint

    (tmp_path / "pytorch_model_fsdp_0").mkdir()
    with pytest.raises(SystemExit, match="accelerate merge-weights"):
        load_checkpoint(RunConfig(), tmp_path, "cpu")
