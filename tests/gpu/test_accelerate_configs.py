"""conf/accelerate/*.yaml parse the way `accelerate launch --config_file` reads them, with no unknown key."""

from __future__ import annotations

from pathlib import Path

import pytest
import transformers.models.qwen3.modeling_qwen3 as qwen3
import yaml
from accelerate.commands.config.config_args import ClusterConfig
from accelerate.commands.launch import _validate_launch_command, launch_command_parser
from accelerate.utils.launch import prepare_deepspeed_cmd_env, prepare_multi_gpu_env

from mcsweep.gpu.memory import launch_strategy

CONFIGS = Path(__file__).resolve().parents[2] / "conf" / "accelerate"


def launch_args(name: str):
    """What accelerate launch resolves from the file (its own parser and validation)."""
    parser = launch_command_parser()
    args = parser.parse_args(["--config_file", str(CONFIGS / f"{name}.yaml"), "train.py"])
    _validate_launch_command(args)
    return parser, args


@pytest.mark.parametrize("name", ["zero2", "zero3", "fsdp"])
def test_every_key_is_known_to_accelerate(name):
    ClusterConfig.from_yaml_file(CONFIGS / f"{name}.yaml")  # raises on unknown top-level keys
    parser, args = launch_args(name)
    known = {action.dest for action in parser._actions}
    raw = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text())
    nested = {**raw.get("deepspeed_config", {}), **raw.get("fsdp_config", {})}
    assert set(nested) <= known, f"unknown to accelerate launch: {sorted(set(nested) - known)}"
    assert args.mixed_precision == "bf16"


@pytest.mark.parametrize(("name", "stage"), [("zero2", 2), ("zero3", 3)])
def test_deepspeed_stages(name, stage):
    _, args = launch_args(name)
    assert args.use_deepspeed and not args.use_fsdp
    assert int(args.zero_stage) == stage


def test_fsdp_wraps_qwen3_decoder_layers():
    _, args = launch_args("fsdp")
    assert args.use_fsdp and not args.use_deepspeed and int(args.fsdp_version) == 2
    assert hasattr(qwen3, args.fsdp_transformer_layer_cls_to_wrap)


@pytest.mark.parametrize("name", ["zero2", "zero3", "fsdp"])
def test_the_estimate_reads_the_strategy_accelerate_exports(name):
    """The variables accelerate's own launcher sets for each file map back to the file's strategy."""
    _, args = launch_args(name)
    if args.use_deepspeed:
        raw = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text())
        args.deepspeed_fields_from_accelerate_config = ",".join(raw["deepspeed_config"])
        env = prepare_deepspeed_cmd_env(args)[1]
    else:
        env = prepare_multi_gpu_env(args)
    assert launch_strategy(env) == name
    assert env["ACCELERATE_MIXED_PRECISION"] == "bf16"
