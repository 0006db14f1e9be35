"""The shared-prompt forward gives TRL's log-probs, entropies and gradients (tiny policy, real TRL)."""

from __future__ import annotations

import pytest
import torch
from trl import GRPOTrainer
from trl.trainer.utils import add_fused_lm_head, shuffle_sequence_dict, split_tensor_dict

from mcsweep.train.run import load_policy
from mcsweep.train.shared_prompt import completion_lengths, distinct_rows, shared_prompt_logps, shares_prompts
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


def _assert_same_where_kept(got: torch.Tensor, ref: torch.Tensor, mask: torch.Tensor) -> None:
    """Equal up to each row's last unmasked token, 0 after it (positions TRL's loss masks)."""
    kept = torch.arange(mask.size(1))[None] < completion_lengths(mask, mask.size(1))[:, None]
    torch.testing.assert_close(got[kept], ref[kept], atol=1e-5, rtol=0)
    assert torch.all(got[~kept] == 0)


@pytest.mark.parametrize("rows_per_forward", [1, 5, 16])
def test_same_logps_entropies_and_gradients_as_trls_forward(tiny_run, rows_per_forward):
    cfg, _ = tiny_run()
    model, _ = load_policy(cfg)
    add_fused_lm_head(model, temperature=T, outputs=("log_probs", "entropy"))
    ids, mask, keep = _batch(model.config.vocab_size)
    completion_mask = mask[:, -keep:]
    assert shares_prompts(ids, mask, keep) and len(set(completion_lengths(mask, keep).tolist())) > 3
    ref_logps, ref_entropy = _trl_forward(model, ids, mask, keep)
    logps, entropy = shared_prompt_logps(model, ids, mask, keep, rows_per_forward)
    _assert_same_where_kept(logps, ref_logps, completion_mask)
    _assert_same_where_kept(entropy, ref_entropy, completion_mask)
    for got, ref in zip(_grads(model, logps, completion_mask), _grads(model, ref_logps, completion_mask), strict=True):
        torch.testing.assert_close(got, ref, atol=1e-5, rtol=1e-4)


def test_completion_lengths_end_at_the_last_unmasked_token():
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 0, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1], [1, 0, 1, 0, 0]])
    assert completion_lengths(torch.cat([torch.ones(5, 2, dtype=torch.long), mask], 1), 5).tolist() == [3, 2, 0, 5, 3]


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
    _assert_same_where_kept(got[0], ref[0], out["completion_mask"])
    _assert_same_where_kept(got[1], ref[1], out["completion_mask"])


def test_frozen_rows_carry_no_graph_and_leave_the_others_unchanged(tiny_run):
    cfg, _ = tiny_run()
    model, _ = load_policy(cfg)
    add_fused_lm_head(model, temperature=T, outputs=("log_probs", "entropy"))
    ids, mask, keep = _batch(model.config.vocab_size)
    frozen = torch.arange(ids.size(0)) % 3 == 0
    completion_mask = mask[:, -keep:]
    ref_logps, _ = _trl_forward(model, ids, mask, keep)
    logps, _ = shared_prompt_logps(model, ids, mask, keep, 4, frozen=frozen)
    _assert_same_where_kept(logps, ref_logps, completion_mask)
    free = completion_mask * ~frozen[:, None]
    for got, ref in zip(_grads(model, logps, free), _grads(model, ref_logps, free), strict=True):
        torch.testing.assert_close(got, ref, atol=1e-5, rtol=1e-4)
    model.zero_grad()
    logps, _ = shared_prompt_logps(model, ids, mask, keep, 4, frozen=frozen)
    assert not logps[frozen].requires_grad or all(
        g is None or not g.any()
        for g in torch.autograd.grad(logps[frozen].sum(), list(model.parameters()), allow_unused=True)
    )


def _loss_gradient(trainer, out):
    trainer.current_gradient_accumulation_steps = trainer.args.gradient_accumulation_steps  # set by train()
    trainer.model.zero_grad()
    loss = trainer.compute_loss(trainer.model, out)
    loss.backward()
    return loss.detach(), torch.cat([p.grad.flatten() for p in trainer.model.parameters() if p.grad is not None])


