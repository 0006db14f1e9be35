"""Run identity (what changes the id, what does not) and a point's status from its run folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from omegaconf import OmegaConf
from omegaconf.errors import MissingMandatoryValue

from mcsweep.launch.identity import run_dir, run_id
from mcsweep.launch.status import RunStatus, RunStoreError, run_status

BASE = {
    "temperature": {"name": "fixed_1.2", "kind": "fixed", "value": 1.2},
    "masking": {"mode": "conditional", "rho": 0.3},
    "seed": 0,
    "sweep_name": "temperature",
    "runs_root": "runs",
    "launcher": {"name": "local", "torch_threads": 1},
    "tracker": {"name": "wandb", "mode": "offline"},
}


def _id(**changes: object) -> str:
    cfg = OmegaConf.create(BASE)
    for key, value in changes.items():
        OmegaConf.update(cfg, key.replace("__", "."), value, force_add=True)
    return run_id(cfg)


def test_id_is_stable_short_hex_and_ignores_key_order() -> None:
    rid = _id()
    assert len(rid) == 12 and int(rid, 16) >= 0
    assert run_id(OmegaConf.create(dict(reversed(BASE.items())))) == rid


@pytest.mark.parametrize(
    "change",
    [{"masking__rho": 0.2}, {"seed": 1}, {"temperature__value": 1.8}, {"sweep_name": "seeds"}, {"new_knob": 1}],
)
def test_training_knobs_and_sweep_change_the_id(change: dict) -> None:
    assert _id(**change) != _id()


@pytest.mark.parametrize(
    "change",
    [
        {"launcher__name": "submitit_slurm"},
        {"tracker__mode": "online"},
        {"runs_root": "/scratch/runs"},
        {"hydra__sweep__dir": "x"},
        {"dry_run": True},
        {"logging__level": "DEBUG"},
    ],
)
def test_launch_and_logging_keys_keep_the_id(change: dict) -> None:
    assert _id(**change) == _id()


def test_a_new_micro_policy_build_changes_micro_run_ids(monkeypatch) -> None:
    """Runs started from the old build's policy must not be read back as the new one's."""
    from mcsweep.launch import identity

    micro, hub = _id(model={"kind": "micro"}), _id(model={"kind": "hf", "path": "Qwen/Qwen3-1.7B"})
    monkeypatch.setattr(identity, "BUILD_VERSION", identity.BUILD_VERSION + 1)
    assert _id(model={"kind": "micro"}) != micro
    assert _id(model={"kind": "hf", "path": "Qwen/Qwen3-1.7B"}) == hub


def test_interpolations_are_resolved_and_hydra_resolvers_never_run() -> None:
    cfg = OmegaConf.create({**BASE, "hydra": {"run": {"dir": "${now:%H}"}}, "eval_t": "${temperature.value}"})
    same = OmegaConf.create({**BASE, "eval_t": 1.2})
    assert run_id(cfg) == run_id(same)


def test_missing_value_names_the_key() -> None:
    with pytest.raises(MissingMandatoryValue, match=r"masking\.rho"):
        run_id(OmegaConf.create({**BASE, "masking": {"rho": "???"}}))


def test_run_dir_layout() -> None:
    cfg = OmegaConf.create(BASE)
    assert run_dir(cfg) == Path("runs") / "temperature" / run_id(cfg)


def _card(folder: Path, status: str, checkpoint: bool = False) -> Path:
    folder.mkdir(parents=True)
    (folder / "run_card.json").write_text(json.dumps({"run_id": folder.name, "status": status}))
    if checkpoint:
        (folder / "checkpoints" / "checkpoint-10").mkdir(parents=True)
    return folder


@pytest.mark.parametrize(
    ("status", "checkpoint", "expected"),
    [
        ("finished", False, RunStatus.DONE),
        ("running", True, RunStatus.PARTIAL),
        ("failed", True, RunStatus.PARTIAL),
        ("failed", False, RunStatus.NEW),
    ],
)
def test_status_from_run_card(tmp_path: Path, status: str, checkpoint: bool, expected: RunStatus) -> None:
    assert run_status(_card(tmp_path / "r", status, checkpoint)) is expected


def test_status_without_folder_is_new(tmp_path: Path) -> None:
    assert run_status(tmp_path / "absent") is RunStatus.NEW


def test_checkpoints_folder_without_checkpoint_is_not_partial(tmp_path: Path) -> None:
    folder = _card(tmp_path / "r", "failed")
    (folder / "checkpoints").mkdir()
    (folder / "checkpoints" / "tmp-checkpoint-5").mkdir()
    assert run_status(folder) is RunStatus.NEW


@pytest.mark.parametrize("card", ["{not json", '{"run_id": "x"}', '{"status": "paused"}'])
def test_unreadable_card_names_the_file(tmp_path: Path, card: str) -> None:
    (tmp_path / "run_card.json").write_text(card)
    with pytest.raises(RunStoreError, match=r"run_card\.json"):
        run_status(tmp_path)
