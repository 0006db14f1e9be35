"""Test evaluation split over the training processes, gathered on every process.

At paper scale one process sampling 200 problems x 4 samples x 8K tokens while the others wait
looks like a hang. Each process samples and grades whole batches of `prompts_per_batch` problems
(batch b on process b mod N) and the rows are gathered. Each batch is sampled with its own seed
(seed + b) and its own problems, so its rows do not depend on which process drew it or on how
many processes there are: N processes give the rows one process gives, each problem once.

Weights sharded by ZeRO-3 are gathered once for the whole evaluation (TRL's
`unwrap_model_for_generation`), so generation runs locally; under FSDP every layer's forward is
collective, so every process runs the same number of generate calls (a process short of a batch
repeats one and drops it), and transformers' `synced_gpus` keeps their decode steps in step. Only
then: under ZeRO-3 transformers would turn `synced_gpus` on by itself, and a process done with its
batches would wait in `gather_object` while the others' decode steps waited for it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

from mcsweep.train.evaluation import EvalSettings, evaluate, summarize
from mcsweep.train.sample_share import SampleShare


def batches(problems: Sequence[dict], size: int) -> list[Sequence[dict]]:
    return [problems[i : i + size] for i in range(0, len(problems), size)]


def assigned(n_batches: int, rank: int, world: int) -> list[int]:
    """The batches process `rank` evaluates: every world-th one, starting at its rank."""
    return list(range(rank, n_batches, world))


def _eval_batch(
    model, tokenizer, problems, evaluator, s: EvalSettings, step: int, index: int, share: SampleShare | None
) -> list[dict]:
    """Sample rows of one batch (its summaries are recomputed over all batches)."""
    batch = dataclasses.replace(s, seed=s.seed + index)
    return evaluate(model, tokenizer, problems, evaluator, batch, step, share)[1]


def evaluate_split(
    model,
    tokenizer,
    acc,
    problems: Sequence[dict],
    evaluator,
    s: EvalSettings,
    step: int,
    lockstep: bool = False,
    share_root: Path | None = None,
) -> tuple[list[dict], list[dict]]:
    """(summary rows, one per length; sample rows in batch order), the same on every process.

    `model` as the trainer wraps it (`model_wrapped`), `acc` its Accelerator; `lockstep` for FSDP.
    With `share_root`, a single process shares its samples with other runs of the same weights
    (`mcsweep.train.sample_share`)."""
    from accelerate.utils import gather_object
    from trl.models.utils import unwrap_model_for_generation

    s = dataclasses.replace(s, synced_gpus=lockstep and acc.num_processes > 1)
    parts = batches(problems, s.prompts_per_batch)
    mine = assigned(len(parts), acc.process_index, acc.num_processes)
    rounds = math.ceil(len(parts) / acc.num_processes) if lockstep else len(mine)
    done: list[tuple[int, list[dict]]] = []
    with unwrap_model_for_generation(model, acc) as unwrapped:
        share = SampleShare(share_root, unwrapped) if share_root is not None and acc.num_processes == 1 else None
        for r in range(rounds):
            index = mine[r] if r < len(mine) else 0  # FSDP lockstep: a repeat, dropped below
            rows = _eval_batch(unwrapped, tokenizer, parts[index], evaluator, s, step, index, share)
            if r < len(mine):
                done.append((index, rows))
    gathered = gather_object([done]) if acc.num_processes > 1 else [done]
    by_batch = sorted((part for per_rank in gathered for part in per_rank), key=lambda part: part[0])
    rows = [row for _, part in by_batch for row in part]
    return [summarize(rows, step, length, s.samples, s.train_length, s.common_length) for length in s.lengths], rows
