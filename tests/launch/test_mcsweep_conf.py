"""mcsweep's own conf/: the launcher and hparams_search presets compose with the primary config and
give valid runs, and every sweep file dry-runs through the validating sweeper."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import DictConfig, OmegaConf, open_dict

from mcsweep.config.validate import validate_config

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "conf"
LAUNCHERS = {
    "local": "hydra_plugins.hydra_joblib_launcher.joblib_launcher.JoblibLauncher",
    "submitit_local": "hydra_plugins.mcsweep_launch.submitit_launchers.ReportingLocalLauncher",
    "submitit_slurm": "hydra_plugins.mcsweep_launch.submitit_launchers.ReportingSlurmLauncher",
    "submitit_slurm_8gpu": "hydra_plugins.mcsweep_launch.submitit_launchers.ReportingSlurmLauncher",
    "submitit_slurm_cpu": "hydra_plugins.mcsweep_launch.submitit_launchers.ReportingSlurmLauncher",
}
HPARAMS = sorted(p.stem for p in (CONF / "hparams_search").glob("*.yaml"))
SWEEPS = sorted(p.stem for p in (REPO / "sweeps").glob("*.yaml"))
INTERVAL = re.compile(r"^interval\(\s*([-\d.e]+)\s*,\s*([-\d.e]+)\s*\)$")


def _compose(*overrides: str) -> DictConfig:
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return compose("config", overrides=list(overrides), return_hydra_config=True)


def _task(cfg: DictConfig) -> DictConfig:
    task = cfg.copy()
    with open_dict(task):
        del task["hydra"]
        task.pop("local", None)  # machine settings, not part of the run
    return task


@pytest.mark.parametrize("name", sorted(LAUNCHERS))
def test_launcher_presets_compose_with_the_validating_sweeper(name: str) -> None:
    cfg = _compose(f"launcher={name}")
    assert cfg.hydra.launcher._target_ == LAUNCHERS[name]
    assert cfg.hydra.sweeper._target_ == "hydra_plugins.mcsweep_launch.sweeper.ValidatingSweeper"
    assert cfg.launcher.name == name
    validate_config(_task(cfg))


def test_local_preset_runs_one_point_per_core_with_one_thread() -> None:
    cfg = _compose("launcher=local")
    assert cfg.hydra.launcher.n_jobs == -1 and cfg.launcher.torch_threads == 1


def test_slurm_partition_and_account_come_from_the_local_config() -> None:
    bare = _compose("launcher=submitit_slurm").hydra.launcher
    assert (bare.partition, bare.account) == (None, None)
    local = OmegaConf.load(CONF / "local" / "example.yaml").slurm
    mine = _compose("launcher=submitit_slurm_8gpu", "local=example").hydra.launcher
    assert (mine.partition, mine.account, mine.gpus_per_node) == (local.partition, local.account, 8)


def _points(params: DictConfig) -> list[list[str]]:
    """Overrides at the ends of each interval (other params as given): corners of the search space."""
    low, high = [], []
    for key, value in params.items():
        match = INTERVAL.match(str(value))
        low.append(f"{key}={match[1] if match else value}")
        high.append(f"{key}={match[2] if match else value}")
    return [low, high]


@pytest.mark.parametrize("name", HPARAMS)
def test_hparams_search_presets_name_real_keys_and_give_valid_runs(name: str) -> None:
    cfg = _compose(f"+hparams_search={name}")
    sweeper = cfg.hydra.sweeper
    assert sweeper._target_ == "hydra_plugins.mcsweep_launch.optuna_resume.ResumingOptunaSweeper"
    assert sweeper.storage == f"sqlite:///{cfg.runs_root}/{cfg.sweep_name}/optuna.db"
    assert sweeper.study_name == cfg.sweep_name and sweeper.direction == "maximize"
    for point in _points(sweeper.params or OmegaConf.create({})):
        run = _task(_compose(f"+hparams_search={name}", *point))
        for override in point:
            key, value = override.split("=", 1)
            if INTERVAL.match(str(sweeper.params[key])):
                assert OmegaConf.select(run, key) == pytest.approx(float(value)), key
        validate_config(run)


def _mcsweep(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MCSWEEP_RUNS": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-m", "mcsweep", "-m", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )


def test_bad_point_of_a_real_sweep_names_the_key_and_launches_nothing(tmp_path: Path) -> None:
    out = _mcsweep(tmp_path, "temperature=fixed_0.6,fixed_1.8", "masking.rho=0.3,1.5")
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "2 of 4 points are invalid; nothing was launched" in text, text
    assert "[temperature=fixed_0.6 masking.rho=1.5]: ConfigError: masking.rho: must be in [0, 1]" in text
    assert not any(tmp_path.glob("*/*/run_card.json"))


def test_a_bad_value_in_a_single_run_is_one_line_naming_the_key(tmp_path: Path) -> None:
    env = {**os.environ, "MCSWEEP_RUNS": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-m", "mcsweep", "masking.mode=bogus"], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert out.returncode == 2, out.stderr
    assert "invalid config: masking.mode: Invalid value 'bogus', expected one of [none, all" in out.stderr + out.stdout
    assert "Traceback" not in out.stderr + out.stdout


@pytest.mark.parametrize("sweep", SWEEPS)
def test_every_sweep_file_dry_runs(tmp_path: Path, sweep: str) -> None:
    out = _mcsweep(tmp_path, f"+sweep={sweep}", "hydra.sweeper.dry_run=true")
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    assert re.search(r"dry run: \d+ points, nothing launched", text), text
