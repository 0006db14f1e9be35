"""Each axis's mechanism in the micro world, measured on its data and on the step-0 policy.

The study's effects come from mechanisms: correct answers a strict judge rejects (evaluator),
reasoning that outgrows short contexts (context, masking), a temperature that moves diversity
(temperature) and training sets of different difficulty (data). These functions measure each one,
for the datasheet that `python -m mcsweep.micro stats` writes.
"""

from __future__ import annotations

import logging
import math
import random
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mcsweep.algo.diversity import group_diversity
from mcsweep.algo.truncation_mask import NON_INCORRECT_VERDICTS, is_repeat, is_truncated
from mcsweep.evaluator import Evaluator, GradeRequest
from mcsweep.micro import arithmetic
from mcsweep.micro.problems import DIFFICULTIES, Step, WorldSpec, out_type, problem_completion
from mcsweep.micro.world import problem_set
from mcsweep.train.evaluation import EvalSettings, Sample, sample_completions, stop_ids

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Graded:
    """One response (or its prefix at one length) with both judges' verdicts."""

    problem: dict
    index: int
    length: int
    ids: list[int]
    truncated: bool
    verdict: str
    robust: bool
    strict: bool


def evaluator() -> Evaluator:
    """The default run's judge (microcoder) with the strict one as its shadow."""
    return Evaluator(comparator="microcoder", workers=2, shadow_comparators=("livecodebench",))


def grade(samples: Sequence[Sample], lengths: Sequence[int], tokenizer, stops: Sequence[int], ev: Evaluator):
    """Every sample cut at every length, graded by both judges."""
    views = [(length, s, s.ids[:length]) for length in lengths for s in samples]
    texts = [tokenizer.decode(ids, skip_special_tokens=True) for _, _, ids in views]
    requests = [
        GradeRequest(id=str(n), completion=text, input_output=s.problem["input_output"])
        for n, (text, (_, s, _)) in enumerate(zip(texts, views, strict=True))
    ]
    results = ev.grade_many(requests)
    return [
        Graded(s.problem, s.index, length, ids, is_truncated(ids, stops), r.verdict, r.passed, _strict(r))
        for (length, s, ids), r in zip(views, results, strict=True)
    ]


def _strict(result) -> bool:
    return result.shadow["livecodebench"]


def _per_problem(rows: Sequence[Graded], strict: bool = False) -> list[float]:
    """Each problem's share of samples judged correct."""
    by: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        by[r.problem["id"]].append(r.strict if strict else r.robust)
    return [sum(v) / len(v) for v in by.values()]


def pass_at_1(rows: Sequence[Graded], strict: bool = False) -> float:
    """Mean over problems of the share of their samples judged correct."""
    shares = _per_problem(rows, strict)
    return statistics.fmean(shares) if shares else float("nan")


def eval_noise(rows: Sequence[Graded], target: float = 0.015) -> dict:
    """An evaluation's own noise: the standard error of pass@1 over its problems (their spread, with the
    sampling noise of their samples), and the number of problems that brings it to `target`."""
    shares = _per_problem(rows)
    var = statistics.variance(shares)
    return {"se": math.sqrt(var / len(shares)), "target": target, "n_for_target": math.ceil(var / target**2)}


