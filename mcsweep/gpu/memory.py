"""A pre-launch GPU memory estimate for a run config: will it fit the declared GPUs?

This is an estimate, not a measurement. It counts the large, predictable terms and a fixed
overhead, so it catches the configs that cannot fit by a wide margin (the usual mistake at 4-16K
context) rather than deciding tight cases. Per training GPU it adds:

- weights, gradients: `dtype` bytes per parameter each (bf16: 2);
- AdamW: fp32 first and second moments (8 bytes per parameter) plus an fp32 master copy (4 bytes)
  when the weights are not fp32 -- the mixed-precision layout of DeepSpeed and FSDP (16 bytes per
  parameter in all with bf16 weights, as in the ZeRO paper);
- sharding: ZeRO-2 splits gradients and optimizer states over the GPUs, ZeRO-3 and FSDP (full
  shard) split weights too; `none` (one GPU, or DDP) keeps everything whole on each GPU;
- the reference model (weights only) when `kl_clip.beta > 0`, sharded like the weights;
- activations of one micro-batch at the longest sequence (prompt + completion), in bf16 (GPU runs
  compute in bf16, from bf16 weights or from fp32 ones under autocast): the tensors the backward
  keeps, counted for a Qwen3 decoder with SDPA/flash attention (no seq x seq scores) and TRL's
  fused LM head (no batch x seq x vocab logits). With gradient checkpointing only each layer's
  input is kept, plus one layer recomputed at a time;
- a fixed 2 GiB for the CUDA context, NCCL buffers and allocator fragmentation;
- vLLM colocated: `rollout.gpu_memory_utilization` of the GPU is vLLM's (its weights and KV cache),
  and only the rest is the trainer's. In server mode vLLM runs on other GPUs; its need (weights
  over the tensor-parallel size plus the bf16 KV cache of one full-length sequence) is checked
  against its own share.
Apart, the held-out evaluation's peak (HF `generate` between steps): the training state but the
activations, the weights whole (gathered under ZeRO-3 and FSDP), and the KV cache of every row of one
evaluation batch (`train.eval_prompts_per_batch` x samples) at the longest evaluation length. At 16
prompts x 4 samples x (2K + 8K) tokens, Qwen3-4B's cache alone is ~90 GiB.
Not counted: temporary buffers inside kernels, ZeRO-3's gathered layer, CPU offload, and the
fp32 upcasts inside RMSNorm, so real peaks run higher; `benchmarks/device_check.py` prints this
estimate beside the measured peak.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mcsweep.config.schema import RunConfig
from mcsweep.gpu.batching import batch_layout

GIB = 1024**3
OVERHEAD_BYTES = 2 * GIB
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
ACTIVATION_BYTES = 2
STRATEGIES = ("none", "zero2", "zero3", "fsdp")


@dataclass(frozen=True)
class ModelShape:
    """The numbers of a Qwen3-style decoder (no biases, q/k norms) that set its memory."""

    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    tie_word_embeddings: bool

    @property
    def n_params(self) -> int:
        h, q, kv = self.hidden_size, self.num_heads * self.head_dim, self.num_kv_heads * self.head_dim
        attention = 2 * h * q + 2 * h * kv + 2 * self.head_dim  # q, o; k, v; q_norm, k_norm
        layer = attention + 3 * h * self.intermediate_size + 2 * h  # gate, up, down; two RMSNorms
        embeddings = self.vocab_size * h * (1 if self.tie_word_embeddings else 2)
        return self.num_layers * layer + embeddings + h  # + final norm

    def kv_bytes_per_token(self, dtype_bytes: int = 2) -> int:
        """K and V of every layer for one token, as vLLM's KV cache stores them."""
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * dtype_bytes

    def layer_activation_elements(self) -> int:
        """Per token, the tensors one layer's backward keeps: two norms' inputs and outputs (4h),
        q and k before their norms and after RoPE, v, and the attention output (3q + 3kv), and the
        MLP's gate, up, activation and product (4 x intermediate)."""
        q, kv = self.num_heads * self.head_dim, self.num_kv_heads * self.head_dim
        return 4 * self.hidden_size + 3 * q + 3 * kv + 4 * self.intermediate_size

    def activation_bytes_per_token(self, dtype_bytes: int, checkpointing: bool) -> int:
        """Kept activations per token of the micro-batch, all layers (plus the final norm)."""
        final_norm = 2 * self.hidden_size
        if checkpointing:
            kept = self.num_layers * self.hidden_size + self.layer_activation_elements()
        else:
            kept = self.num_layers * self.layer_activation_elements()
        return (kept + final_norm) * dtype_bytes


