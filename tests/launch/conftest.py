"""Fixtures for the launch tests: the local SLURM started by scripts/slurm/up.sh."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SLURM_DIR = Path(os.environ.get("MCSWEEP_SLURM_DIR", REPO / ".slurm"))
SHIM_BIN = REPO / "scripts" / "slurm" / "bin"


def _slurm_down_reason() -> str | None:
    conf = SLURM_DIR / "slurm.conf"
    if not conf.exists():
        return f"SLURM is not up: no {conf}; start it with scripts/slurm/up.sh"
    env = {**os.environ, "SLURM_CONF": str(conf)}
    try:
        ping = subprocess.run(["scontrol", "ping"], env=env, capture_output=True, text=True, timeout=10)
    except (FileNotFoundError, subprocess.TimeoutExpired) as err:
        return f"SLURM is not up: scontrol ping failed ({err}); start it with scripts/slurm/up.sh"
    if "is UP" not in ping.stdout:
        return f"SLURM is not up: {ping.stdout.strip() or ping.stderr.strip()}; run scripts/slurm/up.sh"
    return None


@pytest.fixture
def slurm(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point this process (and the jobs it submits) at the local SLURM, with the sacct shim first."""
    reason = _slurm_down_reason()
    if reason and os.environ.get("MCSWEEP_REQUIRE_SLURM") == "1":  # CI: a SLURM test must not skip
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)
    monkeypatch.setenv("SLURM_CONF", str(SLURM_DIR / "slurm.conf"))
    monkeypatch.setenv("PATH", f"{SHIM_BIN}{os.pathsep}{os.environ['PATH']}")
    return SLURM_DIR


def _wait_for_state(job_id: str, wanted: str, timeout_s: float = 60.0) -> None:
    """Block until squeue shows the job in state `wanted` (e.g. RUNNING)."""
    deadline = time.monotonic() + timeout_s
    state = ""
    while time.monotonic() < deadline:
        state = subprocess.run(
            ["squeue", "-h", "-j", job_id, "-o", "%T"], capture_output=True, text=True
        ).stdout.strip()
        if state == wanted:
            return
        time.sleep(0.2)
    raise TimeoutError(f"job {job_id} not {wanted} after {timeout_s} s (last state: {state!r})")


@pytest.fixture
def wait_for_state(slurm: Path) -> Callable[..., None]:
    return _wait_for_state


APP_DIR = Path(__file__).resolve().parent / "app"


def _run_app(
    runs_root: Path, *overrides: str, background: bool = False, timeout_s: float = 120, sweeper: str = "mcsweep"
):
    """Run the tiny Hydra app as a multirun (`-m`), with the repo's conf/ on Hydra's search path.

    With the validating sweeper, points are checked by the tiny app's own validator."""
    validator = ["hydra.sweeper.validator=tiny_schema.validate"] if sweeper == "mcsweep" else []
    cmd = [
        sys.executable,
        "app.py",
        "-m",
        f"hydra.searchpath=[file://{REPO}/conf]",
        f"runs_root={runs_root}",
        *validator,
        *overrides,
    ]
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    if background:
        # Its own session, so a test can interrupt the driver with all its workers.
        return subprocess.Popen(
            cmd,
            cwd=APP_DIR,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    return subprocess.run(cmd, cwd=APP_DIR, env=env, capture_output=True, text=True, timeout=timeout_s)


@pytest.fixture
def tiny_app() -> Callable[..., subprocess.CompletedProcess | subprocess.Popen]:
    return _run_app
