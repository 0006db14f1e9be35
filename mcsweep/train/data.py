"""Training and test problems for a run, as TRL prompt datasets.

Sources: the micro world's named sets, a problem-record JSONL file (see docs/ARCHITECTURE.md), or
a dataset on the HF hub / disk in the same record schema.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path

from datasets import Dataset

from mcsweep.config.schema import DataConfig
from mcsweep.io.jsonl import JsonlError, iter_jsonl
from mcsweep.micro.problems import WorldSpec
from mcsweep.micro.world import problem_set, prompt_messages

log = logging.getLogger(__name__)
REQUIRED = ("id", "question", "input_output")


class DataError(ValueError):
    """A problem file or record is unusable; the message names the file, line and field."""


def _read_jsonl(path: str) -> list[dict]:
    records = []
    try:
        for n, record in iter_jsonl(path):
            missing = [k for k in REQUIRED if k not in record]
            if missing:
                raise DataError(f"{path}:{n}: missing field(s) {missing}")
            records.append(record)
    except JsonlError as err:
        raise DataError(f"{err.where}: {err.reason}") from None
    return records


def _load(source: str, name: str, path: str | None, n: int | None, world: WorldSpec, split: str) -> list[dict]:
    if source == "micro":
        return problem_set(name, world, n)
    if source == "deepcoder":
        return _deepcoder(path, name, split)[:n]
    if source == "jsonl":
        if not Path(path).exists():
            raise DataError(f"data file {path} does not exist")
        return _read_jsonl(path)[:n]
    from datasets import load_dataset

    records = list(load_dataset(path, split=name))[:n]
    for i, record in enumerate(records):
        missing = [k for k in REQUIRED if k not in record]
        if missing:
            raise DataError(f"{path} ({name}) row {i}: missing field(s) {missing}; convert it with mcsweep.data")
    return records


def _deepcoder(root: str, subsets: str, split: str) -> list[dict]:
    """DeepCoder's rows converted to problem records (its rows hold `problem`/`tests`/`metadata`, which
    the hub loader cannot read as records): its subsets joined by `+`, each's `split` (train or test)."""
    from mcsweep.data.loaders import load_deepcoder

    if not Path(root).is_dir():
        raise DataError(f"data.path={root}: no DeepCoder-Preview-Dataset snapshot there (a directory of <subset>/)")
    try:
        return [p.to_dict() for subset in subsets.split("+") for p in load_deepcoder(root, subset, split)]
    except (ValueError, OSError) as err:  # an unknown subset, a missing file or column: the loader names it
        raise DataError(f"DeepCoder at {root} ({subsets}, {split}): {err}") from err


def train_problems(cfg: DataConfig, world: WorldSpec) -> list[dict]:
    return _load(cfg.source, cfg.train_set, cfg.path, cfg.n_train, world, "train")


def test_problems(cfg: DataConfig, world: WorldSpec) -> list[dict]:
    """`n_test` problems drawn at random (seed `data.test_seed`) from the whole test split.

    The seed is the sweep's, not the run's, so every arm and seed of a sweep is tested on the same
    problems; the sample keeps the file's order, so a smaller `n_test` is not a prefix of a larger one."""
    source = cfg.test_source or ("jsonl" if cfg.test_path else cfg.source)
    records = _load(source, cfg.test_set, cfg.test_path or cfg.path, None, world, "test")
    if cfg.n_test >= len(records):
        if cfg.n_test > len(records):
            log.warning(
                "data.n_test=%d, but the test split has %d problems: testing on all of them", cfg.n_test, len(records)
            )
        return records
    keep = sorted(random.Random(f"test-sample-{cfg.test_seed}").sample(range(len(records)), cfg.n_test))
    return [records[i] for i in keep]


def prompt_length(problem: dict, tokenizer, chat_template_kwargs: dict | None = None) -> int:
    """Tokens of the problem's chat-formatted prompt, as the trainer sends it."""
    kwargs = chat_template_kwargs or {}
    messages = prompt_messages(problem)
    encoded = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_dict=True, **kwargs)
    return len(encoded["input_ids"])


def fitting_prompts(
    problems: list[dict], tokenizer, max_prompt_length: int, chat_template_kwargs: dict | None = None
) -> tuple[list[dict], list[str]]:
    """(the problems whose prompt fits `max_prompt_length` tokens, the ids of those dropped).

    TRL 1.16 sends prompts whole, and vLLM answers HTTP 400 to a prompt longer than its
    max_model_len less the completion budget; so a prompt that does not fit is never sent."""
    kept, dropped = [], []
    for problem in problems:
        fits = prompt_length(problem, tokenizer, chat_template_kwargs) <= max_prompt_length
        (kept if fits else dropped).append(problem if fits else problem["id"])
    return kept, dropped


def prompt_dataset(problems: list[dict]) -> Dataset:
    """Columns TRL needs (prompt) plus what the reward reads (input_output, problem_id)."""
    return Dataset.from_list(
        [
            {
                "prompt": prompt_messages(p),
                "input_output": p["input_output"],
                "problem_id": p["id"],
                "difficulty": p.get("difficulty", "unknown"),
            }
            for p in problems
        ]
    )