def _qwen3(vocab: int, hidden: int, inter: int, layers: int, heads: int, tied: bool) -> ModelShape:
    return ModelShape(vocab, hidden, inter, layers, heads, 8, 128, tied)


# Published config.json shapes, so the estimate needs no download. DeepSeek-R1-0528-Qwen3-8B is a
# fine-tune of Qwen3-8B and keeps its shape.
KNOWN_SHAPES: dict[str, ModelShape] = {
    "Qwen/Qwen3-1.7B": _qwen3(151936, 2048, 6144, 28, 16, True),
    "Qwen/Qwen3-4B": _qwen3(151936, 2560, 9728, 36, 32, True),
    "Qwen/Qwen3-4B-Instruct-2507": _qwen3(151936, 2560, 9728, 36, 32, True),
    "Qwen/Qwen3-8B": _qwen3(151936, 4096, 12288, 36, 32, False),
    "deepseek-ai/DeepSeek-R1-0528-Qwen3-8B": _qwen3(151936, 4096, 12288, 36, 32, False),
}


def shape_from_config_json(config: dict) -> ModelShape:
    """A shape from a Hugging Face config.json (Qwen3 field names)."""
    heads = config["num_attention_heads"]
    return ModelShape(
        vocab_size=config["vocab_size"],
        hidden_size=config["hidden_size"],
        intermediate_size=config["intermediate_size"],
        num_layers=config["num_hidden_layers"],
        num_heads=heads,
        num_kv_heads=config.get("num_key_value_heads", heads),
        head_dim=config.get("head_dim") or config["hidden_size"] // heads,
        tie_word_embeddings=bool(config.get("tie_word_embeddings", False)),
    )


def model_shape(cfg: RunConfig) -> ModelShape:
    """The run's model shape: a local folder's config.json, a known hub id, or the hub cache."""
    if cfg.model.kind == "micro":
        spec = cfg.model.micro.policy_spec()
        return ModelShape(
            spec.vocab_size,
            spec.hidden_size,
            spec.intermediate_size,
            spec.num_layers,
            spec.num_heads,
            spec.num_kv_heads,
            spec.hidden_size // spec.num_heads,
            True,
        )
    path = cfg.model.path
    local = Path(path) / "config.json"
    if local.is_file():
        return shape_from_config_json(json.loads(local.read_text()))
    if path in KNOWN_SHAPES:
        return KNOWN_SHAPES[path]
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(path, "config.json")
    if isinstance(cached, str):
        return shape_from_config_json(json.loads(Path(cached).read_text()))
    raise ValueError(
        f"model.path={path!r}: no config.json there, not a known shape ({sorted(KNOWN_SHAPES)}), "
        "and not in the Hugging Face cache; download its config.json or point model.path at a folder"
    )


@dataclass
class Estimate:
    """Bytes per training GPU by component; `warning` is empty when the run should fit."""

    n_params: int
    gpus: int
    strategy: str
    micro_batch: int
    seq_len: int
    available_bytes: int
    parts: dict[str, int] = field(default_factory=dict)
    vllm_share_bytes: int = 0
    vllm_need_bytes: int = 0
    eval_bytes: int = 0  # the held-out evaluation's peak (see the module's docstring)
    warning: str = ""

    @property
    def total_bytes(self) -> int:
        return sum(self.parts.values())

    @property
    def fits(self) -> bool:
        return not self.warning

    def summary(self) -> str:
        parts = ", ".join(f"{k} {v / GIB:.1f}" for k, v in self.parts.items())
        vllm = (
            f"; vLLM needs {self.vllm_need_bytes / GIB:.1f} of its {self.vllm_share_bytes / GIB:.1f} GiB"
            if self.vllm_share_bytes
            else ""
        )
        return (
            f"{self.n_params / 1e9:.2f}B params, {self.strategy} on {self.gpus} GPU(s), micro-batch "
            f"{self.micro_batch} x {self.seq_len} tokens: trainer {self.total_bytes / GIB:.1f} GiB per GPU "
            f"of {self.available_bytes / GIB:.1f} GiB ({parts}){vllm}; evaluation {self.eval_bytes / GIB:.1f} GiB"
        )


