"""The whole pipeline on a small pool: stage counts, datasheet, resume after interruption, CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from datafix import POOL_IO, _pool_problem, chain_rate_provider

from mcsweep.data.config import PipelineConfig, load_config
from mcsweep.data.difficulty import OfflineScorer
from mcsweep.data.filtering import JsonlCache
from mcsweep.data.pipeline import Parts, build
from mcsweep.data.schema import Problem, read_jsonl

HERE = Path(__file__).parent


def _config(tmp_path: Path, out: str = "out") -> Path:
    fillers = [
        {
            "id": f"filler-{i}",
            "question": f"Given a list of integers, count the values equal to {i}. {POOL_IO}",
            "input_output": json.dumps({"inputs": ["1\n1\n"], "outputs": ["1\n"]}),
        }
        for i in range(30)
    ]  # shared template text is boilerplate, not contamination
    tests = [*fillers, _pool_problem(900, (0, 1, 2)) | {"id": "test-copy"}]
    (tmp_path / "tests.jsonl").write_text("".join(json.dumps(r) + "\n" for r in tests))
    (tmp_path / "extra.jsonl").write_text(json.dumps(_pool_problem(900, (0, 1, 2)) | {"id": "leak"}) + "\n")
    cfg = {
        "name": "fixture-hard",
        "out_dir": str(tmp_path / out),
        "seed": 0,
        "collect": {
            "sources": [
                {"kind": "callable", "target": "datafix:make_pool", "kwargs": {"n": 90}},
                {"kind": "file", "path": str(tmp_path / "extra.jsonl")},
            ]
        },
        "process": {"min_tests": 5, "validate": {"evaluator": {"workers": 2, "timeout_s": 2.0, "run_all": True}}},
        "filter": {
            "test_sets": [{"kind": "file", "path": str(tmp_path / "tests.jsonl")}],
            "decontam": {"n": 13, "min_shared": 3},
            "difficulty": {"calibration_sample": 60, "heldout_frac": 0.3},
            "pass_rates": {"kind": "callable", "target": "datafix:chain_rate_provider"},
        },
        "verify": {"sample": 5},
    }
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


class FlakyScorer(OfflineScorer):
    """Fails after `budget` problems, like a judge server going away mid-stage."""

    def __init__(self, budget: int | None) -> None:
        super().__init__()
        object.__setattr__(self, "calls", [])
        object.__setattr__(self, "budget", budget)

    def score(self, problem: Problem, repeat: int) -> dict[str, float]:
        if repeat == 0:
            self.calls.append(problem.id)
            if self.budget is not None and len(self.calls) > self.budget:
                raise ConnectionError("judge went away")
        return super().score(problem, repeat)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[PipelineConfig, dict[str, Any]]:
    cfg = load_config(_config(tmp_path_factory.mktemp("full")))
    return cfg, build(cfg, log=lambda _: None)


def test_stage_counts_chain_and_every_drop_has_a_reason(built: tuple[PipelineConfig, dict[str, Any]]) -> None:
    cfg, records = built
    out = Path(cfg.out_dir)
    assert records["collect"].n_in == 91
    for before, after in zip(("collect", "process", "filter"), ("process", "filter", "verify"), strict=True):
        assert records[before].n_out == records[after].n_in
    for name, rec in records.items():
        drops = [json.loads(x) for x in (out / name / "drops.jsonl").read_text().splitlines()]
        assert len(drops) == rec.n_in - rec.n_out == sum(rec.drops.values())
        assert all(d["reason"] for d in drops)
    assert records["process"].drops.get("near_duplicate", 0) > 0
    contaminated = [
        json.loads(x)["id"]
        for x in (out / "filter" / "drops.jsonl").read_text().splitlines()
        if json.loads(x)["reason"] == "contaminated"
    ]
    assert "leak" in contaminated and len(contaminated) < 5  # "leak" copies the test problem
    assert "mix_quota_easy" in records["filter"].drops


def test_final_mix_and_datasheet(built: tuple[PipelineConfig, dict[str, Any]]) -> None:
    cfg, records = built
    out = Path(cfg.out_dir)
    final = read_jsonl(out / "dataset.jsonl")
    n = len(final)
    assert n == records["verify"].n_out > 0
    assert sum(p.difficulty == "easy" for p in final) < 0.25 * n
    assert sum(p.difficulty == "hard" for p in final) > 0.5 * n
    sheet = (out / "datasheet.md").read_text()
    for section in (
        "## Counts per stage",
        "## Difficulty histogram",
        "## Calibration",
        "## Decontamination",
        "## Deduplication",
        "## Sources",
    ):
        assert section in sheet
    calib = records["filter"].report["difficulty"]["calibration"]
    assert calib["heldout"]["spearman"] > 0.5  # chain length drives both the score and the pass rate
    spot = (out / "verify" / "spot_check.md").read_text()
    assert spot.count("\n## ") == 5 and "**Reference verdict**: `accepted`" in spot
    assert (out / "dataset.parquet").exists()


def test_resume_after_interrupted_filter(tmp_path: Path) -> None:
    cfg = load_config(_config(tmp_path))
    parts = Parts(scorer=FlakyScorer(budget=10), provider=chain_rate_provider())
    with pytest.raises(ConnectionError):
        build(cfg, parts, log=lambda _: None)
    out = Path(cfg.out_dir)
    assert (out / "process" / "done.json").exists() and not (out / "filter" / "done.json").exists()
    (cache,) = (out / "filter").glob("scores-*.jsonl")
    assert len(cache.read_text().splitlines()) == 10
    again = FlakyScorer(budget=None)
    records = build(cfg, Parts(scorer=again, provider=chain_rate_provider()), log=lambda _: None)
    assert records["collect"].skipped and records["process"].skipped and not records["filter"].skipped
    assert len(again.calls) == records["filter"].n_in - records["filter"].drops["contaminated"] - 10
    fresh = load_config(_config(tmp_path, "fresh"))
    build(fresh, Parts(provider=chain_rate_provider()), log=lambda _: None)
    assert read_jsonl(out / "dataset.jsonl") == read_jsonl(Path(fresh.out_dir) / "dataset.jsonl")


def test_config_change_reruns_only_downstream(tmp_path: Path) -> None:
    path = _config(tmp_path)
    build(load_config(path), log=lambda _: None)
    records = build(load_config(path, ["filter.difficulty.mix.max_easy=0.1"]), log=lambda _: None)
    assert [r.skipped for r in records.values()] == [True, True, False, False]


def test_cli_builds_then_skips(tmp_path: Path) -> None:
    path = _config(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "mcsweep.data", "build", "--config", str(path), "verify.sample=3"]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    assert "[filter]" in first.stdout and "datasheet:" in first.stdout
    second = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert second.stdout.count("skipped") == 4


def test_cache_cuts_a_half_written_last_line_and_refuses_corruption(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "a", "value": 1}\n{"id": "b", "val')
    cache = JsonlCache(path)
    cache.put("c", 3)
    assert JsonlCache(path).data == {"a": 1, "c": 3}
    path.write_text('{"id": "a", "val\n{"id": "b", "value": 2}\n')
    with pytest.raises(ValueError, match=r"c\.jsonl:1: corrupt"):
        JsonlCache(path)


def test_pass_rates_are_measured_again_for_another_policy(tmp_path: Path) -> None:
    cfg = load_config(_config(tmp_path))
    calls: list[str] = []

    def provider(tag: str) -> Any:
        rates = chain_rate_provider()

        def provide(problems: list[Problem]) -> dict[str, float]:
            calls.extend([tag] if problems else [])
            return rates(problems)

        provide.cache_tag = tag  # type: ignore[attr-defined]
        return provide

    build(cfg, Parts(provider=provider("policy-a")), log=lambda _: None)
    batches = len(calls)
    build(cfg, Parts(provider=provider("policy-a")), force=("filter",), log=lambda _: None)
    assert len(calls) == batches  # same policy: the cached rates are reused
    build(cfg, Parts(provider=provider("policy-b")), force=("filter",), log=lambda _: None)
    assert calls == ["policy-a"] * batches + ["policy-b"] * batches
    assert len(list((Path(cfg.out_dir) / "filter").glob("pass_rates-*.jsonl"))) == 2