def _share(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def strict_rejection(rows: Sequence[Graded]) -> dict:
    """Of the answers the robust judge accepts, the share the strict one rejects, by answer type."""
    out: dict = {"all": _share([not r.strict for r in rows if r.robust]), "n_correct": sum(r.robust for r in rows)}
    for kind in ("L", "I", "F", "P", "S"):
        for fmt in ("stdin", "call"):
            part = [not r.strict for r in rows if r.robust and _kind(r.problem) == (kind, fmt)]
            if part:
                out[f"{kind}/{fmt}"] = _share(part)
    return out


def _kind(problem: dict) -> tuple[str, str]:
    chain = [Step(op, k) for op, k in problem["meta"]["chain"]]
    return out_type(chain), problem["meta"]["format"]


def truncation(rows: Sequence[Graded], repeat_window: int) -> list[dict]:
    """Per length and difficulty: truncated share, and the share the conditional mask may act on
    (truncated, no gradable answer, not a loop at the cut)."""
    no_answer = NON_INCORRECT_VERDICTS["no_answer"]
    table = []
    for length in sorted({r.length for r in rows}):
        for level in (*DIFFICULTIES, "all"):
            part = [r for r in rows if r.length == length and level in (r.problem["difficulty"], "all")]
            if not part:
                continue
            cut = [r for r in part if r.truncated]
            maskable = [r for r in cut if r.verdict in no_answer and not is_repeat(r.ids, repeat_window)]
            table.append(
                {
                    "length": length,
                    "difficulty": level,
                    "n": len(part),
                    "truncated": len(cut) / len(part),
                    "truncated_no_answer": sum(r.verdict in no_answer for r in cut) / len(part),
                    "maskable": len(maskable) / len(part),
                    "pass@1": pass_at_1(part),
                }
            )
    return table


def reasoning(rows: Sequence[Graded], decode: Callable[[list[int]], str]) -> list[dict]:
    """World 3's reasoning that pays, per difficulty and reasoning form (constants worked out step by
    step, written at once, or none to write): share of responses, mean tokens, the share whose
    one-term steps are all right, and pass@1. Measured uncut (the longest length), so that what the
    form costs in tokens and what it buys in accuracy show apart from truncation."""
    longest = max(r.length for r in rows)
    texts = [(r, decode(r.ids)) for r in rows if r.length == longest]
    typed = [(r, text, arithmetic.reasoning_form(text)) for r, text in texts]
    table = []
    for level in (*DIFFICULTIES, "all"):
        part = [t for t in typed if level in (t[0].problem["difficulty"], "all")]
        for form in arithmetic.FORMS:
            rows_form = [(r, text) for r, text, f in part if f == form]
            if rows_form:
                table.append(
                    {
                        "difficulty": level,
                        "form": form,
                        "share": len(rows_form) / len(part),
                        "mean_tokens": statistics.fmean(len(r.ids) for r, _ in rows_form),
                        "steps_right": _share([arithmetic.steps_correct(text) for _, text in rows_form]),
                        "accuracy": _share([r.robust for r, _ in rows_form]),
                    }
                )
    return table


def diversity(samples: Sequence[Sample]) -> float:
    """The study's D: unique/total 4-grams over each prompt's samples, averaged over prompts."""
    groups: dict[str, list[list[int]]] = defaultdict(list)
    for s in samples:
        groups[s.problem["id"]].append(s.ids)
    return statistics.fmean(group_diversity(g) for g in groups.values())


def policy_samples(model, tokenizer, problems: Sequence[dict], samples: int, temperature: float, length: int):
    settings = EvalSettings(samples=samples, temperature=temperature, lengths=(length,), prompts_per_batch=8)
    return sample_completions(model, tokenizer, problems, settings)


def temperature_row(model, tokenizer, problems, group: int, temperature: float, length: int, ev) -> dict:
    samples = policy_samples(model, tokenizer, problems, group, temperature, length)
    rows = grade(samples, [length], tokenizer, stop_ids(model, tokenizer), ev)
    return {
        "temperature": temperature,
        "diversity": diversity(samples),
        "pass@1": pass_at_1(rows),
        "truncated": _share([r.truncated for r in rows]),
        "mean_length": statistics.fmean(len(s.ids) for s in samples),
    }


STUDY_COLLAPSE = 2.0  # T1: the study's base policy stops evaluating stably at about t = 2.0 (fig 7_2)
COLLAPSE_SHARE = 0.05  # "collapsed": pass@1 under this share of the best probed temperature's


def temperature_unit(rows: Sequence[dict]) -> dict:
    """Where the step-0 policy collapses (the lowest probed temperature whose pass@1 falls under
    `COLLAPSE_SHARE` of the best probed one's) and the unit that maps the study's temperatures onto
    this policy's (collapse / `STUDY_COLLAPSE`): the measurement behind `temperature.unit`."""
    best = max(r["pass@1"] for r in rows)
    collapsed = [r["temperature"] for r in rows if r["pass@1"] < COLLAPSE_SHARE * best]
    collapse = min(collapsed) if collapsed else None
    unit = None if collapse is None else round(collapse / STUDY_COLLAPSE, 3)
    return {"collapse": collapse, "study_collapse": STUDY_COLLAPSE, "share": COLLAPSE_SHARE, "unit": unit}


def data_stats(spec: WorldSpec, tokenizer, n_sft: int, lengths: Sequence[int], ev: Evaluator) -> dict:
    """The warm-start data itself: every completion correct, the strict-rejected share, lengths."""
    rng = random.Random("stats")
    problems = problem_set("sft", spec, n_sft)
    texts = [problem_completion(p, rng, spec.version) for p in problems]
    results = ev.grade_many(
        GradeRequest(id=p["id"], completion=t, input_output=p["input_output"])
        for p, t in zip(problems, texts, strict=True)
    )
    rows = [Graded(p, 0, 0, [], False, r.verdict, r.passed, _strict(r)) for p, r in zip(problems, results, strict=True)]
    n_tokens = [len(ids) + 1 for ids in tokenizer(texts).input_ids]  # + the end token
    by_level = {
        level: sorted(n for n, p in zip(n_tokens, problems, strict=True) if p["difficulty"] == level)
        for level in DIFFICULTIES
    }
    return {
        "n": len(problems),
        "robust_correct": _share([r.robust for r in rows]),
        "strict_rejection": strict_rejection(rows),
        "lengths": {
            level: {
                "mean": statistics.fmean(v),
                "p50": v[len(v) // 2],
                "p90": v[int(0.9 * len(v))],
                **{f">{L}": sum(n > L for n in v) / len(v) for L in lengths},
            }
            for level, v in by_level.items()
            if v
        },
    }


def set_stats(spec: WorldSpec, names: Sequence[str]) -> dict:
    """Difficulty and answer-type mix of each named set, whole (the data axis's easy vs hard)."""
    out = {}
    for name in names:
        problems = problem_set(name, spec)
        out[name] = {
            "n": len(problems),
            **{level: sum(p["difficulty"] == level for p in problems) / len(problems) for level in DIFFICULTIES},
            "answer_ops": sum(_kind(p)[0] in "FPS" for p in problems) / len(problems),
        }
    return out


def _configs(overrides: Sequence[str]):
    """The run's config, and the training lengths of the context axis's short/mid/long options."""
    from mcsweep.gpu.__main__ import compose_run_config

    cfg = compose_run_config(list(overrides))
    contexts = [compose_run_config([*overrides, f"context={c}"]).context for c in ("short", "mid", "long")]
    lengths = sorted({c.max_completion_length for c in contexts} | set(cfg.context.eval_lengths))
    return cfg, lengths


def build_tokenizer(spec):
    """The tokenizer the policy build trains (same texts, same settings), without training a model."""
    from mcsweep.micro.policy import _render, train_tokenizer
    from mcsweep.micro.world import sft_examples

    examples = sft_examples(spec.world, spec.sft_steps * spec.sft_batch, spec.seed)
    return train_tokenizer([_render(e) for e in examples], spec.vocab_size)


def measure_all(args) -> dict:
    """Every measurement of the datasheet (see `python -m mcsweep.micro`); with `args.data_only`,
    only the data's, so that a world can be checked before its policy is built."""
    from mcsweep.train.run import load_policy, policy_spec

    cfg, lengths = _configs(args.overrides)
    spec = policy_spec(cfg)
    out: dict = {
        "world_version": spec.world.version,
        "policy_key": spec.key(),
        "overrides": list(args.overrides),
        "lengths": lengths,
        "train_length": cfg.context.max_completion_length,
        "train_temperature": round(cfg.temperature.sampled_value, 4),
        "temperature_config_unit": cfg.temperature.unit,
        "eval_temperature": cfg.train.eval_temperature,
        "group_size": cfg.batch.group_size,
        "sets": set_stats(spec.world, ("sft", "easy", "hard", "test")),
    }
    model, tokenizer = (None, build_tokenizer(spec)) if args.data_only else load_policy(cfg)
    with evaluator() as ev:
        log.info("warm-start data: %d SFT completions graded by both judges", args.n_sft)
        out["data"] = data_stats(spec.world, tokenizer, args.n_sft, lengths, ev)
        if model is not None:
            out.update(policy_stats(cfg, spec.world, model, tokenizer, lengths, args, ev))
    return out


def policy_stats(cfg, world: WorldSpec, model, tokenizer, lengths: Sequence[int], args, ev: Evaluator) -> dict:
    """The step-0 policy: test pass@1 and strict rejections, truncation, temperature, training sets."""
    stops, train_len = stop_ids(model, tokenizer), cfg.context.max_completion_length
    out: dict = {}
    test = problem_set(cfg.data.test_set, world, args.n_test)
    log.info("test set: %d problems x %d samples at %s tokens", len(test), args.samples, lengths)
    samples = policy_samples(model, tokenizer, test, args.samples, cfg.train.eval_temperature, max(lengths))
    rows = grade(samples, lengths, tokenizer, stops, ev)
    out["test"] = {
        "n_problems": len(test),
        "samples": args.samples,
        "pass@1": {L: pass_at_1([r for r in rows if r.length == L]) for L in lengths},
        "pass@1_strict": {L: pass_at_1([r for r in rows if r.length == L], strict=True) for L in lengths},
        "strict_rejection": {L: strict_rejection([r for r in rows if r.length == L]) for L in lengths},
        "truncation": truncation(rows, cfg.context.repeat_window),
        "noise": eval_noise([r for r in rows if r.length == train_len]),
    }
    if world.version >= 3:
        out["test"]["reasoning"] = reasoning(rows, lambda ids: tokenizer.decode(ids, skip_special_tokens=True))
    group = cfg.batch.group_size
    log.info("temperatures %s: %d problems x G=%d each", args.temperatures, args.n_temperature, group)
    out["temperature"] = [
        temperature_row(model, tokenizer, test[: args.n_temperature], group, t, train_len, ev)
        for t in args.temperatures
    ]
    out["temperature_unit"] = temperature_unit(out["temperature"])
    out["train_sets"] = {}
    for name in ("easy", "hard"):
        log.info("training set %s: %d problems x %d samples", name, args.n_set, args.samples)
        problems = problem_set(name, world, args.n_set)
        set_samples = policy_samples(model, tokenizer, problems, args.samples, cfg.temperature.sampled_value, train_len)
        set_rows = grade(set_samples, [train_len], tokenizer, stops, ev)
        out["train_sets"][name] = {
            "n_problems": len(problems),
            "pass@1": pass_at_1(set_rows),
            "pass@1_strict": pass_at_1(set_rows, strict=True),
            "truncated": _share([r.truncated for r in set_rows]),
        }
    return out
