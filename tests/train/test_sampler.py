"""The fast sampler against HF `generate` and against the model's own probabilities (tiny policy).

Same seed, same random draws: the fast sampler must return `generate`'s samples (cut after the
first stop token, as TRL cuts them), report the log-probabilities the model gives its tokens, and
draw first tokens with the frequencies softmax(logits / temperature) says.
"""

from __future__ import annotations

import pytest
import torch
from scipy.stats import chisquare
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM
from trl.trainer.utils import pad

from mcsweep.micro.world import prompt_messages
from mcsweep.train import sampler
from mcsweep.train.data import train_problems
from mcsweep.train.run import load_policy, policy_spec
from mcsweep.train.sampler import check_supported, sample

T = 1.3


@pytest.fixture(scope="module")
def policy(tmp_path_factory):
    from tests.train.conftest import compose_run

    cfg, _ = compose_run(tmp_path_factory.mktemp("runs"), [])
    model, tokenizer = load_policy(cfg)
    problems = train_problems(cfg.data, policy_spec(cfg).world)
    prompts = [
        tokenizer(tokenizer.apply_chat_template(prompt_messages(p), tokenize=False, add_generation_prompt=True))[
            "input_ids"
        ]
        for p in problems[:3]
    ]
    return model.eval(), tokenizer, prompts


def _generate(model, rows, max_new, stops, pad_id):
    """TRL's HF rollout path: left-padded `generate`, each row cut after its first stop token."""
    tensors = [torch.tensor(r) for r in rows]
    ids = pad(tensors, padding_value=pad_id, padding_side="left")
    mask = pad([torch.ones_like(t) for t in tensors], padding_value=0, padding_side="left")
    config = GenerationConfig(
        max_new_tokens=max_new,
        do_sample=True,
        temperature=T,
        top_p=1.0,
        top_k=0,
        pad_token_id=pad_id,
        eos_token_id=stops,
    )
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=mask, generation_config=config)[:, ids.size(1) :].tolist()
    return [next((row[: n + 1] for n, t in enumerate(row) if t in stops), row) for row in out]


def _frequent_token(model, rows) -> int:
    """A token the model often samples, used as an extra stop so that rows end at different steps."""
    with torch.no_grad():
        logits = model(torch.tensor([rows[0]])).logits[0, -1]
    return int(logits.argmax())


@pytest.mark.parametrize("group", [4, 1])
def test_same_seed_gives_generates_samples(policy, group, monkeypatch):
    model, tokenizer, prompts = policy
    shrinks = []
    select = sampler._Cache.select
    monkeypatch.setattr(sampler._Cache, "select", lambda self, rows: shrinks.append(len(rows)) or select(self, rows))
    rows = [p for p in prompts for _ in range(group)] if group > 1 else prompts * 3  # blocks, or no blocks
    stops = [tokenizer.eos_token_id, _frequent_token(model, rows)]
    torch.manual_seed(11)
    expected = _generate(model, rows, 40, stops, tokenizer.pad_token_id)
    torch.manual_seed(11)
    got = sample(model, rows, temperature=T, max_new_tokens=40, stop_ids=stops, pad_id=tokenizer.pad_token_id)
    assert got.completion_ids == expected
    lengths = {len(c) for c in got.completion_ids}
    assert len(lengths) > 1 and max(lengths) == 40  # some rows stopped early, some ran to the limit
    assert shrinks == sorted(shrinks, reverse=True) and (shrinks or group == 1)  # finished rows left the batch
    for ids in got.completion_ids:
        assert all(t not in stops for t in ids[:-1]) and (ids[-1] in stops or len(ids) == 40)


def test_reported_logprobs_and_entropies_are_the_models(policy):
    model, tokenizer, prompts = policy
    rows = [p for p in prompts for _ in range(2)]
    torch.manual_seed(3)
    got = sample(model, rows, temperature=T, max_new_tokens=32, stop_ids=[tokenizer.eos_token_id], pad_id=0)
    for row, ids, logps, entropies in zip(rows, got.completion_ids, got.logprobs, got.entropies, strict=True):
        with torch.no_grad():
            logits = model(torch.tensor([row + ids])).logits[0, len(row) - 1 : -1].float() / T
        own = torch.log_softmax(logits, -1)
        torch.testing.assert_close(
            torch.tensor(logps), own.gather(1, torch.tensor(ids)[:, None]).squeeze(1), atol=1e-4, rtol=0
        )
        torch.testing.assert_close(torch.tensor(entropies), -(own.exp() * own).sum(-1), atol=1e-4, rtol=0)


def test_first_tokens_follow_softmax_over_temperature(policy):
    model, tokenizer, prompts = policy
    n = 4000
    torch.manual_seed(5)
    got = sample(model, [prompts[0]] * n, temperature=T, max_new_tokens=1, stop_ids=[tokenizer.eos_token_id], pad_id=0)
    counts = torch.bincount(torch.tensor([c[0] for c in got.completion_ids]), minlength=model.config.vocab_size)
    with torch.no_grad():
        probs = torch.softmax(model(torch.tensor([prompts[0]])).logits[0, -1].double() / T, -1)
    top = probs.argsort(descending=True)[:15]  # the 15 likeliest tokens and one bin for the rest
    observed = [*counts[top].tolist(), n - int(counts[top].sum())]
    expected = [*(probs[top] * n).tolist(), float((1 - probs[top].sum()) * n)]
    assert chisquare(observed, expected).pvalue > 1e-3
    with torch.no_grad():  # the test can tell temperatures apart: T = 1 fails it
        cold = torch.softmax(model(torch.tensor([prompts[0]])).logits[0, -1].double(), -1)
    wrong = [*(cold[top] * n).tolist(), float((1 - cold[top].sum()) * n)]
    assert chisquare(observed, wrong).pvalue < 1e-3


def test_other_architectures_are_refused():
    config = LlamaConfig(
        vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2
    )
    with pytest.raises(ValueError, match=r"rollout\.sampler=hf_generate"):
        check_supported(LlamaForCausalLM(config))


def test_evaluation_samples_equal_with_either_sampler(policy, tiny_run):
    from mcsweep.train.data import test_problems
    from mcsweep.train.evaluation import EvalSettings, sample_completions

    model, tokenizer, _ = policy
    cfg, _ = tiny_run()
    problems = test_problems(cfg.data, policy_spec(cfg).world)[:3]
    runs = {
        name: sample_completions(model, tokenizer, problems, EvalSettings(3, T, (24,), seed=4, sampler=name))
        for name in ("hf_generate", "fast")
    }
    assert [(s.problem["id"], s.index, s.ids) for s in runs["fast"]] == [
        (s.problem["id"], s.index, s.ids) for s in runs["hf_generate"]
    ]
