"""Process: normalise statements and test format, deduplicate, and validate tests with references.

Validation grades every reference on the whole test set first (the common all-pass case costs one
request per reference). Only problems where some reference fails are re-graded test by test; a test
is kept when at least half of the references pass it, and a reference that fails kept tests is
demoted, so one wrong reference cannot delete good tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcsweep.data.dedup import DedupConfig, Drop, dedup
from mcsweep.data.loaders import tests_from_cases
from mcsweep.data.schema import DIFFICULTIES, Problem, SchemaError, make_io
from mcsweep.data.text import clean_statement


@dataclass
class ValidateConfig:
    enabled: bool = True
    require_reference: bool = False
    evaluator: dict[str, Any] = field(
        default_factory=lambda: {"comparator": "microcoder", "workers": 2, "timeout_s": 4.0, "run_all": True}
    )


@dataclass
class ProcessConfig:
    dedup: DedupConfig = field(default_factory=DedupConfig)
    validate: ValidateConfig = field(default_factory=ValidateConfig)
    min_tests: int = 5
    drop_too_few: bool = False


def normalise(p: Problem) -> Problem | Drop:
    """Clean text and re-encode tests in LCB's two formats; unparseable tests are a drop, not a crash."""
    question = clean_statement(p.question)
    if not question:
        return Drop(p.id, "process", "empty_statement")
    try:
        raw = json.loads(p.input_output)
        inputs, outputs, fn_name = tests_from_cases(raw, raw.get("fn_name"), p.id)
    except (SchemaError, json.JSONDecodeError, AttributeError, ValueError) as exc:
        return Drop(p.id, "process", "bad_tests", str(exc)[:200])
    if not inputs:
        return Drop(p.id, "process", "no_tests")
    meta = {**p.meta, "format": "call" if fn_name else "stdin"}
    difficulty = p.difficulty.lower().strip()
    if difficulty not in DIFFICULTIES:
        meta["source_difficulty"], difficulty = p.difficulty, ""
    return Problem(
        **{
            **p.to_dict(),
            "question": question,
            "difficulty": difficulty,
            "meta": meta,
            "input_output": make_io(inputs, outputs, fn_name),
        }
    )


def _single(p: Problem, i: int) -> str:
    io = p.tests
    return make_io([io["inputs"][i]], [io["outputs"][i]], io.get("fn_name"))


def _grade(evaluator: Any, jobs: list[tuple[str, str, str]]) -> dict[str, Any]:
    from mcsweep.evaluator import GradeRequest

    requests = [GradeRequest(id=rid, code=code, input_output=io) for rid, code, io in jobs]
    return {req.id: res for req, res in zip(requests, evaluator.grade_many(requests), strict=True)}


def _per_test(p: Problem, whole: dict[str, Any], evaluator: Any) -> list[list[bool]]:
    """passes[r][t]: does reference r pass test t. An evaluator built with run_all=True already
    reports every test; otherwise (it stops at the first failure) each test is graded alone."""
    refs = p.references
    results = [whole[f"{p.id}#{r}"] for r in range(len(refs))]
    if all(len(res.tests) == p.n_tests for res in results):
        ordered = [sorted(res.tests, key=lambda t: t.index) for res in results]
        return [[t.verdict == "accepted" for t in tests] for tests in ordered]
    jobs = [(f"{r}:{t}", refs[r], _single(p, t)) for r in range(len(refs)) for t in range(p.n_tests)]
    res = _grade(evaluator, jobs)
    return [[bool(res[f"{r}:{t}"].passed) for t in range(p.n_tests)] for r in range(len(refs))]


def repair(p: Problem, passes: list[list[bool]]) -> tuple[Problem, dict[str, Any]]:
    """Keep majority-passed tests; make a reference that passes all kept tests the primary one."""
    n_refs = len(passes)
    keep = [
        t for t in range(p.n_tests) if 2 * sum(row[t] for row in passes) >= n_refs and any(row[t] for row in passes)
    ]
    good = [r for r in range(n_refs) if all(passes[r][t] for t in keep)]
    io = p.tests
    refs = p.references
    evidence = {
        "dropped_tests": [t for t in range(p.n_tests) if t not in keep],
        "bad_references": [r for r in range(n_refs) if r not in good],
        "n_references": n_refs,
    }
    if not keep or not good:
        return p, evidence
    ordered = [refs[r] for r in good]
    fixed = Problem(
        **{
            **p.to_dict(),
            "reference": ordered[0],
            "input_output": make_io(
                [io["inputs"][t] for t in keep], [io["outputs"][t] for t in keep], io.get("fn_name")
            ),
            "meta": {**p.meta, "references": ordered[1:]},
        }
    )
    return fixed, evidence


