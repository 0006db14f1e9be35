"""The submitit_slurm launcher preset end to end on the local SLURM: a 3-point multirun of the tiny
app in which one job is cancelled mid-run."""

from __future__ import annotations

import json
import re
import subprocess
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.slurm


def _running_task(job_name: str, task: int | None, timeout_s: float = 60) -> str:
    """The SLURM id of the job (`<array>_<task>` for a task of an array) once it runs."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        rows = subprocess.run(
            ["squeue", "-h", "-n", job_name, "-o", "%i %T"], capture_output=True, text=True, check=True
        ).stdout.split("\n")
        for job_id, state in (r.split() for r in rows if r.strip()):
            if (task is None or job_id.endswith(f"_{task}")) and state == "RUNNING":
                return job_id
        time.sleep(0.3)
    raise TimeoutError(f"task {task} of job {job_name} did not start in {timeout_s} s")


@pytest.mark.timeout(240)
def test_cancelled_point_fails_clearly_and_the_others_return(slurm: Path, tmp_path: Path, tiny_app) -> None:
    sweep = f"slurm_{uuid.uuid4().hex[:6]}"
    proc = tiny_app(
        tmp_path,
        "launcher=submitit_slurm_cpu",
        f"sweep_name={sweep}",
        "x=1,2,3",
        "slow_x=2",
        "slow_s=300",
        background=True,
    )
    try:
        doomed = _running_task(f"mcsweep-{sweep}", task=1)
        tic = time.monotonic()
        subprocess.run(["scancel", doomed], check=True)
        output, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
    ended_after = time.monotonic() - tic
    assert proc.returncode != 0, output
    assert "1 of 3 launched points failed" in output, output
    assert "point #1 [x=2] run" in output and f"job {doomed} ended with state CANCELLED" in output, output
    results = [json.loads(p.read_text())["x"] for p in (tmp_path / sweep).glob("*/result.json")]
    assert sorted(results) == [1, 3]
    assert ended_after < 90, f"the sweep took {ended_after:.0f} s to notice the cancelled job"


def _job_field(job_id: str, field: str) -> str:
    text = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True).stdout
    match = re.search(rf"\b{field}=(\S*)", text)
    return match[1] if match else ""


@pytest.mark.timeout(240)
def test_preempted_point_is_requeued_and_resumes(slurm: Path, tmp_path: Path, tiny_app) -> None:
    """SLURM's preemption signal makes submitit checkpoint the point and requeue the same job."""
    sweep = f"requeue_{uuid.uuid4().hex[:6]}"
    proc = tiny_app(
        tmp_path, "launcher=submitit_slurm_cpu", f"sweep_name={sweep}", "x=1", "slow_x=1", "slow_s=300", background=True
    )
    try:
        job = _running_task(f"mcsweep-{sweep}", task=None)
        deadline = time.monotonic() + 60
        while not any((tmp_path / sweep).glob("*/attempts")) and time.monotonic() < deadline:
            time.sleep(0.2)  # the task has started, so submitit's signal handler is in place
        subprocess.run(["scancel", "--signal=USR2", job], check=True)  # what preemption sends
        # The requeued job starts again after cred_expire (20 s in scripts/slurm/slurm.conf.in).
        output, _ = proc.communicate(timeout=150)
    finally:
        proc.kill()
    assert proc.returncode == 0, output
    [result] = [json.loads(p.read_text()) for p in (tmp_path / sweep).glob("*/result.json")]
    assert result["attempt"] == 2, "the point did not run again after the requeue"
    # The result file can be read before slurmd reports the job's end, so give SLURM a moment.
    deadline = time.monotonic() + 30
    while _job_field(job, "JobState") != "COMPLETED" and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _job_field(job, "Restarts") == "1" and _job_field(job, "JobState") == "COMPLETED"
