"""The shared-prompt forward gives TRL's log-probs, entropies and gradients (tiny policy, real TRL)."""

from __future__ import annotations

import torch
from trl import GRPOTrainer
from trl.trainer.utils import add_fused_lm_head

from mcsweep.train.run import load_policy
from mcsweep.train.shared_prompt import distinct_rows, shared_prompt_logps, shares_prompts
from tests.train.test_trainer_seams import G, _rollout, _trainer

T = 1.3


def _batch(vocab: int, prompts: int = 3, group: int = 4, width: int = 20):
    """Left-padded prompts of different lengths, each repeated `group` times, with right-padded completions."""
    gen = torch.Generator().manual_seed(0)
    lengths = [width - 6 * i for i in range(prompts)]
    ids = torch.zeros(prompts * group, width + 12, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for p, n in enumerate(lengths):
        rows = slice(p * group, (p + 1) * group)
        ids[rows, width - n : width] = torch.randint(3, vocab, (n,), generator=gen)
        mask[rows, width - n : width] = 1
    for r in range(ids.size(0)):
        n = int(torch.randint(1, 13, (1,), generator=gen))
        ids[r, width : width + n] = torch.randint(3, vocab, (n,), generator=gen)
        mask[r, width : width + n] = 1
    return ids, mask, 12


def _trl_forward(model, ids, mask, keep):
    """TRL's `_get_per_token_logps_and_entropies` for one chunk: the whole padded rows."""
    labels = ids.masked_fill(mask == 0, -100)
    labels[:, :-keep] = -100
    out = model(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True)
    return out.log_probs[:, -keep:], out.entropy[:, -keep:]


def _grads(model, logps, mask):
    model.zero_grad()
    (logps * mask).sum().backward()
    return [p.grad.clone() for p in model.parameters()]


def test_same_logps_entropies_and_gradients_as_trls_forward(tiny_run):
    cfg, _ = tiny_run()
    model, _ = load_policy(cfg)
    add_fused_lm_head(model, temperature=T, outputs=("log_probs", "entropy"))
    ids, mask, keep = _batch(model.config.vocab_size)
    assert shares_prompts(ids, mask, keep)
    ref_logps, ref_entropy = _trl_forward(model, ids, mask, keep)
    logps, entropy = shared_prompt_logps(model, ids, mask, keep)
    torch.testing.assert_close(logps, ref_logps, atol=1e-5, rtol=0)
    torch.testing.assert_close(entropy, ref_entropy, atol=1e-5, rtol=0)
    completion_mask = mask[:, -keep:]
    for got, ref in zip(_grads(model, logps, completion_mask), _grads(model, ref_logps, completion_mask), strict=True):
        torch.testing.assert_close(got, ref, atol=1e-5, rtol=1e-4)


def test_distinct_rows_groups_equal_prompts_only():
    ids = torch.tensor([[0, 5, 6], [0, 5, 6], [7, 5, 6], [0, 5, 6]])
    mask = torch.tensor([[0, 1, 1], [0, 1, 1], [1, 1, 1], [1, 1, 1]])  # row 3: same ids, not padded
    first, inverse = distinct_rows(ids, mask)
    assert inverse[0] == inverse[1] and len({int(inverse[i]) for i in (0, 2, 3)}) == 3
    assert torch.equal(ids[first][inverse], ids) and torch.equal(mask[first][inverse], mask)


def test_trainer_seam_matches_stock_trl_on_a_rollout(tiny_run, tmp_path):
    trainer, _ = _trainer(tiny_run, tmp_path, "none", 0.0)
    trainer.shared_prompt = True
    out = _rollout(trainer)
    ids = torch.cat([out["prompt_ids"], out["completion_ids"]], 1)
    mask = torch.cat([out["prompt_mask"], out["completion_mask"]], 1)
    keep = out["completion_ids"].size(1)
    assert shares_prompts(ids, mask, keep) and ids.size(0) == 2 * G
    got = trainer._get_per_token_logps_and_entropies(trainer.model, ids, mask, keep, compute_entropy=True)
    ref = GRPOTrainer._get_per_token_logps_and_entropies(trainer, trainer.model, ids, mask, keep, compute_entropy=True)
    torch.testing.assert_close(got[0], ref[0], atol=1e-5, rtol=0)
    torch.testing.assert_close(got[1], ref[1], atol=1e-5, rtol=0)
