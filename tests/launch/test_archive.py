"""Finished runs and their base policy survive a fresh machine through the archive, for real: the
session's tiny W&B runs are packed, then unpacked into an empty runs folder and an empty cache."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from mcsweep.launch.archive import ArchiveError, _write_tar, main, pack, unpack
from mcsweep.launch.reuse import finished_runs
from mcsweep.micro.policy import cache_root


@pytest.fixture
def packed(wandb_runs: list[Path], tmp_path: Path) -> tuple[Path, Path]:
    """(runs root, archive) with the two runs packed."""
    root, archive = wandb_runs[0].parents[1], tmp_path / "archive"
    assert len(pack(root, archive)) == 2
    return root, archive


def _names(tarball: Path) -> set[str]:
    with tarfile.open(tarball) as tar:
        return {m.name for m in tar.getmembers()}


def test_pack_stores_records_not_checkpoints_and_the_policy_once(packed, wandb_runs):
    root, archive = packed
    run = wandb_runs[0]
    names = _names(archive / run.parent.name / f"{run.name}.tar.xz")
    assert f"{run.name}/metrics.jsonl" in names and f"{run.name}/run_card.json" in names
    assert not any(n.startswith((f"{run.name}/checkpoints", f"{run.name}/wandb")) for n in names)
    assert [p.name.endswith(".tar.xz") for p in (archive / "policies").iterdir()] == [True]
    assert pack(root, archive) == []  # nothing new


def test_unpack_on_a_fresh_machine_gives_finished_runs_and_the_same_base(packed, wandb_runs, tmp_path, monkeypatch):
    _, archive = packed
    old_policy = next((cache_root() / "micro_policy").glob("*/model.safetensors"))
    monkeypatch.setenv("MCSWEEP_CACHE", str(tmp_path / "fresh-cache"))
    fresh = tmp_path / "fresh-runs"
    assert sorted(p.name for p in unpack(archive, fresh)) == sorted(p.name for p in wandb_runs)
    new_policy = cache_root() / "micro_policy" / old_policy.parent.name / "model.safetensors"
    assert new_policy.read_bytes() == old_policy.read_bytes()
    for run in wandb_runs:
        copy = fresh / run.parent.name / run.name
        assert (copy / "metrics.jsonl").read_bytes() == (run / "metrics.jsonl").read_bytes()
    # the sweep's reuse index (and its finished check) take them as this config's finished runs
    assert sorted(p.name for p in finished_runs(fresh).values()) == sorted(p.name for p in wandb_runs)
    assert unpack(archive, fresh) == []  # finished folders are left alone


def test_unpack_replaces_an_unfinished_folder(packed, wandb_runs, tmp_path, monkeypatch):
    _, archive = packed
    monkeypatch.setenv("MCSWEEP_CACHE", str(tmp_path / "cache"))
    run = wandb_runs[0]
    partial = tmp_path / "runs" / run.parent.name / run.name
    partial.mkdir(parents=True)
    (partial / "run_card.json").write_text(json.dumps({"status": "running"}))
    (partial / "metrics.jsonl").write_text('{"step": 0}\n')
    unpack(archive, tmp_path / "runs")
    assert json.loads((partial / "run_card.json").read_text())["status"] == "finished"
    assert (partial / "metrics.jsonl").read_bytes() == (run / "metrics.jsonl").read_bytes()


def test_a_rebuilt_policy_with_other_weights_is_refused_at_both_ends(packed, tmp_path, monkeypatch):
    root, archive = packed
    key = next((archive / "policies").iterdir()).name.removesuffix(".tar.xz")
    original = cache_root() / "micro_policy" / key
    monkeypatch.setenv("MCSWEEP_CACHE", str(tmp_path / "other-cache"))
    other = cache_root() / "micro_policy" / key
    shutil.copytree(original, other)
    (other / "model.safetensors").write_bytes(b"rebuilt elsewhere")
    with pytest.raises(ArchiveError, match="do not share a base"):
        unpack(archive, tmp_path / "runs")
    for tarball in archive.glob("*/*.tar.xz"):  # the runs must be packed again, against the other weights
        if tarball.parent.name != "policies":
            tarball.unlink()
    with pytest.raises(ArchiveError, match="do not share a base"):
        pack(root, archive)


def test_copies_of_a_twin_are_not_stored(wandb_runs, tmp_path):
    root = tmp_path / "runs"
    copy = root / "other_sweep" / "copy0"
    shutil.copytree(wandb_runs[0], copy, ignore=shutil.ignore_patterns("checkpoints", "wandb"))
    card = json.loads((copy / "run_card.json").read_text())
    (copy / "run_card.json").write_text(json.dumps({**card, "reused_from": {"run_id": card["run_id"]}}))
    assert pack(root, tmp_path / "archive") == []


def test_an_archive_entry_outside_its_run_folder_is_refused(tmp_path):
    archive = tmp_path / "archive" / "temperature"
    archive.mkdir(parents=True)
    with tarfile.open(archive / "abc.tar.xz", "w:xz") as tar:
        info = tarfile.TarInfo("../escape.txt")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"hi"))
    with pytest.raises(SystemExit, match="outside abc/"):
        main(["unpack", str(tmp_path / "runs"), str(tmp_path / "archive")])
    assert not (tmp_path / "escape.txt").exists()


def test_a_packer_leaves_another_packers_file_alone(tmp_path):
    """Two packers (the campaign script's and a hand-run one) wrote one shared aside file: the second
    truncated the first's, and one rename failed (FileNotFoundError, 2026-12-06)."""
    source = tmp_path / "run"
    source.mkdir()
    (source / "metrics.jsonl").write_text("{}\n")
    target = tmp_path / "out" / "run.tar.xz"
    target.parent.mkdir()
    other = target.with_name(f".{target.name}.tmp")
    other.write_bytes(b"another packer's half-written archive")
    _write_tar(target, source, "run")
    assert other.read_bytes() == b"another packer's half-written archive"
    with tarfile.open(target) as tar:
        assert tar.getnames() == ["run/metrics.jsonl"]
