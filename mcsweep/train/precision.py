"""bf16 matrix products in the CPU update's forward and backward (`train.cpu_bf16_update`).

On a CPU with AMX, a bf16 matrix product runs several times faster than an fp32 one (8x for the
micro policy's shapes, measured by `benchmarks/bench_fast_paths.py`), and the update is mostly
matrix products. Under `torch.autocast` every linear layer runs in bf16, and so would attention, but
the CPU's bf16 attention kernel is slower than its fp32 one (its backward about 2x), so attention
is registered as a variant of transformers' SDPA that runs in fp32. Norms, softmax, the loss and the
parameters and optimizer stay fp32 (autocast's own rules), as they do under TRL's `bf16=True` on a
GPU. Generation is not autocast: the sampler keeps sampling from the fp32 policy.
"""

from __future__ import annotations

import contextlib

import torch
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

FP32_ATTENTION = "mcsweep_sdpa_fp32"


def _sdpa_fp32(module, query, key, value, attention_mask, **kwargs):
    """transformers' SDPA attention with autocast off and fp32 inputs (a no-op outside autocast)."""
    with torch.autocast("cpu", enabled=False):
        return sdpa_attention_forward(module, query.float(), key.float(), value.float(), attention_mask, **kwargs)


AttentionInterface.register(FP32_ATTENTION, _sdpa_fp32)
# An attention without a registered mask builder gets no mask at all (padding attended): SDPA's builder.
AttentionMaskInterface.register(FP32_ATTENTION, sdpa_mask)


def use_fp32_attention(model: torch.nn.Module) -> None:
    """Run `model`'s attention in fp32 whatever autocast does around it."""
    if model.config._attn_implementation != "sdpa":
        raise ValueError(
            f"train.cpu_bf16_update needs the model's sdpa attention (got {model.config._attn_implementation!r})"
        )
    model.set_attn_implementation(FP32_ATTENTION)


def update_autocast(enabled: bool) -> contextlib.AbstractContextManager:
    """bf16 autocast for the update's forward on the CPU when `enabled`; nothing otherwise."""
    return torch.autocast("cpu", dtype=torch.bfloat16) if enabled else contextlib.nullcontext()
