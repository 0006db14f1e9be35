"""A lean batched sampler for small Qwen3 policies on the CPU, with the distribution of HF `generate`.

HF `generate` spends most of a micro model's rollout in per-token overhead: a growing key/value
cache concatenated at every token (more than half the time at the micro default) and a general
forward pass, and every row runs until the batch's last one ends. Here each distinct prompt is
prefilled once by the model's own forward and its keys stay shared (a group's rows score them in
one matrix product), each row's completion keys go to a preallocated buffer, finished rows leave
the compute batch, and each new token runs the model's weights (its q/k/v and gate/up projections
stacked, its RMS norms as one fused op and the q and k norms as one, its rotary embedding, MLP
activation and head) with a direct single-query attention.

The sampling rule is `generate`'s with top-k and top-p off: softmax(logits / temperature) drawn
with `torch.multinomial` once per step for every row of the full batch, and the loop ended
when every row has emitted a stop token or `max_new_tokens` were drawn. With the same seed it
draws the same random numbers in the same order as `generate`, so its samples equal `generate`'s
except where rounding moves a draw across a token boundary (tests/train/test_sampler.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass
class Samples:
    """Completions cut after their first stop token (`generate` + TRL's cut), with the log-prob
    of each sampled token and the entropy of the distribution it was drawn from, both under
    softmax(logits / temperature) (what the update's forward recomputes for its loss and metrics)."""

    completion_ids: list[list[int]]
    logprobs: list[list[float]]
    entropies: list[list[float]]


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
    """Keys and values: each distinct prompt's once, from its prefill (keys transposed for the score
    product), and each row's completion, one position per step, in preallocated buffers. A group's
    rows read their prompt's keys as one matrix product instead of one copy each."""

    def __init__(self, prefill_cache, pad: torch.Tensor, groups: int, max_new_tokens: int) -> None:
        zero = pad[:, None, :, None]  # 0 at padded positions: weight 0 there, and 0 * NaN would be NaN
        layers = prefill_cache.layers
        self.groups, self.rows = groups, pad.size(0) * groups
        self.prompt_keys = [x.keys.masked_fill(zero, 0.0).transpose(-1, -2).contiguous() for x in layers]
        self.prompt_values = [x.values.masked_fill(zero, 0.0) for x in layers]
        shape = (self.rows, layers[0].keys.size(1), max_new_tokens, layers[0].keys.size(3))
        self.keys = [layers[0].keys.new_zeros(shape) for _ in layers]
        self.values = [layers[0].keys.new_zeros(shape) for _ in layers]

    def select(self, rows: torch.Tensor) -> None:
        """Keep only `rows` of the completions' buffers (the batch shrinks as rows finish)."""
        self.keys = [k[rows] for k in self.keys]
        self.values = [v[rows] for v in self.values]

    def prompt_scores(self, i: int, q: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        """q (batch rows, kv heads, queries per kv head, d) against each row's prompt keys."""
        return self._by_row(torch.matmul(self._by_prompt(q, batch), self.prompt_keys[i]), batch)

    def prompt_mix(self, i: int, weights: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        """Attention weights on the prompt positions times each row's prompt values."""
        return self._by_row(torch.matmul(self._by_prompt(weights, batch), self.prompt_values[i]), batch)

    def _by_prompt(self, x: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        """(batch rows, kv, n, m) to (prompts, kv, group * n, m): a group's rows as one block of queries
        (rows out of the batch as zeros)."""
        if batch.numel() < self.rows:
            x = x.new_zeros(self.rows, *x.shape[1:]).index_copy(0, batch, x)
        _, kv, n, m = x.shape
        return x.view(-1, self.groups, kv, n, m).transpose(1, 2).reshape(-1, kv, self.groups * n, m)

    def _by_row(self, x: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        prompts, kv, gn, m = x.shape
        x = x.view(prompts, kv, self.groups, gn // self.groups, m).transpose(1, 2).reshape(self.rows, kv, -1, m)
        return x if batch.numel() == self.rows else x[batch]


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
    """Sample one completion per prompt row; a block of equal prompts shares one prefill.

    Finished rows leave the batch once an eighth of it has finished, so the compute follows the
    rows still running. The draw stays `generate`'s: `torch.multinomial` draws one sample per row
    from every row of the full batch (a row out of the batch from a point mass), consuming the same random
    numbers as `generate` does for its full batch, so each running row gets the same draw."""
    check_supported(model)
    groups = _blocks(prompt_ids)
    device = next(model.parameters()).device
    ids, mask = (x.to(device) for x in _left_pad(prompt_ids[::groups], pad_id))
    backbone = model.base_model
    out = backbone(input_ids=ids, attention_mask=mask, use_cache=True)
    hidden = out.last_hidden_state[:, -1].repeat_interleave(groups, 0)
    cache = _Cache(out.past_key_values, mask == 0, groups, max_new_tokens)
    width, rows = ids.size(1), len(prompt_ids)
    prompt_pad = torch.zeros(mask.shape, device=device).masked_fill(mask == 0, float("-inf"))
    key_mask = torch.cat([prompt_pad.repeat_interleave(groups, 0), prompt_pad.new_zeros(rows, max_new_tokens)], 1)
    cos, sin = backbone.rotary_emb(hidden, torch.arange(width, width + max_new_tokens, device=device)[None])
    half = cos.size(-1) // 2
    sin = torch.cat([-sin[..., :half], sin[..., half:]], -1)  # rotate_half's signs, for a roll of the halves
    stops = torch.tensor(stop_ids, device=device)
    weights = [_Weights.of(layer) for layer in backbone.layers]
    tokens = torch.full((rows, max_new_tokens), pad_id, device=device)
    logps = torch.zeros(rows, max_new_tokens, device=device)
    entropies = torch.zeros(rows, max_new_tokens, device=device)
    off_batch = torch.zeros(rows, model.config.vocab_size, device=device)  # a point mass for rows out of the batch
    off_batch[:, pad_id] = 1.0
    batch = torch.arange(rows, device=device)  # the rows in the compute batch
    running = torch.ones(rows, dtype=torch.bool, device=device)  # per batch row: no stop token yet
    for t in range(max_new_tokens):
        logits = model.lm_head(hidden).float() / temperature
        p, logp = torch.softmax(logits, dim=-1), torch.log_softmax(logits, dim=-1)
        token = torch.multinomial(off_batch.index_copy(0, batch, p), num_samples=1).squeeze(1)[batch]
        tokens[batch, t] = token
        logps[batch, t] = logp.gather(1, token[:, None]).squeeze(1)
        entropies[batch, t] = -(p * logp).sum(-1)
        running &= ~torch.isin(token, stops)
        alive = int(running.sum())
        if not alive or t == max_new_tokens - 1:
            break
        if alive <= 0.875 * batch.numel():
            keep = running.nonzero().squeeze(1)
            batch, token, running, key_mask = batch[keep], token[keep], running[keep], key_mask[keep]
            cache.select(keep)
        rope = (cos[0, t], sin[0, t])
        hidden = _decode_step(backbone, weights, token, cache, t, rope, batch, key_mask[:, None, None, : width + t + 1])
    return _cut(tokens[:, : t + 1], logps[:, : t + 1], entropies[:, : t + 1], stops=stops)


@dataclass
class _Weights:
    """A decoder layer's projections for the decode step: q, k and v stacked into one matrix, gate and
    up into another (two matrix products instead of five, each output row the same dot product as
    the module's), and the q and k norms' weights stacked per head (one norm for both)."""

    qkv: torch.Tensor
    qkv_bias: torch.Tensor | None
    splits: list[int]  # q and k together, v
    qk_norm: torch.Tensor  # (q heads + kv heads, head_dim)
    gate_up: torch.Tensor

    @classmethod
    def of(cls, layer) -> _Weights:
        a, m = layer.self_attn, layer.mlp
        projections = (a.q_proj, a.k_proj, a.v_proj)
        bias = None if a.q_proj.bias is None else torch.cat([p.bias for p in projections])
        heads = a.q_proj.out_features // a.head_dim, a.k_proj.out_features // a.head_dim
        return cls(
            torch.cat([p.weight for p in projections]),
            bias,
            [a.q_proj.out_features + a.k_proj.out_features, a.v_proj.out_features],
            torch.cat([a.q_norm.weight.expand(heads[0], -1), a.k_norm.weight.expand(heads[1], -1)]),
            torch.cat([m.gate_proj.weight, m.up_proj.weight]),
        )


def _norm(module, h: torch.Tensor) -> torch.Tensor:
    """Qwen3RMSNorm in one fused op."""
    return F.rms_norm(h, module.weight.shape, module.weight, module.variance_epsilon)


def _decode_step(backbone, weights, token: torch.Tensor, cache: _Cache, t: int, rope, batch, key_mask):
    """Hidden state after the final norm for completion token `t` of every row in the batch."""
    h = backbone.embed_tokens(token)
    for i, (layer, w) in enumerate(zip(backbone.layers, weights, strict=True)):
        h = h + _attend(layer.self_attn, w, _norm(layer.input_layernorm, h), cache, i, t, rope, batch, key_mask)
        gate, up = F.linear(_norm(layer.post_attention_layernorm, h), w.gate_up).chunk(2, dim=-1)
        h = h + layer.mlp.down_proj(layer.mlp.act_fn(gate) * up)
    return _norm(backbone.norm, h)


def _attend(attn, w: _Weights, h, cache: _Cache, i: int, t: int, rope, batch, key_mask) -> torch.Tensor:
    """Qwen3Attention for one query per row against its prompt's keys and its own completion's so far."""
    b, d = h.size(0), attn.head_dim
    qk, v = F.linear(h, w.qkv, w.qkv_bias).split(w.splits, dim=-1)
    qk = F.rms_norm(qk.view(b, -1, d), (d,), None, attn.q_norm.variance_epsilon) * w.qk_norm
    cos, sin = rope
    qk = qk * cos + qk.roll(d // 2, -1) * sin  # HF's rotary embedding: x * cos + rotate_half(x) * sin
    kv_heads = cache.keys[i].size(1)
    q, k = qk[:, :-kv_heads].view(b, kv_heads, -1, d), qk[:, -kv_heads:]  # q heads grouped as repeat_kv orders them
    keys, values = cache.keys[i], cache.values[i]
    keys[:, :, t] = k
    values[:, :, t] = v.view(b, kv_heads, d)
    scores = torch.cat([cache.prompt_scores(i, q, batch), torch.matmul(q, keys[:, :, : t + 1].transpose(-1, -2))], -1)
    weights = torch.softmax(scores * attn.scaling + key_mask, dim=-1, dtype=torch.float32).to(q.dtype)
    width = cache.prompt_values[i].size(2)
    out = cache.prompt_mix(i, weights[..., :width], batch) + torch.matmul(weights[..., width:], values[:, :, : t + 1])
    return attn.o_proj(out.reshape(b, -1))


def _cut(tokens: torch.Tensor, *per_token: torch.Tensor, stops: torch.Tensor) -> Samples:
    """Each row up to and including its first stop token (TRL's cut of `generate`'s output)."""
    is_stop = torch.isin(tokens, stops)
    lengths = torch.where(is_stop.any(1), is_stop.int().argmax(1) + 1, tokens.size(1)).tolist()
    return Samples(*([row[:n] for row, n in zip(x.tolist(), lengths, strict=True)] for x in (tokens, *per_token)))
