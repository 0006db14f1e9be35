"""What the vLLM rollouts hand TRL, up to the engine call (vLLM itself cannot run here; see docs/gpu.md,
"vLLM on the CPU"). TRL's importance-sampling correction is set by the rollout config, off unless
asked for (TRL 1.16 turns it on by default, which reweights the loss the HF path does not)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from mcsweep.config.schema import ConfigError
from mcsweep.config.validate import validate_config
from mcsweep.gpu.layout import max_model_len
from mcsweep.train.run import grpo_args
from mcsweep.train.run_store import RunStore

CONF = str(Path(__file__).resolve().parents[2] / "conf")


def args_for(tmp_path: Path, *overrides: str):
    with initialize_config_dir(CONF, version_base="1.3"):
        cfg = validate_config(compose("config", overrides=["model=micro_tiny", *overrides]))
    return grpo_args(cfg, RunStore(tmp_path, writer=False), 1.0)


@pytest.mark.parametrize("rollout", ["vllm_colocate", "vllm_server"])
def test_the_correction_is_off_by_default_on_the_vllm_paths(tmp_path, rollout):
    args = args_for(tmp_path, f"rollout={rollout}")
    assert args.use_vllm and args.vllm_importance_sampling_correction is False


@pytest.mark.parametrize(("rollout", "mode"), [("vllm_colocate", "colocate"), ("vllm_server", "server")])
def test_the_engine_settings_reach_grpo_config(tmp_path, rollout, mode):
    args = args_for(tmp_path, f"rollout={rollout}", "rollout.gpu_memory_utilization=0.25")
    assert (args.vllm_mode, args.vllm_gpu_memory_utilization, args.vllm_tensor_parallel_size) == (mode, 0.25, 1)
    with initialize_config_dir(CONF, version_base="1.3"):
        cfg = validate_config(compose("config", overrides=["model=micro_tiny", f"rollout={rollout}"]))
    assert args.vllm_max_model_length == max_model_len(cfg)
    assert args.max_completion_length == cfg.context.max_completion_length


def test_each_importance_sampling_key_reaches_grpo_config(tmp_path):
    args = args_for(
        tmp_path,
        "rollout=vllm_colocate",
        "rollout.importance_sampling_correction=true",
        "rollout.importance_sampling_mode=token_truncate",
        "rollout.importance_sampling_clip_max=2.0",
        "rollout.importance_sampling_clip_min=0.5",
    )
    assert args.vllm_importance_sampling_correction is True
    assert args.vllm_importance_sampling_mode == "token_truncate"
    assert (args.vllm_importance_sampling_clip_min, args.vllm_importance_sampling_clip_max) == (0.5, 2.0)


def test_an_unknown_mode_names_the_key():
    with initialize_config_dir(CONF, version_base="1.3"):
        raw = compose("config", overrides=["rollout=vllm_colocate", "rollout.importance_sampling_mode=bogus"])
    with pytest.raises(ConfigError, match=r"rollout\.importance_sampling_mode"):
        validate_config(raw)
