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


def test_an_added_knob_keeps_earlier_ids_until_it_is_set() -> None:
    """`train.cpu_bf16_update` came after runs existed: off, the id is the one those runs have."""
    earlier = _id(train={"steps": 140})
    assert _id(train={"steps": 140, "cpu_bf16_update": False}) == earlier
    assert _id(train={"steps": 140, "cpu_bf16_update": True}) != earlier


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


# --- The declared execution-only keys, against the real composed configs (issue 12) ---

CONF = Path(__file__).resolve().parents[2] / "conf"
PAPER = ["scale=paper", "rollout=vllm_server", "model=qwen3_4b_instruct_2507"]
# A different value of the right type for each execution-only key inside a group.
EXECUTION_CHANGES = {
    "rollout.server_host": "node-17.cluster",
    "rollout.server_port": 8123,
    "rollout.gpu_memory_utilization": 0.5,
    "rollout.tensor_parallel_size": 2,
    "evaluator.workers": 32,
    "train.micro_batch": 4,
    "train.gradient_checkpointing": False,
    "model.attn_implementation": "flash_attention_2",
}
# One other option of every analysis axis (and the two top-level knobs that are not groups).
AXIS_CHANGES = [
    "evaluator=livecodebench",
    "temperature=fixed_0.6",
    "data=easy",
    "context=short_to_long",
    "masking=none",
    "batch=large",
    "kl_clip=kl",
    "seed=1",
    "train.steps=301",
]


def _composed(overrides: list[str]):
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(str(CONF), version_base="1.3"):
        return compose("config", overrides=overrides)


def test_the_declared_list_is_the_changes_tested_here() -> None:
    from mcsweep.launch.identity import EXCLUDED_KEYS

    assert {k for k in EXCLUDED_KEYS if "." in k} == set(EXECUTION_CHANGES)


@pytest.mark.parametrize("key", sorted(EXECUTION_CHANGES))
def test_execution_only_keys_keep_the_id(key: str) -> None:
    base = _composed(PAPER)
    assert OmegaConf.select(base, key) != EXECUTION_CHANGES[key], f"pick another test value for {key}"
    assert run_id(_composed([*PAPER, f"{key}={EXECUTION_CHANGES[key]}"])) == run_id(base)


@pytest.mark.parametrize("change", AXIS_CHANGES)
def test_every_axis_changes_the_id(change: str) -> None:
    base = _composed(PAPER)
    changed = _composed([*PAPER, change])
    assert OmegaConf.to_yaml(changed) != OmegaConf.to_yaml(base), f"{change} is the default"
    assert run_id(changed) != run_id(base)


def test_the_vllm_host_variable_is_not_hashed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A requeued job whose server lands on another node must find its own run folder."""
    monkeypatch.setenv("MCSWEEP_VLLM_HOST", "node-01")
    first = _composed(PAPER)
    monkeypatch.setenv("MCSWEEP_VLLM_HOST", "node-02")
    second = _composed(PAPER)
    assert run_id(first) == run_id(second)
    assert "node-0" not in OmegaConf.to_yaml(second, resolve=True)
