"""collect -> process -> filter -> verify, each a resumable stage with its output on disk.

A stage folder holds problems.jsonl, drops.jsonl (one reason per dropped problem), report.json and,
written last, done.json with a key that hashes the stage's config and its upstream key. A rerun
skips a stage whose done.json matches and reruns any stage (and so every later one) that was
interrupted or whose config changed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcsweep.data import datasheet
from mcsweep.data.calibration import PassRateProvider
from mcsweep.data.collect import collect, load_source
from mcsweep.data.config import PipelineConfig, to_dict
from mcsweep.data.dedup import Drop
from mcsweep.data.difficulty import LLMJudgeScorer, OfflineScorer, Scorer, rubric_from_config
from mcsweep.data.filtering import FilterParts, filter_stage
from mcsweep.data.judge_client import ChatClient
from mcsweep.data.passrate import provider_from_config
from mcsweep.data.process import process
from mcsweep.data.schema import Problem, read_jsonl, write_jsonl, write_parquet, write_rows
from mcsweep.data.verify import spot_check

STAGES = ("collect", "process", "filter", "verify")
StageFn = Callable[[list[Problem], Path], tuple[list[Problem], list[Drop], dict[str, Any]]]


@dataclass
class StageRecord:
    name: str
    key: str
    n_in: int
    n_out: int
    drops: dict[str, int]
    report: dict[str, Any]
    skipped: bool
    problems: list[Problem] = field(repr=False, default_factory=list)


@dataclass
class Parts:
    """Injectable parts; None means "build from config" (tests and the micro world inject)."""

    evaluator: Any | None = None
    scorer: Scorer | None = None
    provider: PassRateProvider | None = None


def digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _load_done(folder: Path, key: str) -> StageRecord | None:
    done = folder / "done.json"
    if not done.exists():
        return None
    meta = json.loads(done.read_text())
    if meta.get("key") != key:
        return None
    report = json.loads((folder / "report.json").read_text())
    return StageRecord(
        folder.name, key, meta["in"], meta["out"], meta["drops"], report, True, read_jsonl(folder / "problems.jsonl")
    )


def run_stage(
    out_dir: Path, name: str, key: str, inputs: list[Problem], fn: StageFn, log: Callable[[str], None] = print
) -> StageRecord:
    folder = out_dir / name
    if (rec := _load_done(folder, key)) is not None:
        log(f"[{name}] done already ({rec.n_in} -> {rec.n_out}), skipped")
        return rec
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "done.json").unlink(missing_ok=True)
    problems, drops, report = fn(inputs, folder)
    reasons = dict(Counter(d.reason for d in drops))
    n_in = report.pop("n_in", len(inputs))
    write_jsonl(problems, folder / "problems.jsonl")
    write_rows([d.to_dict() for d in drops], folder / "drops.jsonl")
    (folder / "report.json").write_text(json.dumps(report, indent=1, default=str))
    (folder / "done.json").write_text(
        json.dumps({"key": key, "in": n_in, "out": len(problems), "drops": reasons, "finished": _now()})
    )
    log(f"[{name}] {n_in} -> {len(problems)}; dropped {reasons or 'none'}")
    return StageRecord(name, key, n_in, len(problems), reasons, report, False, problems)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _scorer(cfg: PipelineConfig) -> Scorer:
    sc = cfg.filter.scorer
    if sc.kind == "offline":
        return OfflineScorer(noise=sc.noise, seed=cfg.seed)
    if sc.kind == "llm":
        return LLMJudgeScorer(ChatClient(sc.client), rubric_from_config(cfg.filter.rubric))
    raise ValueError(f"unknown scorer kind {sc.kind!r}")


def _collect_fn(cfg: PipelineConfig) -> StageFn:
    def fn(_: list[Problem], __: Path) -> tuple[list[Problem], list[Drop], dict[str, Any]]:
        problems, drops, report = collect([dict(s) for s in cfg.collect.sources])
        return problems, drops, {**report, "n_in": sum(report["per_source"].values())}

    return fn


def _process_fn(cfg: PipelineConfig, parts: Parts) -> StageFn:
    def fn(problems: list[Problem], _: Path) -> tuple[list[Problem], list[Drop], dict[str, Any]]:
        if not cfg.process.validate.enabled or parts.evaluator is not None:
            return process(problems, cfg.process, parts.evaluator)
        from mcsweep.evaluator import Evaluator

        ev = Evaluator(**cfg.process.validate.evaluator)
        try:
            return process(problems, cfg.process, ev)
        finally:
            ev.close()

    return fn


def _filter_fn(cfg: PipelineConfig, parts: Parts) -> StageFn:
    f = cfg.filter

    def fn(problems: list[Problem], folder: Path) -> tuple[list[Problem], list[Drop], dict[str, Any]]:
        provider = parts.provider or provider_from_config(dict(f.pass_rates), cfg.process.validate.evaluator)
        raw = to_dict(cfg)["filter"]
        score_tag = digest(raw["scorer"], raw["rubric"], raw["difficulty"]["repeats"], cfg.seed)
        # A rate belongs to (policy, problem): any sample reuses it. A provider names its policy's
        # weights in `cache_tag` where its config does not (the micro policy's build key).
        rate_tag = digest(raw["pass_rates"], getattr(provider, "cache_tag", ""))
        fparts = FilterParts(
            parts.scorer or _scorer(cfg),
            rubric_from_config(f.rubric),
            provider,
            lambda: [p for s in f.test_sets for p in load_source(dict(s))],
            f"scores-{score_tag}.jsonl",
            f"pass_rates-{rate_tag}.jsonl",
        )
        return filter_stage(problems, f.quality, f.decontam, f.difficulty, fparts, folder)

    return fn


def _verify_fn(cfg: PipelineConfig) -> StageFn:
    def fn(problems: list[Problem], folder: Path) -> tuple[list[Problem], list[Drop], dict[str, Any]]:
        text, ids = spot_check(problems, cfg.verify.sample, cfg.seed, cfg.verify.tests_shown)
        (folder / "spot_check.md").write_text(text, encoding="utf-8")
        return problems, [], {"sampled": ids}

    return fn


def stage_keys(cfg: PipelineConfig) -> dict[str, str]:
    """Each key covers the stage's own config and the key before it, so changes cascade."""
    raw = to_dict(cfg)
    keys: dict[str, str] = {}
    prev = ""
    for name in STAGES:
        prev = keys[name] = digest(prev, raw[name], raw["seed"])
    return keys


