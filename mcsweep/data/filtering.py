"""Filter: quality rules, decontamination, and predict-calibrate-select difficulty.

Judge scores and measured pass rates are appended to JSONL caches inside the stage folder as they
arrive, so an interrupted filter stage resumes without paying for the finished LLM calls again.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from mcsweep.data.calibration import (
    BinCuts,
    Calibration,
    MixTarget,
    PassRateProvider,
    calibrate,
    predicted_bin,
    select_mix,
)
from mcsweep.data.decontam import DecontamConfig, decontaminate
from mcsweep.data.dedup import Drop
from mcsweep.data.difficulty import Dimension, Scorer, score_problem
from mcsweep.data.schema import DIFFICULTIES, Problem
from mcsweep.data.text import words
from mcsweep.io.jsonl import JsonlError, parse_lines


@dataclass
class QualityConfig:
    min_words: int = 8
    max_chars: int = 20000
    min_tests: int = 1
    drop_interactive: bool = True
    drop_multi_answer: bool = True
    drop_images: bool = True


_INTERACTIVE = re.compile(r"\binteractive problem\b|\bflush (?:the )?output\b", re.IGNORECASE)
_MULTI = re.compile(
    r"print any of them|output any of them|any valid answer|multiple (?:possible|valid) "
    r"answers|any (?:such|correct) answer",
    re.IGNORECASE,
)
_IMAGE = re.compile(r"<img\b|!\[[^\]]*\]\(", re.IGNORECASE)


def quality_reason(p: Problem, cfg: QualityConfig) -> str | None:
    """The first quality rule a problem breaks, or None. Exact-match graders cannot score
    multi-answer or interactive problems, and images do not reach a text-only policy."""
    checks: list[tuple[bool, str]] = [
        (len(words(p.question)) < cfg.min_words, "statement_too_short"),
        (len(p.question) > cfg.max_chars, "statement_too_long"),
        (p.n_tests < cfg.min_tests, "too_few_tests"),
        (
            cfg.drop_interactive and (bool(p.meta.get("interactive")) or bool(_INTERACTIVE.search(p.question))),
            "interactive",
        ),
        (cfg.drop_multi_answer and bool(_MULTI.search(p.question)), "multiple_answers"),
        (cfg.drop_images and bool(_IMAGE.search(p.question)), "image_in_statement"),
    ]
    return next((reason for failed, reason in checks if failed), None)


def quality(problems: list[Problem], cfg: QualityConfig) -> tuple[list[Problem], list[Drop]]:
    kept, drops = [], []
    for p in problems:
        reason = quality_reason(p, cfg)
        if reason:
            drops.append(Drop(p.id, "filter", reason))
        else:
            kept.append(p)
    return kept, drops


@dataclass
class DifficultyConfig:
    repeats: int = 3
    calibration_sample: int = 200
    heldout_frac: float = 0.3
    cuts: BinCuts = field(default_factory=BinCuts)
    mix: MixTarget = field(default_factory=MixTarget)
    relabel: bool = True
    seed: int = 0


class JsonlCache:
    """id -> record, appended line by line. A half-written last line (the run was killed while
    writing it) is cut off and recomputed; a bad line anywhere else is corruption and raises."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = {}
        lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        errors: list[JsonlError] = []
        for _, row in parse_lines(lines, path, errors):
            self.data[row["id"]] = row["value"]
        if errors and errors[0].line_no < len(lines):
            raise ValueError(f"{errors[0].where}: corrupt cache line ({errors[0].reason})") from errors[0]
        if errors:
            path.write_text("".join(ln + "\n" for ln in lines[:-1]), encoding="utf-8")

    def put(self, key: str, value: Any) -> None:
        self.data[key] = value
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"id": key, "value": value}) + "\n")


def score_all(
    problems: list[Problem], scorer: Scorer, rubric: tuple[Dimension, ...], repeats: int, cache: JsonlCache
) -> dict[str, dict[str, Any]]:
    todo = [p for p in problems if p.id not in cache.data]
    for p in tqdm(todo, desc="judge", unit="problem", disable=not todo):
        cache.put(p.id, score_problem(p, scorer, rubric, repeats))
    return {p.id: cache.data[p.id] for p in problems}


