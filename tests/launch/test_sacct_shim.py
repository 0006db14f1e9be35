"""The sacct shim lets submitit see that a SLURM job died without a result, on a SLURM without
accounting. Runs real jobs on the local SLURM (scripts/slurm/up.sh)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import cloudpickle
import pytest
import submitit

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slurm
# The jobs run functions of this test module, which the job's interpreter cannot import.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _load_shim():
    spec = importlib.util.spec_from_file_location("sacct_shim", REPO / "scripts/slurm/sacct_shim.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def double_after(x: int, seconds: float) -> int:
    time.sleep(seconds)
    return 2 * x


def _sacct(*job_ids: str) -> dict[str, str]:
    cmd = ["sacct", "-o", "JobID,State,NodeList", "--parsable2"]
    for job_id in job_ids:
        cmd += ["-j", job_id]
    lines = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines[0] == "JobID|State|NodeList"
    return {line.split("|")[0]: line.split("|")[1] for line in lines[1:]}


def _executor(folder: Path) -> submitit.AutoExecutor:
    executor = submitit.AutoExecutor(folder=folder, cluster="slurm")
    executor.update_parameters(timeout_min=5, cpus_per_task=1, slurm_partition="debug")
    return executor


def test_shim_answers_submitits_query(slurm: Path, wait_for_state) -> None:
    array = subprocess.run(
        ["sbatch", "--parsable", "--array=0-1", "--output=/dev/null", "--wrap", "true"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    long = subprocess.run(
        ["sbatch", "--parsable", "--output=/dev/null", "--wrap", "sleep 300"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    wait_for_state(long, "RUNNING")
    subprocess.run(["scancel", long], check=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        states = _sacct(array, long)
        if states.get(long) == "CANCELLED" and {states.get(f"{array}_{i}") for i in (0, 1)} == {"COMPLETED"}:
            break
        time.sleep(0.5)
    assert states == {f"{array}_0": "COMPLETED", f"{array}_1": "COMPLETED", long: "CANCELLED"}


def test_completion_log_remembers_jobs_slurmctld_forgot(slurm: Path) -> None:
    """After MinJobAge, slurmctld drops a job; the jobcomp/filetxt log still has its final state."""
    job = subprocess.run(
        ["sbatch", "--parsable", "--output=/dev/null", "--wrap", "exit 3"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    shim = _load_shim()
    deadline = time.monotonic() + 30
    while not (records := shim.from_jobcomp(job)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [(r["JobId"], r["JobState"], r["ExitCode"]) for r in records] == [(job, "FAILED", "3:0")]


@pytest.mark.timeout(180)
def test_cancelled_submitit_job_fails_promptly_and_others_return(slurm: Path, tmp_path: Path, wait_for_state) -> None:
    executor = _executor(tmp_path)
    doomed = executor.submit(double_after, 0, 300)
    wait_for_state(doomed.job_id, "RUNNING")
    survivors = [executor.submit(double_after, x, 1) for x in (1, 2)]
    tic = time.monotonic()
    subprocess.run(["scancel", doomed.job_id], check=True)
    with pytest.raises(submitit.core.utils.UncompletedJobError, match=r"state: CANCELLED"):
        doomed.result()
    assert time.monotonic() - tic < 60, "a cancelled job must be reported within a minute"
    assert [job.result() for job in survivors] == [2, 4]