def _training_parts(
    shape: ModelShape, dtype_bytes: int, gpus: int, strategy: str, with_ref: bool, activation_bytes: int
) -> dict[str, int]:
    p = shape.n_params
    shard_weights = gpus if strategy in ("zero3", "fsdp") else 1
    shard_states = gpus if strategy != "none" else 1
    master = 4 if dtype_bytes < 4 else 0
    parts = {
        "weights": p * dtype_bytes // shard_weights,
        "gradients": p * dtype_bytes // shard_states,
        "optimizer": p * (8 + master) // shard_states,
        "activations": activation_bytes,
        "overhead": OVERHEAD_BYTES,
    }
    if with_ref:
        parts["reference"] = p * dtype_bytes // shard_weights
    return parts


def _evaluation_bytes(cfg: RunConfig, shape: ModelShape, dtype_bytes: int, parts: dict[str, int]) -> int:
    """The evaluation's peak per GPU: the resident training state, the whole weights, and generate's bf16
    KV cache of one batch's rows at the longest evaluation length."""
    t, c = cfg.train, cfg.context
    rows = t.eval_prompts_per_batch * max(t.eval_samples, t.robustness_samples or 0)
    tokens = c.max_prompt_length + max(*c.eval_lengths, c.common_length, c.longest_training_length)
    resident = sum(v for k, v in parts.items() if k not in ("activations", "weights"))
    return resident + shape.n_params * dtype_bytes + rows * tokens * shape.kv_bytes_per_token()


def _suggestions(parts: dict[str, int], strategy: str, checkpointing: bool, micro_batch: int) -> str:
    hints = []
    if parts["activations"] > parts["weights"] and not checkpointing:
        hints.append("turn on gradient checkpointing")
    if micro_batch > 1 and parts["activations"] > parts["weights"]:
        hints.append("use a smaller per-GPU micro-batch (with gradient accumulation)")
    if strategy in ("none", "zero2"):
        hints.append("shard weights too (conf/accelerate/zero3.yaml or fsdp.yaml)")
    hints.append("or declare more GPUs")
    return "; ".join(hints)


def launch_strategy(env: Mapping[str, str] | None = None) -> str:
    """The sharding `accelerate launch` set up for this process (from the variables it exports)."""
    env = os.environ if env is None else env
    if env.get("ACCELERATE_USE_FSDP") == "true":
        return "fsdp"
    if env.get("ACCELERATE_USE_DEEPSPEED") == "true":
        return {"2": "zero2", "3": "zero3"}.get(env.get("ACCELERATE_DEEPSPEED_ZERO_STAGE", ""), "none")
    return "none"


