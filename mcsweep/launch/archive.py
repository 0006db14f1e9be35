"""Finished runs kept in the repository, so that a campaign can span machines that keep nothing.

A campaign longer than a session may resume on a fresh machine: its `runs/` folder and its policy
cache gone. `pack` stores each finished run folder, less its checkpoints and W&B files, as
`<archive>/<sweep>/<run_id>.tar.xz`, and the micro policy those runs started from as
`<archive>/policies/<key>.tar.xz`. `unpack` restores what is missing before the campaign resumes, so
its finished runs are skipped and every new run starts from the very weights the archived ones did:
a policy rebuilt on another machine (other cores, other float reductions) is not the same base. A
cached policy whose weights differ from the archived one is an error, at either end. Copies of a
twin (`reused_from`, `mcsweep.launch.reuse`) are not stored: the sweep copies them again in a second.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shutil
import tarfile
from pathlib import Path

from omegaconf import OmegaConf

from mcsweep.launch.status import CardStatus

log = logging.getLogger(__name__)

LEFT_OUT = ("checkpoints", "wandb")
"""Run-folder entries not stored: resumable state (a finished run needs none) and W&B's own files."""
WEIGHTS = "model.safetensors"


class ArchiveError(RuntimeError):
    """The archive and this machine disagree on the base policy."""


def _finished_runs(runs_root: Path) -> list[Path]:
    """Finished run folders under `runs_root` that trained themselves (not copies of a twin)."""
    found = []
    for card_path in sorted(runs_root.glob("*/*/run_card.json")):
        card = json.loads(card_path.read_text())
        if card.get("status") == CardStatus.FINISHED and not card.get("reused_from"):
            found.append(card_path.parent)
    return found


def _write_tar(target: Path, source: Path, arcname: str, skip: tuple[str, ...] = ()) -> None:
    """`source` as an xz tarball at `target`, written aside and renamed. The aside file is this process's
    own: two packers racing on one shared name truncated each other's file, and one failed its rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with tarfile.open(tmp, "w:xz") as tar:
        for item in sorted(source.iterdir()):
            if item.name not in skip and not item.name.startswith("."):
                tar.add(item, arcname=f"{arcname}/{item.name}")
    tmp.replace(target)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _archived_weights(tarball: Path) -> str:
    """The digest of the policy weights inside an archived policy."""
    with tarfile.open(tarball) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith(f"/{WEIGHTS}"))
        return _digest(tar.extractfile(member).read())


def _policy_folder(run: Path) -> tuple[str, Path] | None:
    """(policy key, cached folder) of a micro run's base policy; None for a hub model."""
    from mcsweep.config.validate import validate_config
    from mcsweep.micro.policy import cache_root

    cfg = validate_config(OmegaConf.load(run / "config.yaml"))
    if cfg.model.kind != "micro":
        return None
    key = cfg.model.micro.policy_spec().key()
    return key, cache_root() / "micro_policy" / key


def _check_same_base(cached: Path, tarball: Path) -> None:
    local = _digest((cached / WEIGHTS).read_bytes())
    if local != _archived_weights(tarball):
        raise ArchiveError(
            f"the cached policy {cached} has other weights than the archived {tarball}: runs trained from "
            f"the two do not share a base. Move {cached} away and unpack the archive first."
        )


def _pack_policy(run: Path, archive: Path) -> None:
    found = _policy_folder(run)
    if found is None:
        return
    key, cached = found
    tarball = archive / "policies" / f"{key}.tar.xz"
    if not (cached / WEIGHTS).exists():
        if not tarball.exists():
            raise ArchiveError(f"{run} started from the micro policy {key}, which is neither cached nor archived")
    elif tarball.exists():
        _check_same_base(cached, tarball)
    else:
        _write_tar(tarball, cached, key)


def pack(runs_root: Path, archive: Path) -> list[Path]:
    """Store every finished run under `runs_root` not yet in `archive` (and its base policy, once);
    returns the tarballs written."""
    written = []
    for run in _finished_runs(runs_root):
        tarball = archive / run.parent.name / f"{run.name}.tar.xz"
        if tarball.exists():
            continue
        _pack_policy(run, archive)
        _write_tar(tarball, run, run.name, skip=LEFT_OUT)
        written.append(tarball)
    return written


def _restore(tarball: Path, target_parent: Path, name: str) -> None:
    """Extract `tarball` (one top folder, `name`) into `target_parent`, replacing an unfinished copy."""
    with tarfile.open(tarball) as tar:
        bad = [m.name for m in tar.getmembers() if not m.name.startswith(f"{name}/") or not (m.isfile() or m.isdir())]
        if bad:
            raise ArchiveError(f"{tarball} holds entries outside {name}/ or that are not plain files: {bad[:3]}")
        shutil.rmtree(target_parent / name, ignore_errors=True)
        tar.extractall(target_parent, filter="data")


def unpack(archive: Path, runs_root: Path) -> list[Path]:
    """Restore the archived policies into the cache and the archived runs missing (or unfinished)
    under `runs_root`; returns the run folders restored."""
    from mcsweep.micro.policy import cache_root

    for tarball in sorted(archive.glob("policies/*.tar.xz")):
        key = tarball.name.removesuffix(".tar.xz")
        cached = cache_root() / "micro_policy" / key
        if (cached / WEIGHTS).exists():
            _check_same_base(cached, tarball)
        else:
            _restore(tarball, cached.parent, key)
    restored = []
    for tarball in sorted(archive.glob("*/*.tar.xz")):
        if tarball.parent.name == "policies":
            continue
        run = runs_root / tarball.parent.name / tarball.name.removesuffix(".tar.xz")
        card = run / "run_card.json"
        if card.exists() and json.loads(card.read_text()).get("status") == CardStatus.FINISHED:
            continue
        _restore(tarball, run.parent, run.name)
        restored.append(run)
    return restored


def _summary(archive: Path) -> str:
    runs = [p for p in archive.glob("*/*.tar.xz") if p.parent.name != "policies"]
    size = sum(p.stat().st_size for p in archive.rglob("*.tar.xz"))
    return f"{archive} holds {len(runs)} runs ({size / 2**20:.1f} MiB with its policies)"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m mcsweep.launch.archive",
        description="Keep finished runs (and their base policy) in a folder that survives the machine.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_ in (("pack", "store finished runs not yet archived"), ("unpack", "restore what is missing")):
        p = sub.add_parser(name, help=help_)
        p.add_argument("runs_root", type=Path, help="the campaign's runs folder ($MCSWEEP_RUNS)")
        p.add_argument("archive", type=Path, help="the archive folder (committed with the report)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        if args.command == "pack":
            done = pack(args.runs_root, args.archive)
            print(f"packed {len(done)} finished runs; {_summary(args.archive)}")
        else:
            done = unpack(args.archive, args.runs_root)
            print(f"restored {len(done)} runs into {args.runs_root}; {_summary(args.archive)}")
    except ArchiveError as err:
        raise SystemExit(f"archive: {err}") from err


if __name__ == "__main__":
    main()
