"""`GRPOConfig` builds, through mcsweep's own `grpo_args`, for every scale x rollout x model config
with the installed TRL/transformers/accelerate, so a renamed keyword (transformers 5.18's
`activation_checkpointing` for 5.17's `gradient_checkpointing`) fails here, not on a cluster.

On the CPU `grpo_args` takes its CPU branch for `bf16`/`use_cpu` (values, not keyword names), and
GRPOConfig checks no vLLM install or GPU when `use_vllm=True` (TRL does that when the trainer
builds its engine, which `require_rollout_backend` guards); every keyword is still passed.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from mcsweep.gpu.__main__ import compose_run_config
from mcsweep.gpu.batching import batch_layout
from mcsweep.gpu.layout import max_model_len
from mcsweep.train.run import grpo_args
from mcsweep.train.run_store import RunStore

CONF = Path(__file__).resolve().parents[2] / "conf"


def _options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF / group).glob("*.yaml"))


MATRIX = list(itertools.product(_options("scale"), _options("rollout"), _options("model")))


def test_the_matrix_covers_every_config_file() -> None:
    assert len(MATRIX) == len(_options("scale")) * len(_options("rollout")) * len(_options("model")) >= 2 * 3 * 5


@pytest.mark.parametrize(("scale", "rollout", "model"), MATRIX)
def test_grpo_config_builds(tmp_path: Path, scale: str, rollout: str, model: str) -> None:
    cfg = compose_run_config([f"scale={scale}", f"rollout={rollout}", f"model={model}"])
    args = grpo_args(cfg, RunStore(tmp_path), cfg.temperature.value)
    layout = batch_layout(cfg.batch, 1, cfg.train.micro_batch)
    assert args.per_device_train_batch_size == layout.per_device_train_batch_size
    assert args.gradient_accumulation_steps == layout.gradient_accumulation_steps
    assert args.gradient_checkpointing is cfg.train.gradient_checkpointing
    assert args.max_completion_length == cfg.context.max_completion_length
    assert args.use_vllm is (cfg.rollout.backend == "vllm")
    if args.use_vllm:
        assert args.vllm_mode == cfg.rollout.vllm_mode
        assert args.vllm_max_model_length == max_model_len(cfg)
        assert args.vllm_server_port == cfg.rollout.server_port
