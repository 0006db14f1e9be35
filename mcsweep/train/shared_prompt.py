"""The update's forward pass without the work TRL repeats or pads: each distinct prompt runs once,
and each completion only up to its last token.

GRPO scores G completions of the same prompt, and TRL runs the whole padded row (prompt plus
completion) through the model for each of them, so the prompt's tokens are computed G times and
every row is padded to the longest completion of the batch (at the micro default about 40% of the
update's tokens are prompt tokens, and 44% of the completion positions are padding). Here the
distinct prompts run once, their key/value cache is handed to every row that shares them, and the
completions run in groups of similar length, each group cut after its longest row. The model, the
positions, the attention mask and TRL's fused log-prob head are exactly TRL's, so the
log-probabilities, entropies and gradients at every unmasked position are TRL's up to
floating-point rounding (tests/train/test_shared_prompt.py checks both against TRL's own forward).
"""

from __future__ import annotations

import torch
from transformers import DynamicCache


def distinct_rows(ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(index of one row per distinct (ids, mask) row, index of each row's distinct row)."""
    key = torch.cat([ids.masked_fill(mask == 0, -1), mask.long()], dim=1)
    _, inverse = torch.unique(key, dim=0, return_inverse=True)
    rows = torch.arange(ids.size(0), device=ids.device)
    first = torch.full((int(inverse.max()) + 1,), ids.size(0), dtype=torch.long, device=ids.device)
    first = first.scatter_reduce(0, inverse, rows, reduce="amin")
    return first, inverse


def shares_prompts(input_ids: torch.Tensor, attention_mask: torch.Tensor, logits_to_keep: int) -> bool:
    """Whether some rows share a prompt (all but its last token, which runs with the completion)."""
    width = input_ids.size(1) - logits_to_keep - 1
    if width < 1:
        return False
    first, _ = distinct_rows(input_ids[:, :width], attention_mask[:, :width])
    return first.numel() < input_ids.size(0)


def completion_lengths(attention_mask: torch.Tensor, logits_to_keep: int) -> torch.Tensor:
    """Each row's completion up to its last unmasked token (0 for a row masked whole)."""
    kept = attention_mask[:, -logits_to_keep:] != 0
    last = logits_to_keep - kept.flip(1).int().argmax(1)
    return torch.where(kept.any(1), last, 0)


def shared_prompt_logps(
    model,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    logits_to_keep: int,
    rows_per_forward: int = 8,  # 4-8 measured fastest at the micro default, 16 about 9% slower
    frozen: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Per-token log-probs and entropies of the last `logits_to_keep` tokens, as TRL's
    `_get_per_token_logps_and_entropies` returns them, for a model patched with TRL's fused LM head
    (`add_fused_lm_head` with outputs log_probs and entropy). Positions after a row's last unmasked
    token hold 0: every use of them in TRL's loss is masked. Rows where `frozen` is true run without
    autograd (for rows whose loss term is zero whatever their log-probs: their gradient is 0).

    The prompt minus its last token is the shared prefix, run once per distinct prompt; the suffix
    (last prompt token plus all completion tokens but the last) predicts the completion. The
    suffixes run `rows_per_forward` rows at a time, longest first, each forward cut after its
    longest row's last unmasked token. Attention is causal, so the cut changes no kept position.
    Positions follow the padded columns, as in TRL's forward."""
    width = input_ids.size(1) - logits_to_keep - 1
    first, inverse = distinct_rows(input_ids[:, :width], attention_mask[:, :width])
    prefix = DynamicCache(config=model.config)
    model.base_model(
        input_ids=input_ids[first, :width], attention_mask=attention_mask[first, :width], past_key_values=prefix
    )
    lengths = completion_lengths(attention_mask, logits_to_keep)
    frozen = torch.zeros_like(lengths, dtype=torch.bool) if frozen is None else frozen.to(lengths.device)
    labels = input_ids[:, -logits_to_keep:].masked_fill(attention_mask[:, -logits_to_keep:] == 0, -100)
    chunks = _chunks(lengths, frozen, rows_per_forward)
    logps, entropies = [], []
    for rows in chunks:
        n = max(int(lengths[rows[0]]), 1)
        cache = DynamicCache(config=model.config)
        for i, layer in enumerate(prefix.layers):
            cache.update(layer.keys[inverse[rows]], layer.values[inverse[rows]], i)
        with torch.set_grad_enabled(torch.is_grad_enabled() and not bool(frozen[rows[0]])):
            out = model(
                input_ids=input_ids[rows, width : width + n],
                attention_mask=attention_mask[rows, : width + n],
                past_key_values=cache,
                shift_labels=labels[rows, :n],
                fused_lm_head=True,
            )
        logps.append(torch.nn.functional.pad(out.log_probs, (0, logits_to_keep - n)))
        if out.entropy is not None:  # a head patched for log-probs only (the reference model's) has none
            entropies.append(torch.nn.functional.pad(out.entropy, (0, logits_to_keep - n)))
    back = torch.argsort(torch.cat(chunks))
    return torch.cat(logps)[back], torch.cat(entropies)[back] if entropies else None


def _chunks(lengths: torch.Tensor, frozen: torch.Tensor, size: int) -> list[torch.Tensor]:
    """Row indices in chunks of at most `size`, longest first; frozen and other rows never share one."""
    order = torch.argsort(lengths, descending=True, stable=True)
    return [c for part in (order[~frozen[order]], order[frozen[order]]) for c in part.split(size) if c.numel()]