def _ref_jobs(p: Problem) -> list[tuple[str, str, str]]:
    return [(f"{p.id}#{r}", code, p.input_output) for r, code in enumerate(p.references)]


def _grade_references(problems: list[Problem], evaluator: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """One batch for speed; if the evaluator rejects a malformed problem, isolate it per problem."""
    from mcsweep.evaluator import ProblemFormatError

    try:
        return _grade(evaluator, [job for p in problems for job in _ref_jobs(p)]), {}
    except ProblemFormatError:
        pass
    whole: dict[str, Any] = {}
    malformed: dict[str, str] = {}
    for p in problems:
        try:
            whole.update(_grade(evaluator, _ref_jobs(p)))
        except ProblemFormatError as exc:
            malformed[p.id] = str(exc)[:200]
    return whole, malformed


def validate(problems: list[Problem], evaluator: Any, cfg: ProcessConfig) -> tuple[list[Problem], list[Drop]]:
    whole, malformed = _grade_references([p for p in problems if p.references], evaluator)
    kept: list[Problem] = []
    drops: list[Drop] = []
    for p in problems:
        if p.id in malformed:
            drops.append(Drop(p.id, "process", "bad_tests", malformed[p.id]))
            continue
        if not p.references:
            if cfg.validate.require_reference:
                drops.append(Drop(p.id, "process", "no_reference"))
                continue
            p.meta["validation"] = {"status": "unvalidated"}
            kept.append(p)
            continue
        verdicts = [whole[f"{p.id}#{r}"].verdict for r in range(len(p.references))]
        if all(v == "accepted" for v in verdicts):
            p.meta["validation"] = {"status": "accepted", "verdicts": verdicts, "dropped_tests": []}
            kept.append(p)
            continue
        fixed, evidence = repair(p, _per_test(p, whole, evaluator))
        evidence.update(status="repaired", verdicts=verdicts)
        if fixed is p:
            drops.append(Drop(p.id, "process", "references_fail_tests", f"verdicts {verdicts}"))
            continue
        fixed.meta["validation"] = evidence
        kept.append(fixed)
    return kept, drops


def flag_few_tests(problems: list[Problem], cfg: ProcessConfig) -> tuple[list[Problem], list[Drop]]:
    kept, drops = [], []
    for p in problems:
        if p.n_tests < cfg.min_tests:
            p.meta.setdefault("flags", []).append("too_few_tests")
            if cfg.drop_too_few:
                drops.append(Drop(p.id, "process", "too_few_tests", f"{p.n_tests} < {cfg.min_tests}"))
                continue
        kept.append(p)
    return kept, drops


def process(
    problems: list[Problem], cfg: ProcessConfig, evaluator: Any | None = None
) -> tuple[list[Problem], list[Drop], dict[str, Any]]:
    drops: list[Drop] = []
    normal: list[Problem] = []
    for p in problems:
        out = normalise(p)
        (drops if isinstance(out, Drop) else normal).append(out)  # type: ignore[arg-type]
    unique, dup_drops = dedup(normal, cfg.dedup)
    drops += dup_drops
    if cfg.validate.enabled:
        if evaluator is None:
            raise ValueError("process.validate.enabled needs an evaluator")
        unique, val_drops = validate(unique, evaluator, cfg)
        drops += val_drops
    final, few_drops = flag_few_tests(unique, cfg)
    drops += few_drops
    report = {
        "exact_duplicates": sum(d.reason == "exact_duplicate" for d in drops),
        "near_duplicates": sum(d.reason == "near_duplicate" for d in drops),
        "dedup_threshold": cfg.dedup.threshold,
        "repaired": sum(p.meta.get("validation", {}).get("status") == "repaired" for p in final),
        "unvalidated": sum(p.meta.get("validation", {}).get("status") == "unvalidated" for p in final),
        "flagged_too_few_tests": sum("too_few_tests" in p.meta.get("flags", []) for p in final),
        "tests_dropped": sum(len(p.meta.get("validation", {}).get("dropped_tests", [])) for p in final),
    }
    return final, drops, report
