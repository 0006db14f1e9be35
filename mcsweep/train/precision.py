"""bf16 matrix products in the CPU update's forward and backward (`train.cpu_bf16_update`).

On a CPU with AMX, a bf16 matrix product runs several times faster than an fp32 one (8x for the
micro policy's shapes, measured by `benchmarks/bench_fast_paths.py`), and the update is mostly
matrix products. Under `torch.autocast` every linear layer runs in bf16, and so would attention, but
the CPU's bf16 attention kernel is slower than its fp32 one (its backward about 2x), so attention
is registered as a variant of transformers' SDPA that runs in fp32. Norms, softmax, the loss and the
parameters and optimizer stay fp32 (autocast's own rules), as they do under TRL's `bf16=True` on a
GPU. Generation is not autocast: the sampler keeps sampling from the fp32 policy. A CPU without bf16
matrix units (no AMX or AVX-512 BF16) emulates the bf16 products: there the switch makes the update
about 6x slower (AVX2 AMD EPYC: 26.8 s against 4.5 s in fp32), and a run says so when it starts.
"""

from __future__ import annotations

import contextlib
import logging

import torch
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

FP32_ATTENTION = "mcsweep_sdpa_fp32"
BF16_FLAGS = ("amx_bf16", "avx512_bf16")  # /proc/cpuinfo flags of CPUs that multiply bf16 natively
log = logging.getLogger(__name__)


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


def native_bf16(cpuinfo: str = "/proc/cpuinfo") -> bool | None:
    """Whether this CPU multiplies bf16 natively (one of ``BF16_FLAGS``); None where its flags are unknown."""
    try:
        with open(cpuinfo) as stream:
            flags = next((line.split(":", 1)[1].split() for line in stream if line.startswith("flags")), None)
    except OSError:
        return None
    return None if flags is None else any(flag in flags for flag in BF16_FLAGS)


def warn_if_emulated(cpuinfo: str = "/proc/cpuinfo") -> bool:
    """Log a warning when ``train.cpu_bf16_update`` would emulate bf16; True if it did."""
    if native_bf16(cpuinfo) is not False:
        return False
    log.warning(
        "train.cpu_bf16_update is on, but this CPU has no bf16 matrix units (none of %s in %s): "
        "bf16 is emulated and the update runs several times slower than in fp32; turn it off here",
        "/".join(BF16_FLAGS),
        cpuinfo,
    )
    return True


def update_autocast(enabled: bool) -> contextlib.AbstractContextManager:
    """bf16 autocast for the update's forward on the CPU when `enabled`; nothing otherwise."""
    return torch.autocast("cpu", dtype=torch.bfloat16) if enabled else contextlib.nullcontext()
