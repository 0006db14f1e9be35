"""The micro policy builds once, caches by its settings, and loads like a hub model."""

from __future__ import annotations

import dataclasses
import json

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from mcsweep.micro.policy import PolicySpec, init_model, policy_path
from mcsweep.micro.problems import WorldSpec
from mcsweep.micro.world import problem_set, prompt_messages

TINY = PolicySpec(
    sft_steps=4, sft_batch=8, hidden_size=32, intermediate_size=64, num_layers=1, num_heads=2, num_kv_heads=1
)


def test_build_is_cached_and_keyed_by_settings():
    path = policy_path(TINY)
    build = json.loads((path / "build.json").read_text())
    assert build["key"] == TINY.key() == path.name
    stamp = (path / "build.json").stat().st_mtime
    assert policy_path(TINY) == path and (path / "build.json").stat().st_mtime == stamp
    assert dataclasses.replace(TINY, sft_lr=1e-3).key() != TINY.key()
    assert dataclasses.replace(TINY, world=WorldSpec(seed=3)).key() != TINY.key()


def test_loads_through_auto_classes_with_chat_template_and_eos():
    path = policy_path(TINY)
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path)
    assert model.config.model_type == "qwen3"
    assert tok.eos_token == "<|im_end|>" and tok.pad_token == "<|endoftext|>"
    text = tok.apply_chat_template(
        prompt_messages(problem_set("test", WorldSpec(), 1)[0]), tokenize=False, add_generation_prompt=True
    )
    assert text.startswith("<|im_start|>user\n") and text.endswith("<|im_start|>assistant\n")
    ids = tok(text, return_tensors="pt")
    with torch.no_grad():
        out = model.generate(**ids, max_new_tokens=5, do_sample=False, pad_token_id=tok.pad_token_id)
    assert out.shape[1] <= ids["input_ids"].shape[1] + 5


def test_same_settings_give_the_same_initial_weights():
    tok = AutoTokenizer.from_pretrained(policy_path(TINY))
    first, second = init_model(TINY, tok), init_model(TINY, tok)
    assert all(torch.equal(p, q) for p, q in zip(first.parameters(), second.parameters(), strict=True))
    other = init_model(dataclasses.replace(TINY, seed=1), tok)
    assert not all(torch.equal(p, q) for p, q in zip(first.parameters(), other.parameters(), strict=True))


def test_build_uses_every_core_and_restores_the_run_threads(tmp_path, monkeypatch):
    """A run trains on 1 thread (parallel sweep points), but its one-off policy build takes all cores."""
    import os

    monkeypatch.setenv("MCSWEEP_CACHE", str(tmp_path))
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        build = json.loads((policy_path(TINY) / "build.json").read_text())
        assert build["torch_threads"] == len(os.sched_getaffinity(0))
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_sft_micro_batches_pad_little(tmp_path):
    """The build fits its time budget because micro-batches hold examples of similar length; random
    batches of the same examples are about a quarter to a third padding."""
    from mcsweep.micro.policy import _render, sft_trainer, train_tokenizer
    from mcsweep.micro.world import sft_examples

    spec = dataclasses.replace(TINY, sft_steps=16, sft_batch=32, sft_micro_batch=8)
    examples = sft_examples(spec.world, spec.sft_steps * spec.sft_batch, spec.seed)
    tok = train_tokenizer([_render(e) for e in examples], spec.vocab_size)
    trainer = sft_trainer(spec, examples, tok, init_model(spec, tok), tmp_path)
    batches = list(trainer.get_train_dataloader())
    padding = sum((b["attention_mask"] == 0).sum().item() for b in batches)
    assert padding / sum(b["attention_mask"].numel() for b in batches) < 0.15
    assert [len(b["input_ids"]) for b in batches] == [8] * 64 and trainer.args.gradient_accumulation_steps == 4


def test_each_step_is_a_random_batch_sorted_by_length():
    """Micro-batches of similar length inside a step, but steps drawn at random: no length order
    across steps (it wrecked the warm start), so each step's gradient is a random batch's."""
    import random

    from scipy.stats import spearmanr

    from mcsweep.micro.policy import length_sorted_steps

    lengths = [random.Random(i).randint(50, 300) for i in range(3200)]
    order = length_sorted_steps(lengths, 32, seed=0)
    assert sorted(order) == list(range(3200))
    steps = [[lengths[i] for i in order[k : k + 32]] for k in range(0, 3200, 32)]
    assert all(step == sorted(step) for step in steps)
    assert sum(max(s) - min(s) for s in steps) / len(steps) > 150  # random batches, not length buckets
    means = [sum(s) / len(s) for s in steps]
    assert abs(spearmanr(range(len(means)), means).statistic) < 0.3
    assert length_sorted_steps(lengths, 32, seed=0) == order != length_sorted_steps(lengths, 32, seed=1)


def test_accumulated_micro_batches_give_the_whole_batch_loss(tmp_path):
    """TRL divides the step's summed token loss by the step's token count, so 4 micro-batches of 8
    are one batch of 32. Were each micro-batch averaged on its own, short ones would weigh more."""
    from mcsweep.micro.policy import _render, sft_trainer, train_tokenizer
    from mcsweep.micro.world import sft_examples

    whole = dataclasses.replace(TINY, sft_steps=1, sft_batch=32, sft_micro_batch=32)
    examples = sft_examples(whole.world, 32, whole.seed)
    tok = train_tokenizer([_render(e) for e in examples], whole.vocab_size)
    losses = []
    for spec in (whole, dataclasses.replace(whole, sft_micro_batch=8)):
        trainer = sft_trainer(spec, examples, tok, init_model(spec, tok), tmp_path / str(spec.sft_micro_batch))
        losses.append(trainer.train().training_loss)
    assert losses[1] == pytest.approx(losses[0], rel=1e-5)