def build(
    cfg: PipelineConfig, parts: Parts | None = None, force: tuple[str, ...] = (), log: Callable[[str], None] = print
) -> dict[str, StageRecord]:
    """Run (or resume) every stage, then write the dataset and its datasheet in cfg.out_dir."""
    parts = parts or Parts()
    out = Path(cfg.out_dir)
    for name in force:
        if name not in STAGES:
            raise ValueError(f"unknown stage {name!r}; one of {STAGES}")
        (out / name / "done.json").unlink(missing_ok=True)
    fns = {
        "collect": _collect_fn(cfg),
        "process": _process_fn(cfg, parts),
        "filter": _filter_fn(cfg, parts),
        "verify": _verify_fn(cfg),
    }
    keys = stage_keys(cfg)
    records: dict[str, StageRecord] = {}
    problems: list[Problem] = []
    upstream_ran = False
    for name in STAGES:
        if upstream_ran:  # new upstream output invalidates this stage even when its key matches
            (out / name / "done.json").unlink(missing_ok=True)
        records[name] = run_stage(out, name, keys[name], problems, fns[name], log)
        upstream_ran = upstream_ran or not records[name].skipped
        problems = records[name].problems
    finish(cfg, records, keys["verify"])
    return records


def finish(cfg: PipelineConfig, records: dict[str, StageRecord], key: str) -> None:
    out = Path(cfg.out_dir)
    final = records["verify"].problems
    write_jsonl(final, out / "dataset.jsonl")
    write_parquet(final, out / "dataset.parquet")
    sheet = {
        "name": cfg.name,
        "final": len(final),
        "built": _now(),
        "config_hash": key,
        "formats": dict(Counter(p.fmt for p in final)),
        "sources": records["collect"].report["per_source"],
        "final_per_source": datasheet.per_source([p.to_dict() for p in final]),
        "stages": {n: {"in": r.n_in, "out": r.n_out, "drops": r.drops} for n, r in records.items()},
        "process": records["process"].report,
        "filter": records["filter"].report,
        "config": to_dict(cfg),
    }
    (out / "datasheet.json").write_text(json.dumps(sheet, indent=1, default=str))
    (out / "datasheet.md").write_text(datasheet.render(sheet), encoding="utf-8")
