"""The validating sweeper, run for real on the tiny app (tests/launch/app) with the local launcher."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

POINT = re.compile(r"point #(\d+) (.+?)  run ([0-9a-f]{12})  (new|done|partial)")


def _points(output: str) -> dict[str, tuple[str, str]]:
    """label -> (run id, status) from the sweeper's plan."""
    return {m[2]: (m[3], m[4]) for m in POINT.finditer(output)}


def _plan(tiny_app, runs: Path, *overrides: str) -> dict[str, tuple[str, str]]:
    out = tiny_app(runs, *overrides, "hydra.sweeper.dry_run=true")
    assert out.returncode == 0, out.stdout + out.stderr
    return _points(out.stdout + out.stderr)


def _results(runs: Path) -> dict[int, dict]:
    found = (json.loads(p.read_text()) for p in runs.glob("*/*/result.json"))
    return {r["x"]: r for r in found}


@pytest.mark.parametrize("flag", ["hydra.sweeper.dry_run=true", "+dry_run=true"])
def test_dry_run_prints_points_ids_status_and_launches_nothing(tmp_path: Path, tiny_app, flag: str) -> None:
    out = tiny_app(tmp_path, "+sweep=xs", flag)
    assert out.returncode == 0, out.stderr
    points = _points(out.stdout + out.stderr)
    # The sweep file's hydra.sweeper.params expand like BasicSweeper's: 3 x values times 2 temperatures.
    assert sorted(points) == sorted(f"x={x} temperature={t}" for x in (1, 2, 3) for t in ("low", "high"))
    assert len({rid for rid, _ in points.values()}) == 6
    assert {status for _, status in points.values()} == {"new"}
    assert "dry run: 6 points, nothing launched" in out.stderr + out.stdout
    assert not (tmp_path / "xs").exists()


def test_a_fixed_seed_still_names_the_point(tmp_path: Path, tiny_app) -> None:
    """A campaign runs a sweep one seed at a time: the seed is in each point's label, though it does not vary."""
    points = _plan(tiny_app, tmp_path, "+sweep=xs", "seed=3", "x=1")
    assert sorted(points) == ["temperature=high seed=3", "temperature=low seed=3"]  # x=1 fixed: not named


def test_one_bad_point_launches_nothing_and_names_point_and_key(tmp_path: Path, tiny_app) -> None:
    out = tiny_app(tmp_path, "x=1,2", "temperature=low,bad")
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "2 of 4 points are invalid; nothing was launched" in text
    assert "point #1 [x=1 temperature=bad]: ValueError: temperature.value: must be > 0" in text
    assert "point #3 [x=2 temperature=bad]" in text
    assert not (tmp_path / "tiny").exists(), "a good point was launched despite a bad one"


def test_local_launcher_runs_points_in_parallel_and_rerun_launches_nothing(tmp_path: Path, tiny_app) -> None:
    first = tiny_app(tmp_path, "x=1,2", "sleep_s=3")
    assert first.returncode == 0, first.stderr
    results = _results(tmp_path)
    assert sorted(results) == [1, 2]
    a, b = results[1], results[2]
    if len(os.sched_getaffinity(0)) >= 2:
        assert a["start"] < b["end"] and b["start"] < a["end"], "points ran one after the other"
    assert {r["omp"] for r in results.values()} == {"1"}, "each point must get one thread"
    stamps = {p: p.stat().st_mtime_ns for p in tmp_path.glob("tiny/*/result.json")}

    again = tiny_app(tmp_path, "x=1,2", "sleep_s=3")
    assert again.returncode == 0, again.stderr
    assert "all 2 points are done; nothing launched" in again.stdout + again.stderr
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps


@pytest.mark.parametrize("launcher", ["local", "submitit_local"])
def test_failed_point_is_named_others_finish_and_status_follows_run_store(
    tmp_path: Path, tiny_app, launcher: str
) -> None:
    out = tiny_app(tmp_path, f"launcher={launcher}", "x=1,2", "fail_x=2")
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert re.search(
        r"1 of 2 launched points failed.*\n  point #1 \[x=2\] run [0-9a-f]{12}: "
        r"ValueError: task failed on purpose for x=2",
        text,
    ), text
    assert sorted(_results(tmp_path)) == [1]

    plan = _plan(tiny_app, tmp_path, f"launcher={launcher}", "x=1,2", "fail_x=2")
    assert [plan["x=1"][1], plan["x=2"][1]] == ["done", "new"]  # failed without a checkpoint
    (tmp_path / "tiny" / plan["x=2"][0] / "checkpoints" / "checkpoint-3").mkdir(parents=True)
    plan = _plan(tiny_app, tmp_path, "x=1,2", "fail_x=2")  # the launcher does not change run ids
    assert plan["x=2"][1] == "partial"