def _micro_batch(cfg: RunConfig, gpus: int, requested: int | None) -> tuple[int, str]:
    """Sequences per GPU per forward, and why that split cannot run (empty when it can)."""
    requested = requested or getattr(cfg.train, "micro_batch", None)
    try:
        return batch_layout(cfg.batch, gpus, requested).per_device_train_batch_size, ""
    except ValueError as err:
        return requested or max(cfg.batch.mini_batch * cfg.batch.group_size // gpus, 1), str(err)


def check_fits(
    cfg: RunConfig,
    gpus: int,
    gpu_mem_gib: float,
    *,
    strategy: str | None = None,
    micro_batch: int | None = None,
    prompt_tokens: int | None = None,
    gradient_checkpointing: bool | None = None,
) -> Estimate:
    """Estimate one training GPU's memory for `cfg` on `gpus` GPUs of `gpu_mem_gib` each.

    `strategy` defaults to `none` on one GPU and `zero3` on more. `micro_batch` (sequences per GPU
    per forward) and `gradient_checkpointing` default to the run's `train.micro_batch` and
    `train.gradient_checkpointing` where the schema has them, else to an update's sequences
    (mini_batch x group_size) split over the GPUs and no checkpointing (`batching.batch_layout`).
    A micro-batch that does not split an update evenly is reported in `warning`. Sequences are
    `prompt_tokens` (default: the run's `context.max_prompt_length`) + the longest completion the
    run allows (after any context extension).
    """
    strategy = strategy or ("none" if gpus == 1 else "zero3")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy: unknown {strategy!r}; one of {STRATEGIES}")
    if gpus < 1 or gpu_mem_gib <= 0:
        raise ValueError(f"need gpus >= 1 and gpu_mem_gib > 0 (got {gpus}, {gpu_mem_gib})")
    micro_batch, layout_problem = _micro_batch(cfg, gpus, micro_batch)
    problems = [layout_problem] if layout_problem else []
    if gradient_checkpointing is None:
        gradient_checkpointing = bool(getattr(cfg.train, "gradient_checkpointing", False))
    shape, dtype_bytes = model_shape(cfg), DTYPE_BYTES[cfg.model.dtype]
    completion = max(cfg.context.max_completion_length, cfg.context.extend_to or 0)
    seq_len = (prompt_tokens or cfg.context.max_prompt_length) + completion
    activations = micro_batch * seq_len * shape.activation_bytes_per_token(ACTIVATION_BYTES, gradient_checkpointing)
    gpu_bytes = int(gpu_mem_gib * GIB)
    r = cfg.rollout
    vllm_need = shape.n_params * 2 // r.tensor_parallel_size + seq_len * shape.kv_bytes_per_token()
    vllm_share = int(r.gpu_memory_utilization * gpu_bytes) if r.backend == "vllm" else 0
    estimate = Estimate(
        n_params=shape.n_params,
        gpus=gpus,
        strategy=strategy,
        micro_batch=micro_batch,
        seq_len=seq_len,
        available_bytes=gpu_bytes - (vllm_share if r.backend == "vllm" and r.vllm_mode == "colocate" else 0),
        parts=_training_parts(shape, dtype_bytes, gpus, strategy, cfg.kl_clip.beta > 0, activations),
        vllm_share_bytes=vllm_share,
        vllm_need_bytes=vllm_need if r.backend == "vllm" else 0,
    )
    if estimate.total_bytes > estimate.available_bytes:
        problems.append(
            f"{cfg.model.name} does not fit: the trainer needs ~{estimate.total_bytes / GIB:.1f} GiB "
            f"per GPU, {estimate.available_bytes / GIB:.1f} GiB is free for it; "
            + _suggestions(estimate.parts, strategy, gradient_checkpointing, micro_batch)
        )
    if estimate.vllm_need_bytes > estimate.vllm_share_bytes:
        problems.append(
            f"vLLM ({r.vllm_mode}) needs ~{vllm_need / GIB:.1f} GiB (weights / tensor_parallel_size "
            f"{r.tensor_parallel_size} + KV cache of one {seq_len}-token sequence) but "
            f"rollout.gpu_memory_utilization={r.gpu_memory_utilization} gives it "
            f"{vllm_share / GIB:.1f} GiB"
        )
    estimate.eval_bytes = _evaluation_bytes(cfg, shape, dtype_bytes, estimate.parts)
    if estimate.eval_bytes > estimate.available_bytes:
        problems.append(
            f"the held-out evaluation needs ~{estimate.eval_bytes / GIB:.1f} GiB per GPU (generate's KV cache of "
            f"train.eval_prompts_per_batch={cfg.train.eval_prompts_per_batch} prompts x their samples at the "
            f"longest evaluation length, the weights whole); {estimate.available_bytes / GIB:.1f} GiB is free "
            "for it: lower train.eval_prompts_per_batch"
        )
    estimate.warning = " | ".join(problems)
    return estimate