def test_loss_and_gradient_with_zero_advantage_rows_frozen_equal_stock_trls(tiny_run, tmp_path):
    trainer, _ = _trainer(tiny_run, tmp_path, "none", 0.0)
    trainer.shared_prompt = True
    torch.manual_seed(0)
    out = _rollout(trainer)
    frozen = trainer._rows_without_gradient(out["advantages"])
    assert frozen is not None and frozen[G:].all() and not frozen[:G].all()  # group 2: all wrong, zero advantage
    loss, grad = _loss_gradient(trainer, out)
    trainer.shared_prompt = False
    ref_loss, ref_grad = _loss_gradient(trainer, out)
    torch.testing.assert_close(loss, ref_loss, atol=1e-6, rtol=1e-5)
    assert ref_grad.abs().sum() > 0
    torch.testing.assert_close(grad, ref_grad, atol=1e-6, rtol=1e-4)


def test_no_row_is_frozen_where_zero_advantage_still_has_a_gradient(tiny_run, tmp_path):
    trainer, _ = _trainer(tiny_run, tmp_path, "none", 0.0)
    advantages = torch.tensor([0.5, 0.0, 0.0, -0.5])
    assert trainer._rows_without_gradient(advantages).tolist() == [False, True, True, False]
    assert trainer._rows_without_gradient(torch.zeros(4)) is None  # the loss needs one row's graph
    trainer.beta = 0.04  # a KL term pulls zero-advantage rows too
    assert trainer._rows_without_gradient(advantages) is None
    trainer.beta, trainer._entropy_bonus_enabled = 0.0, True
    assert trainer._rows_without_gradient(advantages) is None


def test_zero_advantage_rows_skip_the_forward_and_log_the_samplers_entropies(tiny_run, tmp_path):
    """On policy, with the fast sampler's rollout, the zero-advantage group never enters the update's
    forward: the loss, the gradient and the logged entropy are still stock TRL's."""
    trainer, _ = _trainer(tiny_run, tmp_path, "none", 0.0)
    trainer.sampler, trainer.shared_prompt = "fast", True
    torch.manual_seed(0)
    out = _rollout(trainer)
    assert trainer._reusable_entropies(out) is not None and bool(out["advantages"][G:].eq(0).all())
    rows = []
    hook = trainer.model.get_input_embeddings().register_forward_hook(lambda m, i, o: rows.append(i[0].size(0)))
    loss, grad = _loss_gradient(trainer, out)
    hook.remove()
    assert sum(rows) == 1 + G  # the prefix of group 1's prompt, then group 1's G completions: group 2 skipped
    entropy = trainer._metrics["train"]["entropy"][-1]
    trainer.shared_prompt = False
    ref_loss, ref_grad = _loss_gradient(trainer, out)
    torch.testing.assert_close(loss, ref_loss, atol=1e-6, rtol=1e-5)
    assert ref_grad.abs().sum() > 0
    torch.testing.assert_close(grad, ref_grad, atol=1e-6, rtol=1e-4)
    assert entropy == pytest.approx(trainer._metrics["train"]["entropy"][-1], rel=1e-5)


def test_the_samplers_entropies_are_not_reused_where_log_probs_of_zero_rows_count(tiny_run, tmp_path):
    trainer, _ = _trainer(tiny_run, tmp_path, "none", 0.0)
    trainer.sampler = "fast"
    out = _rollout(trainer)
    assert trainer._reusable_entropies(out) is not None
    assert trainer._reusable_entropies({**out, "old_per_token_logps": torch.zeros(1)}) is None  # ratios not 1
    assert trainer._reusable_entropies({**out, "sampler_temperature": torch.tensor(0.5)}) is None
    trainer.top_entropy_quantile = 0.2  # the token mask ranks every row's entropies
    assert trainer._reusable_entropies(out) is None
    trainer.sampler = "hf_generate"
    assert "sampler_entropies" not in _rollout(trainer)


def test_the_samplers_entropies_follow_their_rows_through_trls_shuffle_and_split(tiny_run, tmp_path):
    """TRL shuffles a rollout and splits it into its updates' batches: each batch's entropies are
    still the model's for that batch's own completions."""
    trainer, _ = _trainer(tiny_run, tmp_path, "none", 0.0)
    trainer.sampler = "fast"
    torch.manual_seed(1)
    for part in split_tensor_dict(shuffle_sequence_dict(_rollout(trainer)), 2):
        assert float(part["sampler_temperature"]) == trainer.temperature
        ids = torch.cat([part["prompt_ids"], part["completion_ids"]], 1)
        mask = torch.cat([part["prompt_mask"], part["completion_mask"]], 1)
        keep = part["completion_ids"].size(1)
        with torch.no_grad():
            _, ref, _ = GRPOTrainer._get_per_token_logps_and_entropies(
                trainer, trainer.model, ids, mask, keep, compute_entropy=True
            )
        _assert_same_where_kept(part["sampler_entropies"], ref, part["completion_mask"])
