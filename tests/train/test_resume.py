"""Kill a real training process mid-run; the re-run resumes from its checkpoint with a clean history."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[2]
ARGS = [
    "model=micro_tiny",
    "tracker=wandb",
    "launcher.torch_threads=1",
    "data.n_test=4",
    "train.eval_samples=2",
    "data.n_train=32",
    "train.steps=20",
    "train.save_every=2",
    "train.eval_every=10",
    "context.max_completion_length=24",
    "context.eval_lengths=[24,32]",
    "context.common_eval_length=32",
    "context.repeat_window=4",
]


def _launch(runs: Path) -> subprocess.Popen:
    env = {**os.environ, "WANDB_MODE": "offline"}
    return subprocess.Popen(
        [sys.executable, "-m", "mcsweep", *ARGS, f"runs_root={runs}"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _wait_for(pattern: str, runs: Path, proc: subprocess.Popen, limit_s: float = 600) -> Path:
    deadline = time.time() + limit_s
    while time.time() < deadline:
        found = list(runs.glob(pattern))
        if found:
            return found[0]
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        time.sleep(0.5)
    raise AssertionError(f"{pattern} did not appear within {limit_s} s")


def test_killed_run_resumes_without_gaps_or_duplicates(tmp_path):
    proc = _launch(tmp_path)
    ckpt = _wait_for("single/*/checkpoints/checkpoint-2/trainer_state.json", tmp_path, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    run_dir = ckpt.parents[2]
    assert "finished" not in (run_dir / "run_card.json").read_text()

    rerun = _launch(tmp_path)
    assert rerun.wait(timeout=900) == 0, rerun.stderr.read().decode()[-2000:]
    metrics = pd.read_json(run_dir / "metrics.jsonl", lines=True)
    assert metrics["step"].tolist() == list(range(21))
    evals = pd.read_json(run_dir / "evals.jsonl", lines=True)
    assert evals.groupby("step").size().to_dict() == {0: 2, 10: 2, 20: 2}
    assert '"status": "finished"' in (run_dir / "run_card.json").read_text()
    wandb_runs = {p.name.split("-")[-1] for p in (run_dir / "wandb").glob("offline-run-*")}
    assert wandb_runs == {run_dir.name}
