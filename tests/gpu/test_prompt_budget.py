"""One prompt-length budget (`context.max_prompt_length`): the trainer's vLLM context, the server
command, the memory estimate, and the data, which drops (and counts) the prompts that exceed it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from mcsweep.gpu.__main__ import compose_run_config
from mcsweep.gpu.layout import ServerLayout, serve_command
from mcsweep.gpu.memory import check_fits
from mcsweep.micro.problems import WorldSpec
from mcsweep.micro.world import problem_set, sft_examples
from mcsweep.train.data import DataError, fitting_prompts, prompt_length
from mcsweep.train.run import fitting_problems, grpo_args
from mcsweep.train.run_store import RunStore

PAPER = ["scale=paper", "model=qwen3_1.7b", "context=short_to_long", "rollout=vllm_server"]


@pytest.fixture(scope="module")
def tokenizer():
    """The micro world's BPE tokenizer, trained here in about a second."""
    from mcsweep.micro.policy import train_tokenizer

    texts = [e["prompt"][0]["content"] + e["completion"][0]["content"] for e in sft_examples(WorldSpec(), 256, 0)]
    return train_tokenizer(texts, 600)


@pytest.mark.parametrize("budget", [1000, 2048, 3000])
def test_every_consumer_reads_the_one_budget(tmp_path: Path, budget: int) -> None:
    cfg = compose_run_config([*PAPER, f"context.max_prompt_length={budget}"])
    longest = budget + 8192  # short_to_long extends to 8K
    assert grpo_args(cfg, RunStore(tmp_path), 1.0).vllm_max_model_length == longest
    assert f"--max_model_len {longest}" in serve_command(cfg, ServerLayout())
    assert check_fits(cfg, 8, 80).seq_len == longest


def test_prompts_over_the_budget_are_dropped_and_named(tokenizer) -> None:
    problems = problem_set("hard", WorldSpec(), 200)
    lengths = {p["id"]: prompt_length(p, tokenizer) for p in problems}
    limit = sorted(lengths.values())[len(lengths) // 2]
    kept, dropped = fitting_prompts(problems, tokenizer, limit)
    assert kept and dropped and len(kept) + len(dropped) == len(problems)
    assert all(lengths[p["id"]] <= limit for p in kept)
    assert sorted(dropped) == sorted(i for i, n in lengths.items() if n > limit)


def test_the_run_card_counts_what_was_dropped(tmp_path: Path, tokenizer, caplog) -> None:
    cfg = compose_run_config(["data.n_train=100", "data.n_test=40"])
    world = WorldSpec()
    limit = sorted(prompt_length(p, tokenizer) for p in problem_set("hard", world, 100))[50]
    cfg.context.max_prompt_length = limit
    store = RunStore(tmp_path / "run").create()
    with caplog.at_level(logging.WARNING, logger="mcsweep.train.run"):
        train, test = fitting_problems(cfg, store, tokenizer, world)
    card = store.read_json("run_card.json")["prompt_filter"]
    assert card["max_prompt_length"] == limit
    assert card["train"]["kept"] == len(train) and card["train"]["kept"] + card["train"]["dropped"] == 100
    assert card["train"]["dropped"] == len(card["train"]["dropped_ids"]) > 0
    # The test sample is kept whole (its prompts over the budget only counted): every model is scored on it.
    assert card["test"]["kept"] == len(test) == 40
    assert card["test"]["over_budget"] == len(card["test"]["over_budget_ids"]) > 0
    assert f"train: dropped {card['train']['dropped']} of 100 prompts longer than {limit} tokens" in caplog.text


def test_a_budget_nothing_fits_names_the_key(tmp_path: Path, tokenizer) -> None:
    cfg = compose_run_config(["data.n_train=10", "data.n_test=4", "context.max_prompt_length=8"])
    with pytest.raises(DataError, match=r"context\.max_prompt_length=8: no train prompt fits"):
        fitting_problems(cfg, RunStore(tmp_path / "run").create(), tokenizer, WorldSpec())


def test_paper_and_micro_budgets() -> None:
    assert compose_run_config(["scale=paper"]).context.max_prompt_length == 2048
    assert compose_run_config(["scale=paper", "context=long"]).context.max_prompt_length == 2048
    assert compose_run_config([]).context.max_prompt_length == 256
