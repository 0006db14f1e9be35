"""Each algorithm preset runs for real (tiny policy) and its knobs show in the logged metrics."""

from __future__ import annotations

import pytest

from mcsweep.train.run import train
from mcsweep.train.run_store import RunStore

SHORT = [
    "train.steps=4",
    "train.eval_at_start=false",
    "train.eval_every=100",
    "batch.train_batch=4",
    "batch.mini_batch=2",
    "batch.group_size=4",
    "context.max_completion_length=24",
    "context.eval_lengths=[24]",
    "context.repeat_window=4",
]


def _metrics(tiny_run, overrides):
    cfg, raw = tiny_run([*SHORT, *overrides])
    return RunStore(train(cfg, raw)["run_dir"]).read("metrics").set_index("step")


def test_grpo_logs_kl_and_symmetric_clip(tiny_run):
    m = _metrics(tiny_run, ["algo=grpo"])
    assert "kl" in m.columns and (m["kl"].dropna() >= 0).all()  # TRL computes it only when beta > 0
    assert {"clip_ratio/low_mean", "clip_ratio/high_mean"} <= set(m.columns)
    assert (m["mask/masked_frac"].dropna() == 0).all()
    assert (m["rollout/updates_per_rollout"].dropna() == 2).all()


def test_dapo_adds_overlong_shaping_and_no_kl(tiny_run):
    # The tiny policy's answers fill its short length, so DAPO's start check (fail in the preset) would stop it.
    m = _metrics(tiny_run, ["algo=dapo", "algo.overlong_start_check=warn"])
    assert "kl" not in m.columns
    assert any(c.startswith("rewards/_SoftOverlongPunishment") or "overlong" in c.lower() for c in m.columns)


@pytest.mark.parametrize(("masking", "expect_masked"), [("all", True), ("none", False)])
def test_microcoder_grpo_masking_knob_acts(tiny_run, masking, expect_masked):
    m = _metrics(tiny_run, ["algo=microcoder_grpo", f"masking={masking}"])
    assert m["mask/truncated"].dropna().gt(0).all()
    assert m["mask/masked"].dropna().gt(0).any() == expect_masked
