"""A point that another sweep already ran is copied from that run, for real: the session's tiny W&B
runs (sweep `temperature`) are the twins, the same config under another sweep name the new point."""

from __future__ import annotations

import json
import logging
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import wandb_records as wr
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from transformers.integrations.integration_utils import rewrite_logs

from mcsweep.config.validate import validate_config
from mcsweep.launch.identity import config_key, run_id
from mcsweep.launch.reuse import finished_twin
from mcsweep.train.run import train
from mcsweep.train.run_store import RunStore
from mcsweep.train.tracking import STEP

REPO = Path(__file__).resolve().parents[2]
OTHER_SWEEP = "temperature_schedules"  # holds the fixture's arm (staged 0.6 -> 1.8) too


def _compose(runs_root: Path, seed: int, *extra: str):
    overrides = [o for o in wr.TINY_WANDB if not o.startswith("sweep_name=")]
    torch.set_num_threads(1)
    with initialize_config_dir(wr.CONF, version_base="1.3"):
        return compose(
            "config",
            overrides=[*overrides, f"sweep_name={OTHER_SWEEP}", f"runs_root={runs_root}", f"seed={seed}", *extra],
        )


@pytest.fixture(scope="module")
def copied(wandb_runs: list[Path]) -> tuple[Path, Path]:
    """(twin, copy): the seed-0 point of the other sweep, started after the twin finished."""
    twin = wandb_runs[0]
    raw = _compose(twin.parents[1], seed=0)
    copy = Path(train(validate_config(raw), raw)["run_dir"])
    return twin, copy


def test_twin_is_the_finished_run_of_the_same_config_and_seed(wandb_runs: list[Path], tmp_path: Path) -> None:
    root = wandb_runs[0].parents[1]
    for seed, expected in ((0, wandb_runs[0]), (1, wandb_runs[1]), (2, None)):
        raw = _compose(root, seed)
        assert finished_twin(root, raw, tmp_path / "own") == expected, seed
    raw = _compose(root, 0)
    assert config_key(raw) == config_key(_compose(root, 0, "sweep_name=temperature"))
    assert run_id(raw) != run_id(_compose(root, 0, "sweep_name=temperature"))


def test_dry_run_names_the_run_each_new_point_will_copy(wandb_runs: list[Path]) -> None:
    root = wandb_runs[0].parents[1]
    overrides = [o for o in wr.TINY_WANDB if not o.startswith("sweep_name=")]
    overrides += [f"sweep_name={OTHER_SWEEP}", f"runs_root={root}", "seed=0,1,2", "hydra.sweeper.dry_run=true"]
    out = subprocess.run(
        [sys.executable, "-m", "mcsweep", *overrides, "-m"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    plan = dict(re.findall(r"point #\d+ (seed=\d)  run [0-9a-f]{12}  (new.*)", out.stdout + out.stderr))
    assert plan == {
        "seed=0": f"new  (copies temperature/{wandb_runs[0].name})",
        "seed=1": f"new  (copies temperature/{wandb_runs[1].name})",
        "seed=2": "new",
    }


def test_stale_or_damaged_folders_are_passed_over_and_named(
    wandb_runs: list[Path], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A folder whose config no longer hashes to its id (an older policy build, say) is not a twin,
    and an unreadable card is a warning, not a crash."""
    stale = tmp_path / "temperature" / "0123456789ab"
    shutil.copytree(wandb_runs[0], stale, ignore=shutil.ignore_patterns("wandb", "checkpoints"))
    card = json.loads((stale / "run_card.json").read_text())
    (stale / "run_card.json").write_text(json.dumps(card | {"run_id": stale.name}))
    broken = tmp_path / "seeds" / "ba5eba5eba5e"
    broken.mkdir(parents=True)
    (broken / "run_card.json").write_text("{not json")
    with caplog.at_level(logging.WARNING, logger="mcsweep.launch.reuse"):
        assert finished_twin(tmp_path, _compose(tmp_path, 0), tmp_path / "own") is None
    assert f"passed over {broken}" in caplog.text


def test_copy_has_its_own_identity_and_the_twins_records(copied: tuple[Path, Path]) -> None:
    twin, copy = copied
    assert copy.parent.name == OTHER_SWEEP and copy.name != twin.name
    card, twin_card = (json.loads((p / "run_card.json").read_text()) for p in (copy, twin))
    assert card["run_id"] == copy.name and card["sweep"] == OTHER_SWEEP and card["status"] == "finished"
    assert card["reused_from"] == {"run_id": twin.name, "sweep": "temperature", "path": str(twin)}
    own = ("run_id", "sweep", "reused_from")
    assert {k: v for k, v in card.items() if k not in own} == {k: v for k, v in twin_card.items() if k not in own}
    for name in ("metrics.jsonl", "evals.jsonl", "eval_samples.jsonl", "temperature_evals.jsonl"):
        assert (copy / name).read_bytes() == (twin / name).read_bytes(), name
    assert run_id(OmegaConf.load(copy / "config.yaml")) == copy.name  # its config.yaml is its own point's
    weights = sorted(twin.glob("checkpoints/*/model.safetensors"))
    assert weights and all((copy / w.relative_to(twin)).stat().st_ino == w.stat().st_ino for w in weights)


def test_copy_is_its_own_wandb_run_with_the_twins_history(copied: tuple[Path, Path]) -> None:
    twin, copy = copied
    records = wr.run_records(copy)
    rec = wr.run_record(records)
    assert rec.run_id == copy.name and rec.run_group == OTHER_SWEEP
    assert wr.config(records)["run_card"]["reused_from"]["run_id"] == twin.name
    history = wr.history(records)
    for row in RunStore(twin).rows("metrics"):
        for key, value in row.items():
            if key != "step" and isinstance(value, int | float):
                [wandb_key] = rewrite_logs({key: value})
                assert [h[wandb_key] for h in history if h.get(STEP) == row["step"] and wandb_key in h] == [value]
    assert [a for a in wr.artifacts(records)[-1].aliases if a != "latest"] == ["end"]


def test_rerun_of_the_copy_is_done_and_reuse_off_trains(copied: tuple[Path, Path], tmp_path: Path) -> None:
    twin, copy = copied
    raw = _compose(twin.parents[1], seed=0)
    before = (copy / "run_card.json").read_text()
    assert train(validate_config(raw), raw)["run_dir"] == str(copy)
    assert (copy / "run_card.json").read_text() == before
    # Off: the point trains itself (here under a fresh root holding a copy of the twin).
    root = tmp_path / "runs"
    shutil.copytree(twin, root / "temperature" / twin.name, ignore=shutil.ignore_patterns("wandb"))
    raw = _compose(root, 0, "launcher.reuse=false")
    own = Path(train(validate_config(raw), raw)["run_dir"])
    assert "reused_from" not in json.loads((own / "run_card.json").read_text())
    assert RunStore(own).rows("metrics")[-1]["step"] == 2
