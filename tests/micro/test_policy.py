"""The micro policy builds once, caches by its settings, and loads like a hub model."""

from __future__ import annotations

import dataclasses
import json

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from mcsweep.micro.policy import PolicySpec, init_model, policy_path
from mcsweep.micro.problems import WorldSpec
from mcsweep.micro.world import problem_set, prompt_messages

TINY = PolicySpec(sft_steps=4, sft_batch=8, hidden_size=32, intermediate_size=64, num_layers=1, num_heads=2,
                  num_kv_heads=1)


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
    text = tok.apply_chat_template(prompt_messages(problem_set("test", WorldSpec(), 1)[0]), tokenize=False,
                                   add_generation_prompt=True)
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
