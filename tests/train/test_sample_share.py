"""Step-0 test samples shared between runs: read back only for the same weights and sampling settings,
and the rows graded from them equal the rows of a run that drew its own."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest
import torch

import mcsweep.train.evaluation as evaluation
from mcsweep.train import data
from mcsweep.train.eval_split import evaluate_split
from mcsweep.train.evaluation import EvalSettings
from mcsweep.train.run import load_policy, make_evaluator, policy_spec, train
from mcsweep.train.run_store import RunStore

SETTINGS = EvalSettings(2, 1.0, (24, 32), prompts_per_batch=2, seed=3, sampler="fast")


@pytest.fixture
def setup(tiny_run):
    from accelerate import Accelerator

    cfg, _ = tiny_run(["evaluator.workers=1"])
    model, tokenizer = load_policy(cfg)
    problems = data.test_problems(cfg.data, policy_spec(cfg).world)[:4]
    evaluator = make_evaluator(cfg, shadow=True)
    yield model, tokenizer, Accelerator(cpu=True), problems, evaluator
    evaluator.close()


def _no_sampling(*args, **kwargs):
    raise AssertionError("sampled although the shared samples were there")


def test_shared_samples_give_the_rows_a_run_draws_itself(setup, tmp_path, monkeypatch):
    model, tokenizer, acc, problems, evaluator = setup
    own = evaluate_split(model, tokenizer, acc, problems, evaluator, SETTINGS, 0)
    first = evaluate_split(model, tokenizer, acc, problems, evaluator, SETTINGS, 0, share_root=tmp_path)
    assert first == own
    assert len(list(tmp_path.glob("*.json"))) == 2  # one file per batch of 2 problems
    monkeypatch.setattr(evaluation, "_generate", _no_sampling)
    second = evaluate_split(model, tokenizer, acc, problems, evaluator, SETTINGS, 0, share_root=tmp_path)
    assert second == own


@pytest.mark.parametrize(
    "change", ["weights", "temperature", "seed", "samples", "longest length", "problems", "threads"]
)
def test_other_weights_or_settings_draw_their_own(setup, tmp_path, monkeypatch, change):
    model, tokenizer, acc, problems, evaluator = setup
    evaluate_split(model, tokenizer, acc, problems, evaluator, SETTINGS, 0, share_root=tmp_path)
    s = SETTINGS
    if change == "weights":
        with torch.no_grad():
            next(model.parameters()).view(-1)[0] += 1e-3
    elif change == "problems":
        problems = [{**p, "question": p["question"] + " "} for p in problems]
    elif change == "threads":
        monkeypatch.setattr(torch, "get_num_threads", lambda: 7)
    else:
        field, value = {"temperature": ("temperature", 0.9), "seed": ("seed", 4), "samples": ("samples", 3)}.get(
            change, ("lengths", (24, 40))
        )
        s = dataclasses.replace(SETTINGS, **{field: value})
    monkeypatch.setattr(evaluation, "_generate", _no_sampling)
    with pytest.raises(AssertionError, match="sampled although"):
        evaluate_split(model, tokenizer, acc, problems, evaluator, s, 0, share_root=tmp_path)


def _files(root):
    return {f.name: (f.stat().st_ino, f.stat().st_mtime_ns) for f in root.glob("*.json")}


def test_two_arms_of_a_seed_share_their_step_0_samples_only(tiny_run):
    """The second arm's step-0 samples are the first's (read back, not drawn: no new file), its
    later evaluations its own; without the launcher flag nothing is shared."""
    common = ["train.steps=2", "train.eval_every=2", "train.save_every=100", "launcher.share_eval_samples=true"]
    cfg, raw = tiny_run([*common, "masking=none"])
    first = RunStore(train(cfg, raw)["run_dir"]).path
    shared = first.parent.parent / ".eval_samples"
    files = _files(shared)
    assert len(files) == math.ceil(cfg.data.n_test / cfg.train.eval_prompts_per_batch)  # step 0's batches only
    cfg, raw = tiny_run([*common, "masking=all"])
    second = RunStore(train(cfg, raw)["run_dir"]).path
    assert second != first and _files(shared) == files  # read, not written again

    def ids(run, step):
        rows = pd.read_json(run / "eval_samples.jsonl", lines=True)
        return rows[rows["step"] == step]["ids"].tolist()

    assert ids(second, 0) == ids(first, 0)
    cfg, raw = tiny_run(["train.steps=2", "train.eval_every=2", "train.save_every=100", "masking=conditional"])
    assert cfg.launcher.share_eval_samples is False
    third = RunStore(train(cfg, raw)["run_dir"]).path
    assert _files(shared) == files and ids(third, 0) == ids(first, 0)
