"""The update's forward pass with each distinct prompt run once, not once per completion.

GRPO scores G completions of the same prompt, and TRL runs the whole padded row (prompt plus
completion) through the model for each of them, so the prompt's tokens are computed G times. Here
the distinct prompts run once, their key/value cache is handed to every row that shares them, and
only the completions run per row. The model, the positions, the attention mask and TRL's fused
log-prob head are exactly TRL's, so the log-probabilities, entropies and gradients are TRL's up to
floating-point rounding (tests/train/test_shared_prompt.py checks both against TRL's own forward);
only the compute changes (about 40% of the update's tokens are prompt tokens at the micro default).
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


def shared_prompt_logps(
    model, input_ids: torch.Tensor, attention_mask: torch.Tensor, logits_to_keep: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-token log-probs and entropies of the last `logits_to_keep` tokens, as TRL's
    `_get_per_token_logps_and_entropies` returns them, for a model patched with TRL's fused LM head
    (`add_fused_lm_head` with outputs log_probs and entropy).

    The prompt minus its last token is the shared prefix; the suffix (last prompt token plus all
    completion tokens but the last) predicts the completion. Positions follow the padded columns,
    as in TRL's forward."""
    width = input_ids.size(1) - logits_to_keep - 1
    first, inverse = distinct_rows(input_ids[:, :width], attention_mask[:, :width])
    cache = DynamicCache(config=model.config)
    model.base_model(
        input_ids=input_ids[first, :width], attention_mask=attention_mask[first, :width], past_key_values=cache
    )
    cache.batch_select_indices(inverse)
    completion = input_ids[:, -logits_to_keep:]
    labels = completion.masked_fill(attention_mask[:, -logits_to_keep:] == 0, -100)
    out = model(
        input_ids=input_ids[:, width:-1],
        attention_mask=attention_mask[:, :-1],
        past_key_values=cache,
        shift_labels=labels,
        fused_lm_head=True,
    )
    return out.log_probs, out.entropy
