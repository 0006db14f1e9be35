"""The memory estimate against hand-computed numbers, and its warning when a config cannot fit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transformers import Qwen3Config, Qwen3ForCausalLM

from mcsweep.config.schema import (
    BatchConfig,
    ContextConfig,
    KLClipConfig,
    MicroPolicyConfig,
    ModelConfig,
    RolloutConfig,
    RunConfig,
    TrainConfig,
)
from mcsweep.gpu.memory import (
    GIB,
    KNOWN_SHAPES,
    ModelShape,
    check_fits,
    launch_strategy,
    model_shape,
    shape_from_config_json,
)

# Qwen3-1.7B by hand: h 2048, 16 heads x 128 (q 2048), 8 KV heads (kv 1024), intermediate 6144.
# layer = 2*2048*2048 + 2*2048*1024 + 2*128 + 3*2048*6144 + 2*2048 = 50,336,000
# 28 layers + tied embeddings 151936*2048 + final norm 2048 = 1,720,574,976
P_1_7B = 1_720_574_976


def run_config(**kw) -> RunConfig:
    """Qwen3-1.7B bf16, one micro-batch of 1 x (1024 prompt + 3072 completion) = 4096 tokens."""
    return RunConfig(
        model=ModelConfig(name="qwen3_1.7b", kind="hf", path="Qwen/Qwen3-1.7B", dtype="bfloat16"),
        context=ContextConfig(
            max_completion_length=3072, eval_lengths=[3072], repeat_window=128, max_prompt_length=1024
        ),
        batch=BatchConfig(train_batch=64, mini_batch=16, group_size=8),
        rollout=kw.pop("rollout", RolloutConfig()),
        kl_clip=kw.pop("kl_clip", KLClipConfig()),
        train=kw.pop("train", TrainConfig(eval_prompts_per_batch=1)),  # an evaluation that fits beside it
        **kw,
    )


def test_published_parameter_counts():
    assert KNOWN_SHAPES["Qwen/Qwen3-1.7B"].n_params == P_1_7B
    # 4B: layer 2*2560*4096 + 2*2560*1024 + 256 + 3*2560*9728 + 2*2560 = 100,930,816; x36 + 151936*2560 + 2560
    assert KNOWN_SHAPES["Qwen/Qwen3-4B-Instruct-2507"].n_params == 4_022_468_096
    # 8B: layer 192,946,432; x36 + untied 2*151936*4096 + 4096
    assert KNOWN_SHAPES["Qwen/Qwen3-8B"].n_params == 8_190_735_360


@pytest.mark.parametrize("tied", [True, False])
def test_parameter_formula_matches_transformers(tied):
    config = Qwen3Config(
        vocab_size=97,
        hidden_size=48,
        intermediate_size=80,
        num_hidden_layers=3,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        tie_word_embeddings=tied,
    )
    model = Qwen3ForCausalLM(config)
    real = sum(p.numel() for p in model.parameters())
    assert shape_from_config_json(config.to_dict()).n_params == real


def test_shape_from_a_local_folder(tmp_path):
    config = {
        "vocab_size": 151936,
        "hidden_size": 2048,
        "intermediate_size": 6144,
        "num_hidden_layers": 28,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "tie_word_embeddings": True,
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    cfg = RunConfig(model=ModelConfig(name="local", kind="hf", path=str(tmp_path), dtype="bfloat16"))
    assert model_shape(cfg) == KNOWN_SHAPES["Qwen/Qwen3-1.7B"]


def test_unknown_model_names_the_key():
    cfg = RunConfig(model=ModelConfig(name="x", kind="hf", path="nobody/no-such-model-here", dtype="bfloat16"))
    with pytest.raises(ValueError, match=r"model.path='nobody/no-such-model-here'"):
        model_shape(cfg)


def test_micro_policy_shape_is_the_built_one():
    cfg = RunConfig(model=ModelConfig(micro=MicroPolicyConfig(hidden_size=64, intermediate_size=128, num_layers=2)))
    shape = model_shape(cfg)
    assert (shape.hidden_size, shape.num_layers, shape.head_dim, shape.vocab_size) == (64, 2, 16, 600)


def test_one_gpu_by_hand():
    e = check_fits(run_config(), 1, 40, micro_batch=1)
    assert e.parts["weights"] == e.parts["gradients"] == 2 * P_1_7B
    assert e.parts["optimizer"] == 12 * P_1_7B  # fp32 m, v and master copy
    # per token: 28 layers x (4*2048 + 3*2048 + 3*1024 + 4*6144 = 41,984) + final norm 2*2048, in bf16
    assert e.parts["activations"] == 4096 * (28 * 41_984 + 4096) * 2 == 9_663_676_416
    assert e.parts["overhead"] == 2 * GIB
    assert "reference" not in e.parts
    assert e.total_bytes == 39_340_359_680  # 36.6 GiB
    assert e.fits and not e.warning


def test_warns_when_it_cannot_fit():
    e = check_fits(run_config(), 1, 32, micro_batch=1)
    assert not e.fits
    assert "qwen3_1.7b does not fit" in e.warning and "36.6 GiB" in e.warning and "32.0 GiB" in e.warning
    assert "zero3" in e.warning


def test_default_micro_batch_is_what_grpo_args_uses():
    e = check_fits(run_config(), 1, 141)
    assert e.micro_batch == 16 * 8
    assert not e.fits and "gradient checkpointing" in e.warning


def test_gradient_checkpointing_keeps_layer_inputs_only():
    e = check_fits(run_config(), 1, 40, micro_batch=1, gradient_checkpointing=True)
    # 28 layer inputs (2048 each) + one recomputed layer (41,984) + final norm (4096), bf16
    assert e.parts["activations"] == 4096 * (28 * 2048 + 41_984 + 4096) * 2


@pytest.mark.parametrize(("strategy", "weights_div", "states_div"), [("zero2", 1, 8), ("zero3", 8, 8), ("fsdp", 8, 8)])
def test_sharding(strategy, weights_div, states_div):
    e = check_fits(
        run_config(kl_clip=KLClipConfig(beta=0.04, epsilon=0.2, epsilon_high=0.2)),
        8,
        80,
        strategy=strategy,
        micro_batch=1,
    )
    assert e.parts["weights"] == 2 * P_1_7B // weights_div
    assert e.parts["reference"] == 2 * P_1_7B // weights_div
    assert e.parts["gradients"] == 2 * P_1_7B // states_div
    assert e.parts["optimizer"] == 12 * P_1_7B // states_div


def test_fp32_weights_have_no_separate_master_copy():
    cfg = run_config()
    cfg.model.dtype = "float32"
    e = check_fits(cfg, 1, 80, micro_batch=1)
    assert e.parts["weights"] == 4 * P_1_7B and e.parts["optimizer"] == 8 * P_1_7B


def test_colocated_vllm_takes_its_share_and_must_hold_the_model():
    rollout = RolloutConfig(name="vllm_colocate", backend="vllm", vllm_mode="colocate", gpu_memory_utilization=0.25)
    e = check_fits(run_config(rollout=rollout), 1, 80, micro_batch=1)
    assert e.available_bytes == 80 * GIB - int(0.25 * 80 * GIB)
    # bf16 weights + K and V of 28 layers x 8 heads x 128 for 4096 tokens
    assert e.vllm_need_bytes == 2 * P_1_7B + 4096 * 2 * 28 * 8 * 128 * 2
    assert e.fits
    starved = RolloutConfig(name="vllm_colocate", backend="vllm", vllm_mode="colocate", gpu_memory_utilization=0.04)
    e = check_fits(run_config(rollout=starved), 1, 80, micro_batch=1)
    assert "vLLM (colocate) needs ~3.6 GiB" in e.warning and "gpu_memory_utilization=0.04" in e.warning


def test_server_mode_leaves_the_trainer_gpu_whole():
    rollout = RolloutConfig(name="vllm_server", backend="vllm", vllm_mode="server", gpu_memory_utilization=0.9)
    e = check_fits(run_config(rollout=rollout), 1, 80, micro_batch=1)
    assert e.available_bytes == 80 * GIB and e.vllm_share_bytes == int(0.9 * 80 * GIB)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="strategy"):
        check_fits(run_config(), 2, 80, strategy="zero9")
    with pytest.raises(ValueError, match="gpus"):
        check_fits(run_config(), 0, 80)


def test_shape_kv_bytes():
    shape = ModelShape(100, 64, 128, 2, 4, 2, 16, True)
    assert shape.kv_bytes_per_token() == 2 * 2 * 2 * 16 * 2


@pytest.mark.parametrize(
    ("env", "strategy"),
    [
        ({}, "none"),
        ({"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_DEEPSPEED_ZERO_STAGE": "2"}, "zero2"),
        ({"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_DEEPSPEED_ZERO_STAGE": "3"}, "zero3"),
        ({"ACCELERATE_USE_FSDP": "true"}, "fsdp"),
    ],
)
def test_launch_strategy_from_accelerate_variables(env, strategy):
    assert launch_strategy(env) == strategy


def test_the_evaluation_peak_by_hand():
    """Between steps HF generate keeps the KV cache of one evaluation batch's rows at the longest
    evaluation length, beside the training state (not its activations) and the weights whole."""
    cfg = run_config()
    e = check_fits(cfg, 1, 80, micro_batch=1)
    rows = cfg.train.eval_prompts_per_batch * cfg.train.eval_samples
    kv_per_token = 2 * 28 * 8 * 128 * 2  # K and V, 28 layers, 8 KV heads x 128, bf16
    state = e.parts["gradients"] + e.parts["optimizer"] + e.parts["overhead"] + 2 * P_1_7B
    assert e.eval_bytes == state + rows * (1024 + 3072) * kv_per_token


def test_the_paper_scale_evaluation_fits_and_a_larger_batch_is_named():
    """At 16 test prompts per generate call (the micro default) the paper run's first evaluation would
    run out of memory on an 80 GiB GPU beside colocated vLLM; the paper scale sets 2."""
    from hydra import compose, initialize_config_dir

    from mcsweep.config.validate import validate_config

    conf = str(Path(__file__).resolve().parents[2] / "conf")
    for overrides, fits in (([], True), (["train.eval_prompts_per_batch=16"], False)):
        with initialize_config_dir(conf, version_base="1.3"):
            cfg = validate_config(compose("config", overrides=["scale=paper", *overrides]))
        e = check_fits(cfg, 8, 80, strategy="zero3")
        assert e.fits == fits, e.warning
        assert fits or "lower train.eval_prompts_per_batch" in e.warning
