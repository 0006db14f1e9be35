"""A lean batched sampler for small Qwen3 policies on the CPU, with the distribution of HF `generate`.

HF `generate` spends most of a micro model's rollout in per-token overhead: a growing key/value
cache concatenated at every token (more than half the time at the micro default) and a general
forward pass. Here each distinct prompt is prefilled once by the model's own forward, the key/value
cache is preallocated, and each new token runs the model's own modules (norms, projections, rotary
embedding, MLP, head) with a direct single-query attention.

The sampling rule is `generate`'s with top-k and top-p off: softmax(logits / temperature) drawn
with `torch.multinomial` once per step for every row, a finished row padded, and the loop ended
when every row has emitted a stop token or `max_new_tokens` were drawn. With the same seed it
draws the same random numbers in the same order as `generate`, so its samples equal `generate`'s
except where rounding moves a draw across a token boundary (tests/train/test_sampler.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from transformers.models.qwen3.modeling_qwen3 import apply_rotary_pos_emb


@dataclass
class Samples:
    """Completions cut after their first stop token (`generate` + TRL's cut), with the log-prob
    of each sampled token under softmax(logits / temperature)."""

    completion_ids: list[list[int]]
    logprobs: list[list[float]]


def check_supported(model) -> None:
    """Raise a clear error for a model this sampler cannot run exactly."""
    config = model.config
    if config.model_type != "qwen3":
        raise ValueError(
            f"rollout.sampler=fast runs Qwen3 models only (got model_type {config.model_type!r}); "
            "use rollout.sampler=hf_generate"
        )
    if "sliding_attention" in (getattr(config, "layer_types", None) or []):
        raise ValueError("rollout.sampler=fast does not run sliding-window attention; use rollout.sampler=hf_generate")


def _left_pad(rows: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r) for r in rows)
    ids = torch.tensor([[pad_id] * (width - len(r)) + r for r in rows], dtype=torch.long)
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], dtype=torch.long)
    return ids, mask


def _blocks(prompt_ids: list[list[int]]) -> int:
    """G when the rows are blocks of G equal prompts (GRPO's groups, k eval samples), else 1."""
    for size in range(len(prompt_ids), 1, -1):
        if len(prompt_ids) % size == 0 and all(r == prompt_ids[i - i % size] for i, r in enumerate(prompt_ids)):
            return size
    return 1


class _Cache:
    """Keys and values: the prompts' once per distinct prompt (from the prefill), the completions'
    per row in preallocated buffers. Rows are `groups` consecutive rows per prompt."""

    def __init__(self, prefill_cache, pad: torch.Tensor, groups: int, max_new_tokens: int) -> None:
        self.groups = groups
        zero = pad[:, None, :, None]  # 0 at padded positions: weight 0 there, and 0 * NaN would be NaN
        self.prompt_keys = [layer.keys.masked_fill(zero, 0.0) for layer in prefill_cache.layers]
        self.prompt_values = [layer.values.masked_fill(zero, 0.0) for layer in prefill_cache.layers]
        rows = pad.size(0) * groups
        self.keys = [k.new_zeros(rows, k.size(1), max_new_tokens, k.size(3)) for k in self.prompt_keys]
        self.values = [v.new_zeros(rows, v.size(1), max_new_tokens, v.size(3)) for v in self.prompt_values]


@torch.no_grad()
def sample(
    model,
    prompt_ids: list[list[int]],
    *,
    temperature: float,
    max_new_tokens: int,
    stop_ids: list[int],
    pad_id: int,
) -> Samples:
    """Sample one completion per prompt row; a block of equal prompts shares one prefill and its cache."""
    check_supported(model)
    groups = _blocks(prompt_ids)
    device = next(model.parameters()).device
    ids, mask = (x.to(device) for x in _left_pad(prompt_ids[::groups], pad_id))
    backbone = model.base_model
    out = backbone(input_ids=ids, attention_mask=mask, use_cache=True)
    hidden = out.last_hidden_state[:, -1:].repeat_interleave(groups, 0)
    cache = _Cache(out.past_key_values, mask == 0, groups, max_new_tokens)
    width = ids.size(1)
    prompt_pad = torch.zeros(mask.shape, device=device).masked_fill(mask == 0, float("-inf"))
    key_mask = torch.cat(
        [prompt_pad.repeat_interleave(groups, 0), prompt_pad.new_zeros(len(prompt_ids), max_new_tokens)], 1
    )
    cos, sin = backbone.rotary_emb(hidden, torch.arange(width, width + max_new_tokens, device=device)[None])
    stops = torch.tensor(stop_ids, device=device)
    unfinished = torch.ones(len(prompt_ids), dtype=torch.bool, device=device)
    tokens, logps = [], []
    for t in range(max_new_tokens):
        logits = model.lm_head(hidden[:, -1]).float() / temperature
        token = torch.multinomial(torch.softmax(logits, dim=-1), num_samples=1).squeeze(1)
        token = torch.where(unfinished, token, pad_id)
        tokens.append(token)
        logps.append(torch.log_softmax(logits, dim=-1).gather(1, token[:, None]).squeeze(1))
        unfinished &= ~torch.isin(token, stops)
        if not unfinished.any() or t == max_new_tokens - 1:
            break
        rope = (cos[:, t : t + 1], sin[:, t : t + 1])
        hidden = _decode_step(backbone, token, cache, t, rope, key_mask[:, None, None, : width + t + 1])
    return _cut(torch.stack(tokens, 1), torch.stack(logps, 1), stops)


def _decode_step(backbone, token: torch.Tensor, cache: _Cache, t: int, rope, key_mask) -> torch.Tensor:
    """Hidden state after the final norm for the t-th new token of every row."""
    h = backbone.embed_tokens(token[:, None])
    for i, layer in enumerate(backbone.layers):
        h = h + _attend(layer.self_attn, layer.input_layernorm(h), cache, i, t, rope, key_mask)
        h = h + layer.mlp(layer.post_attention_layernorm(h))
    return backbone.norm(h)


def _attend(attn, h, cache: _Cache, i: int, t: int, rope, key_mask) -> torch.Tensor:
    """Qwen3Attention for one query per row: scores against the shared prompt keys (read once per
    prompt, not once per row) and the row's own completion keys, one softmax over both."""
    b, d, n = h.size(0), attn.head_dim, cache.groups
    q = attn.q_norm(attn.q_proj(h).view(b, 1, -1, d)).transpose(1, 2)
    k = attn.k_norm(attn.k_proj(h).view(b, 1, -1, d)).transpose(1, 2)
    v = attn.v_proj(h).view(b, 1, -1, d).transpose(1, 2)
    q, k = apply_rotary_pos_emb(q, k, *rope)
    cache.keys[i][:, :, t : t + 1] = k
    cache.values[i][:, :, t : t + 1] = v
    pk, pv, keys, values = cache.prompt_keys[i], cache.prompt_values[i], cache.keys[i], cache.values[i]
    u, kv_heads, width = pk.size(0), pk.size(1), pk.size(2)
    q = q.reshape(b, kv_heads, -1, d)  # query heads grouped by their key/value head, as repeat_kv orders them
    per_prompt = q.view(u, n, kv_heads, -1, d).transpose(1, 2).reshape(u, kv_heads, -1, d)
    prompt_scores = torch.matmul(per_prompt, pk.transpose(-1, -2)).view(u, kv_heads, n, -1, width)
    scores = torch.cat(
        [
            prompt_scores.transpose(1, 2).reshape(b, kv_heads, -1, width),
            torch.matmul(q, keys[:, :, : t + 1].transpose(-1, -2)),
        ],
        dim=-1,
    )
    weights = torch.softmax(scores * attn.scaling + key_mask, dim=-1, dtype=torch.float32).to(q.dtype)
    prompt_weights = (
        weights[..., :width].reshape(u, n, kv_heads, -1, width).transpose(1, 2).reshape(u, kv_heads, -1, width)
    )
    out = torch.matmul(prompt_weights, pv).view(u, kv_heads, n, -1, d).transpose(1, 2).reshape(b, kv_heads, -1, d)
    out = out + torch.matmul(weights[..., width:], values[:, :, : t + 1])
    return attn.o_proj(out.reshape(b, 1, -1))


def _cut(tokens: torch.Tensor, logps: torch.Tensor, stops: torch.Tensor) -> Samples:
    """Each row up to and including its first stop token (TRL's cut of `generate`'s output)."""
    is_stop = torch.isin(tokens, stops)
    lengths = torch.where(is_stop.any(1), is_stop.int().argmax(1) + 1, tokens.size(1)).tolist()
    return Samples(
        [row[:n] for row, n in zip(tokens.tolist(), lengths, strict=True)],
        [row[:n] for row, n in zip(logps.tolist(), lengths, strict=True)],
    )
