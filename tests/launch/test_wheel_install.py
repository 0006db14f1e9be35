"""A non-editable install carries the Hydra config tree: from a wheel in a fresh venv, `python -m
mcsweep --help` and a dry-run sweep work, far from any checkout (issue 18, item 7).

The fresh venv gets the wheel alone; its dependencies are the test venv's, reached through a path
file (the test venv's own .pth files, among them the editable install of this checkout, are not
processed from there), so the test needs no network and checks the wheel, not the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # nothing of the checkout on the path


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", tmp / "dist", REPO],
        check=True,
        cwd=tmp,
        env=ENV,
    )
    wheel = next((tmp / "dist").glob("mcsweep-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, env=ENV)
    python = venv / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel], check=True, env=ENV, cwd=tmp
    )
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        env=ENV,
    ).stdout.strip()
    (Path(site) / "test_venv_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def _run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = ENV | {"MCSWEEP_RUNS": str(cwd / "runs")}
    return subprocess.run([python, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def test_the_wheel_ships_the_configs_and_is_what_runs(wheel_python: Path, tmp_path: Path) -> None:
    where = _run(
        wheel_python, "-c", "import mcsweep, mcsweep.config as c; print(mcsweep.__file__, c.CONF_DIR)", cwd=tmp_path
    )
    module, conf = where.stdout.split()
    assert str(REPO) not in module and Path(conf, "config.yaml").is_file(), where
    assert sorted(p.name for p in Path(conf, "sweep").glob("*.yaml")) == sorted(
        p.name for p in (REPO / "sweeps").glob("*.yaml")
    )


def test_help_and_a_dry_run_sweep_from_the_wheel(wheel_python: Path, tmp_path: Path) -> None:
    helped = _run(wheel_python, "-m", "mcsweep", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "temperature: " in helped.stdout, helped.stderr[-2000:]
    dry = _run(wheel_python, "-m", "mcsweep", "+sweep=temperature", "hydra.sweeper.dry_run=true", "-m", cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert "fixed_1.8" in dry.stdout + dry.stderr
