"""The fast sampler reads each layer's weights directly, so it cannot run where ZeRO-3 or FSDP shard
them: such a run is refused when the trainer is built, naming the key (on a GPU it failed at the first
rollout, in a matrix product with ZeRO-3's empty placeholder weights or FSDP's DTensors)."""

from __future__ import annotations

import pytest
from trainer_build import direct_trainer
from trl.distributed import DistributedBackend

from mcsweep.config.schema import ConfigError
from mcsweep.config.validate import shards_weights
from mcsweep.gpu.__main__ import compose_run_config
from mcsweep.train.reward import ExecutionReward
from mcsweep.train.trainer import MaskSettings, MicroCoderGRPOTrainer


def _build(tiny_run, tmp_path, sampler: str) -> MicroCoderGRPOTrainer:
    cfg, _ = tiny_run(["batch.train_batch=2", "batch.mini_batch=2", "batch.group_size=2"])
    reward = ExecutionReward(evaluator=None)
    mask = MaskSettings("none", 0.0, "no_answer", 4, seed=0)
    return direct_trainer(cfg, tmp_path / "run", reward, mask, sampler=sampler)


@pytest.mark.parametrize("sharding", ["zero_stage", "fsdp_version"])
def test_the_fast_sampler_is_refused_where_weights_are_sharded(tiny_run, tmp_path, monkeypatch, sharding):
    value = {"zero_stage": 3, "fsdp_version": 2}[sharding]
    original = DistributedBackend.__init__

    def sharded(self, accelerator):
        original(self, accelerator)
        setattr(self, sharding, value)

    monkeypatch.setattr(DistributedBackend, "__init__", sharded)
    with pytest.raises(ValueError, match=r"rollout\.sampler=hf_generate"):
        _build(tiny_run, tmp_path, "fast")
    assert _build(tiny_run, tmp_path, "hf_generate").sampler == "hf_generate"


def test_the_fast_sampler_runs_with_whole_weights(tiny_run, tmp_path):
    assert _build(tiny_run, tmp_path, "fast").sampler == "fast"


@pytest.mark.parametrize("accelerate", ["zero3", "fsdp"])
def test_the_fast_sampler_is_refused_before_launch_where_the_point_shards_weights(accelerate):
    fast = ["scale=paper", "rollout=hf", "rollout.sampler=fast"]
    with pytest.raises(ConfigError, match=r"rollout\.sampler: fast needs each process to hold whole weights"):
        compose_run_config([*fast, f"accelerate={accelerate}"])
    compose_run_config([*fast, "accelerate=zero2"])
    # paper scale samples with HF generate, rollout=hf included
    assert (
        compose_run_config(["scale=paper", "rollout=hf", f"accelerate={accelerate}"]).rollout.sampler == "hf_generate"
    )


def test_a_deepspeed_config_given_as_a_file_or_null_is_no_crash():
    """ZeRO-3 named in a `deepspeed_config_file` is left to the trainer's check; a null config is none."""
    assert shards_weights({"distributed_type": "DEEPSPEED", "deepspeed_config": None}) is None
    zero3 = {"distributed_type": "DEEPSPEED", "deepspeed_config": {"zero_stage": 3}}
    assert shards_weights(zero3) == "DeepSpeed ZeRO-3"
