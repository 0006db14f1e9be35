"""scripts/micro_report.sh in its dry-run mode: every point of a campaign composed and validated, each
arm with the seeds asked for, nothing launched (the real script is what a campaign runs)."""

from __future__ import annotations

import os
import re
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not (ROOT / ".venv/bin/python").exists(), reason="the script runs the project's .venv")
@pytest.mark.parametrize("experiment", ["micro_campaign", "micro_campaign3"])
def test_campaign_dry_run_lists_every_arm_with_three_seeds(tmp_path, experiment):
    env = {**os.environ, "DRY_RUN": "1", "EXPERIMENT": experiment, "SEEDS": "0,1,2"}
    env["MCSWEEP_RUNS"] = str(tmp_path)
    # Not the committed campaigns/micro_campaign/: its archived runs would be restored as done.
    env["ARCHIVE"] = str(tmp_path / "no_archive")
    out = subprocess.run(
        ["bash", "scripts/micro_report.sh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    points = re.findall(r"point #\d+ (.*?)  run ([0-9a-f]{12})  new", out.stdout + out.stderr)
    seeds = defaultdict(set)
    for overrides, _ in points:
        seeds[re.sub(r" ?seed=\d", "", overrides)].add(re.search(r"seed=(\d)", overrides).group(1))
    # 10 sweeps and the dataset pipeline's data arm: 32 arms, 3 seeds each, 96 runs. Listed by their
    # swept keys, staged 0.6 -> 1.8 is in two sweeps, and the seeds sweep and the pipeline arm sweep
    # nothing but the seed, so 30 distinct listings.
    assert len(points) == 96 and len({run for _, run in points}) == 96
    assert len(seeds) == 30 and all(s == {"0", "1", "2"} for s in seeds.values())
    assert not list(tmp_path.glob("*/*/run_card.json"))  # nothing launched


@pytest.mark.skipif(not (ROOT / ".venv/bin/python").exists(), reason="the script runs the project's .venv")
def test_a_failing_unit_is_named_and_the_others_still_run(tmp_path):
    """A bad seed fails its units (each one's error printed); the queue goes on to the rest, and the
    script ends with the failed units listed and a non-zero status."""
    env = {**os.environ, "DRY_RUN": "1", "SEEDS": "0,x", "MCSWEEP_RUNS": str(tmp_path)}
    env["ARCHIVE"] = str(tmp_path / "no_archive")
    out = subprocess.run(
        ["bash", "scripts/micro_report.sh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    text = out.stdout + out.stderr
    assert out.returncode == 1, text[-3000:]
    failed = text.split("units that failed")[1].split()
    assert {"masking", "batch", "pipeline"} <= set(failed) and "x" in failed and "0" not in failed
    assert re.search(r"point #\d+ masking=\S+ seed=0 ", text) and re.search(r"point #\d+ batch=\S+ seed=0 ", text)


@pytest.mark.skipif(not (ROOT / ".venv/bin/python").exists(), reason="the script runs the project's .venv")
@pytest.mark.parametrize("experiment", ["micro_report", "micro_campaign", "micro_campaign3"])
def test_a_campaign_without_its_report_notes_stops_before_any_run(tmp_path, experiment):
    """The notes that head the report are checked at the start, not after hours of runs; each shipped
    experiment has its own."""
    assert (ROOT / "campaigns" / experiment / "notes.md").is_file()
    env = {**os.environ, "EXPERIMENT": experiment, "MCSWEEP_RUNS": str(tmp_path), "NOTES": str(tmp_path / "none.md")}
    env["ARCHIVE"] = str(tmp_path / "no_archive")
    out = subprocess.run(["bash", "scripts/micro_report.sh"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 2 and "no notes for the report" in out.stderr and "none.md" in out.stderr
    assert not list(tmp_path.iterdir())


REPEATS_CONTEXT = "context context masking batch data evaluator kl_clip table1 temperature"


@pytest.mark.parametrize("order", ["context masking", REPEATS_CONTEXT])
def test_an_order_that_misses_or_repeats_a_sweep_stops_before_any_run(tmp_path, order):
    """ORDER puts the sweeps a campaign needs first; one that would drop or repeat a sweep is refused."""
    env = {**os.environ, "ORDER": order, "MCSWEEP_RUNS": str(tmp_path), "ARCHIVE": str(tmp_path / "no_archive")}
    out = subprocess.run(["bash", "scripts/micro_report.sh"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 2 and "ORDER must list each of the 9 sweeps once" in out.stderr
    assert not list(tmp_path.iterdir())