def measure(
    problems: list[Problem], provider: PassRateProvider, cfg: DifficultyConfig, cache: JsonlCache, batch: int = 32
) -> dict[str, float]:
    """Pass rates on a seeded calibration sample, in batches so progress survives interruption."""
    sample = sorted(problems, key=lambda p: p.id)
    random.Random(cfg.seed).shuffle(sample)
    sample = sample[: cfg.calibration_sample]
    todo = [p for p in sample if p.id not in cache.data]
    bar = tqdm(total=len(todo), desc="policy pass rates", unit="problem", disable=not todo)
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        rates = provider(chunk)
        missing = [p.id for p in chunk if p.id not in rates]
        if missing:
            raise ValueError(f"pass-rate provider returned no rate for {missing[:5]}")
        for p in chunk:
            cache.put(p.id, float(rates[p.id]))
        bar.update(len(chunk))
    bar.close()
    return {p.id: cache.data[p.id] for p in sample}


def histogram(labels: list[str]) -> dict[str, int]:
    """Counts per difficulty; problems without a label are counted as 'unlabeled'."""
    counts = Counter(label or "unlabeled" for label in labels)
    keys = [*DIFFICULTIES, *(["unlabeled"] if "unlabeled" in counts else [])]
    return {k: counts.get(k, 0) for k in keys}


def difficulty_select(
    problems: list[Problem], scores: dict[str, dict[str, Any]], rates: dict[str, float], cfg: DifficultyConfig
) -> tuple[list[Problem], list[Drop], dict[str, Any]]:
    flat = {pid: rec["score"] for pid, rec in scores.items()}
    calib: Calibration = calibrate(flat, rates, cfg.cuts, cfg.heldout_frac, cfg.seed)
    labels = {p.id: predicted_bin(flat[p.id], calib.thresholds) for p in problems}
    chosen, sizes = select_mix(labels, flat, cfg.mix)
    keep = set(chosen)
    kept, drops = [], []
    for p in problems:
        p.meta["difficulty_evidence"] = {
            **scores[p.id],
            "predicted": labels[p.id],
            "thresholds": list(calib.thresholds),
            "pass_rate": rates.get(p.id),
        }
        if p.id not in keep:
            drops.append(Drop(p.id, "filter", f"mix_quota_{labels[p.id]}", f"score {flat[p.id]:.2f}"))
            continue
        if cfg.relabel:
            p.meta["source_difficulty"] = p.meta.get("source_difficulty", p.difficulty)
            p.difficulty = labels[p.id]
        kept.append(p)
    report = {
        "calibration": calib.to_dict(),
        "mix_sizes": sizes,
        "predicted_before": histogram(list(labels.values())),
        "predicted_after": histogram([labels[p.id] for p in kept]),
        "source_before": histogram([p.meta.get("source_difficulty", p.difficulty) for p in problems]),
        "source_after": histogram([p.meta.get("source_difficulty", p.difficulty) for p in kept]),
    }
    return kept, drops, report


@dataclass
class FilterParts:
    """What the filter stage needs besides config: the scorer, the policy and the test sets."""

    scorer: Scorer
    rubric: tuple[Dimension, ...]
    provider: PassRateProvider
    test_sets: Callable[[], list[Problem]]
    score_cache: str = "scores.jsonl"  # named by what produced them, so a new judge starts afresh
    rate_cache: str = "pass_rates.jsonl"


def filter_stage(
    problems: list[Problem],
    quality_cfg: QualityConfig,
    decontam_cfg: DecontamConfig,
    diff_cfg: DifficultyConfig,
    parts: FilterParts,
    stage_dir: Path,
) -> tuple[list[Problem], list[Drop], dict[str, Any]]:
    good, drops = quality(problems, quality_cfg)
    tests = parts.test_sets()
    clean, contam_drops, overlaps = decontaminate(good, tests, decontam_cfg)
    drops += contam_drops
    (stage_dir / "overlaps.jsonl").write_text("".join(json.dumps(o.to_dict()) + "\n" for o in overlaps))
    score_cache = JsonlCache(stage_dir / parts.score_cache)
    scores = score_all(clean, parts.scorer, parts.rubric, diff_cfg.repeats, score_cache)
    rates = measure(clean, parts.provider, diff_cfg, JsonlCache(stage_dir / parts.rate_cache))
    kept, mix_drops, diff_report = difficulty_select(clean, scores, rates, diff_cfg)
    drops += mix_drops
    report = {
        "decontam": {
            "test_problems": len(tests),
            "overlaps": len(overlaps),
            "problems_with_overlap": len({o.train_id for o in overlaps}),
            "max_fraction": max((o.fraction for o in overlaps), default=0.0),
            "contaminated": len(contam_drops),
            "n": decontam_cfg.n,
            "min_shared": decontam_cfg.min_shared,
            "min_fraction": decontam_cfg.min_fraction,
        },
        "difficulty": diff_report,
        "rubric": [d.__dict__ for d in parts.rubric],
    }
    return kept, drops, report
