"""Held-out test pass@1 at the run's current training length, the sweep's common length and extra lengths.

One generation at the longest length serves every shorter length: the first L tokens of a sample
drawn with max length L' > L are distributed exactly as a sample drawn with max length L, so each
shorter length grades that prefix (truncated when no EOS falls inside it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from mcsweep.algo.diversity import group_diversity, per_sample_diversity
from mcsweep.algo.truncation_mask import is_truncated
from mcsweep.evaluator import Evaluator, GradeRequest
from mcsweep.train.chat_format import PLAIN, ChatFormat
from mcsweep.train.sampler import sample

if TYPE_CHECKING:
    from mcsweep.train.sample_share import SampleShare


@dataclass(frozen=True)
class EvalSettings:
    samples: int
    temperature: float
    lengths: tuple[int, ...]
    prompts_per_batch: int = 16
    seed: int = 0
    sampler: str = "hf_generate"  # or "fast": mcsweep.train.sampler, generate's samples for the same seed
    train_length: int | None = None  # the run's current training length (after any extension)
    common_length: int | None = None  # the sweep's common evaluation length
    chat: ChatFormat = PLAIN  # the prompts as the trainer renders them; how completions are read
    # Every process's decode steps in step (FSDP, whose every forward is collective). Off otherwise, also
    # under ZeRO-3, whose weights the evaluation gathers: transformers turns it on by itself there, and
    # processes with different numbers of batches then met in mismatched collectives (a hang).
    synced_gpus: bool = False


def eval_lengths(train_length: int, common_length: int | None, extra: Sequence[int]) -> tuple[int, ...]:
    """Each length once: the current training length first, then the others ascending."""
    rest = {common_length, *extra} - {train_length, None}
    return (train_length, *sorted(rest))


@dataclass(frozen=True)
class Sample:
    problem: dict
    index: int
    ids: list[int]


def stop_ids(model, tokenizer) -> list[int]:
    """Every end token the model may emit (Qwen models have two), as the trainer counts them."""
    eos = model.generation_config.eos_token_id
    ids = eos if isinstance(eos, list) else [eos]
    return sorted({i for i in [*ids, tokenizer.eos_token_id] if i is not None})


def _generate(model, tokenizer, problems: Sequence[dict], s: EvalSettings, max_len: int) -> list[Sample]:
    prompts = s.chat.prompt_ids(tokenizer, problems)
    stops = stop_ids(model, tokenizer)
    if s.sampler == "fast":
        rows = [ids for ids in prompts for _ in range(s.samples)]
        out = sample(
            model,
            rows,
            temperature=s.temperature,
            max_new_tokens=max_len,
            stop_ids=stops,
            pad_id=tokenizer.pad_token_id,
        )
        return [Sample(problems[i // s.samples], i % s.samples, ids) for i, ids in enumerate(out.completion_ids)]
    enc = tokenizer.pad({"input_ids": prompts}, padding=True, padding_side="left", return_tensors="pt").to(model.device)
    out = model.generate(
        **enc,
        do_sample=True,
        temperature=s.temperature,
        top_p=1.0,
        top_k=0,
        max_new_tokens=max_len,
        num_return_sequences=s.samples,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=stops,
        synced_gpus=s.synced_gpus,
    )
    completions = out[:, enc["input_ids"].shape[1] :].tolist()
    return [
        Sample(problems[i // s.samples], i % s.samples, _cut_at_stop(c, stops, tokenizer.pad_token_id))
        for i, c in enumerate(completions)
    ]


def _cut_at_stop(ids: list[int], stops: list[int], pad: int) -> list[int]:
    """Up to and including the first end token; without one, the whole (unpadded) sample."""
    for n, token in enumerate(ids):
        if token in stops:
            return ids[: n + 1]
    return [t for t in ids if t != pad]


def sample_completions(
    model, tokenizer, problems: Sequence[dict], s: EvalSettings, share: SampleShare | None = None
) -> list[Sample]:
    """k samples per problem at the longest length, without disturbing the training RNG; read from
    (or stored to) `share`, the shared samples of these weights, if given."""
    stored = share.get(problems, s) if share is not None else None
    if stored is not None:
        return stored
    was_training = model.training
    model.eval()
    samples: list[Sample] = []
    with torch.random.fork_rng(), torch.no_grad():
        torch.manual_seed(s.seed)
        for i in range(0, len(problems), s.prompts_per_batch):
            samples += _generate(model, tokenizer, problems[i : i + s.prompts_per_batch], s, max(s.lengths))
    model.train(was_training)
    if share is not None:
        share.put(problems, s, samples)
    return samples


def grade_samples(
    samples: Sequence[Sample], s: EvalSettings, tokenizer, evaluator: Evaluator, step: int, stops: Sequence[int]
) -> list[dict]:
    """One row per (length, sample) in the run store's eval_samples schema.

    A sample is cut at its first end token, so its prefix of `length` tokens is truncated exactly
    when that prefix does not end in one (the trainer's definition). `passed` is the evaluator's
    primary comparator; `passed_<name>` holds every comparator it judges (primary and shadows), so
    arms that train with different comparators can be scored by one fixed judge."""
    views = [
        (length, smp, smp.ids[:length], is_truncated(smp.ids[:length], stops))
        for length in s.lengths
        for smp in samples
    ]
    # A sample that ends before the shorter lengths has the same prefix at each: graded once.
    first: dict[tuple, int] = {}
    for n, (_, smp, ids, _) in enumerate(views):
        first.setdefault((smp.problem["id"], tuple(ids)), n)
    requests = [
        GradeRequest(
            id=f"{n}",
            completion=s.chat.graded_text(tokenizer.decode(views[n][2], skip_special_tokens=True)),
            input_output=views[n][1].problem["input_output"],
        )
        for n in first.values()
    ]
    graded = dict(zip(first, evaluator.grade_many(requests), strict=True))
    results = [graded[smp.problem["id"], tuple(ids)] for _, smp, ids, _ in views]
    primary = evaluator.comparators[0].name
    return [
        {
            "step": step,
            "max_length": length,
            "temperature": s.temperature,
            "problem_id": smp.problem["id"],
            "difficulty": smp.problem.get("difficulty", "unknown"),
            "format": "call" if "fn_name" in smp.problem["input_output"] else "stdin",
            "sample": smp.index,
            "passed": bool(res.passed),
            **{f"passed_{name}": bool(ok) for name, ok in {primary: res.passed, **res.shadow}.items()},
            "verdict": res.verdict,
            "length": len(ids),
            "truncated": truncated,
            "ids": ids,
        }
        for (length, smp, ids, truncated), res in zip(views, results, strict=True)
    ]


def _pass_at_1(rows: Sequence[dict], column: str = "passed") -> float:
    """Mean over problems of c/n: the unbiased pass@1 estimator with n samples per problem."""
    by_problem: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        by_problem[r["problem_id"]].append(r[column])
    return sum(sum(v) / len(v) for v in by_problem.values()) / len(by_problem) if by_problem else float("nan")


def summarize(
    rows: Sequence[dict],
    step: int,
    length: int,
    samples: int,
    train_length: int | None = None,
    common_length: int | None = None,
) -> dict:
    """One evals.jsonl row: pass@1 overall, by difficulty and by format, plus length and diversity.

    `train_length` / `common_length` flag the row measured at the run's current training length and
    at the sweep's common length, the one every arm shares."""
    rows = [r for r in rows if r["max_length"] == length]
    out = {
        "step": step,
        "max_length": length,
        "train_length": length == train_length,
        "common_length": length == common_length,
        "n_problems": len({r["problem_id"] for r in rows}),
        "k": samples,
        "pass@1": _pass_at_1(rows),
    }
    for judge in sorted({k.removeprefix("passed_") for r in rows for k in r if k.startswith("passed_")}):
        out[f"pass@1/judge_{judge}"] = _pass_at_1(rows, f"passed_{judge}")
    for key, values in (("difficulty", ("easy", "medium", "hard")), ("format", ("stdin", "call"))):
        for v in values:
            out[f"pass@1/{v}"] = _pass_at_1([r for r in rows if r[key] == v])
    groups: dict[str, list[list[int]]] = defaultdict(list)
    for r in rows:
        groups[r["problem_id"]].append(r["ids"])
    out["diversity"] = sum(group_diversity(g) for g in groups.values()) / max(len(groups), 1)
    out["diversity_per_sample"] = per_sample_diversity([r["ids"] for r in rows])
    out["mean_length"] = sum(r["length"] for r in rows) / max(len(rows), 1)
    out["truncated_frac"] = sum(r["truncated"] for r in rows) / max(len(rows), 1)
    return out


def evaluate(
    model,
    tokenizer,
    problems: Sequence[dict],
    evaluator: Evaluator,
    s: EvalSettings,
    step: int,
    share: SampleShare | None = None,
) -> tuple[list[dict], list[dict]]:
    """(summary rows, one per length; sample rows) for the policy at `step`."""
    samples = sample_completions(model, tokenizer, problems, s, share)
    rows = grade_samples(samples, s, tokenizer, evaluator, step, stop_ids(model, tokenizer))
    summaries = [summarize(rows, step, length, s.samples, s.train_length, s.common_length) for length in s.lengths]
    return summaries, rows
