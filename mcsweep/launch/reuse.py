"""A point that another sweep already ran is copied, not trained again.

Two points of different sweeps can compute the same thing: seven axis sweeps hold the analysis base
as one of their arms, and the temperature and temperature-schedule sweeps share an arm. Their run ids
differ (the id hashes `sweep_name`, so each sweep's folder holds all its arms), their config keys
(`identity.config_key`) do not. A quarter of issue 19's campaign is such repeats. When a point starts
with nothing of its own yet, a finished run with its config key anywhere under `runs_root` becomes
its run folder: the records and checkpoints copied (checkpoints hard-linked where the file system
allows), its own config.yaml, and a run card with this point's id and sweep plus `reused_from`.
A twin counts only if its config.yaml still hashes to its own run id: a run of an older micro-policy
build or hashing scheme is not this config's run.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from mcsweep.launch.identity import config_key, run_id
from mcsweep.launch.status import CardStatus

log = logging.getLogger(__name__)

NOT_COPIED = ("wandb", "run_card.json", "config.yaml")
"""The twin's W&B files (the copy gets its own W&B run) and the two files the copy writes itself."""


def finished_twin(runs_root: Path, cfg: DictConfig, own_dir: Path) -> Path | None:
    """The finished run under `runs_root` with `cfg`'s config key, other than `own_dir`; None if none."""
    return finished_runs(runs_root, skip=own_dir).get(config_key(cfg))


def finished_runs(runs_root: Path, skip: Path | None = None) -> dict[str, Path]:
    """Config key -> the first finished run folder (in path order) under `runs_root` that has it.
    Folders whose card or config cannot be read are named in a warning and passed over."""
    found: dict[str, Path] = {}
    for card_path in sorted(runs_root.glob("*/*/run_card.json")):
        folder = card_path.parent
        if skip is not None and folder.resolve() == skip.resolve():
            continue
        try:
            key = _finished_key(folder)
        except Exception as err:  # a damaged folder must not stop the sweep; it is named
            log.warning("reuse: passed over %s (%s: %s)", folder, err.__class__.__name__, err)
            continue
        if key is not None:
            found.setdefault(key, folder)
    return found


def _finished_key(folder: Path) -> str | None:
    """The folder's config key if it is a finished run whose config still hashes to its id."""
    card = json.loads((folder / "run_card.json").read_text())
    if card.get("status") != CardStatus.FINISHED:
        return None
    config = OmegaConf.load(folder / "config.yaml")
    if run_id(config) != card.get("run_id"):
        return None
    return config_key(config)


def copy_run(twin: Path, store_path: Path, raw: DictConfig, own_id: str) -> dict:
    """Make `store_path` this point's copy of the finished `twin`; returns the copy's run card."""
    store_path.mkdir(parents=True, exist_ok=True)
    for item in sorted(twin.iterdir()):
        if item.name in NOT_COPIED:
            continue
        if item.is_dir():
            shutil.copytree(item, store_path / item.name, copy_function=_link_or_copy, dirs_exist_ok=True)
        else:
            shutil.copy2(item, store_path / item.name)
    OmegaConf.save({k: v for k, v in raw.items() if k != "hydra"}, store_path / "config.yaml", resolve=True)
    card = json.loads((twin / "run_card.json").read_text())
    origin = card.get("reused_from") or {"run_id": card["run_id"], "sweep": card.get("sweep"), "path": str(twin)}
    card |= {"run_id": own_id, "sweep": str(raw.sweep_name), "reused_from": origin}
    (store_path / "run_card.json").write_text(json.dumps(card, indent=2))
    log.info("run %s: copied from the finished run %s (same config, sweep %s)", own_id, twin, origin["sweep"])
    return card


def _link_or_copy(src: str, dst: str) -> str:
    """Checkpoint files never change once written: a hard link saves the space, a copy where links fail."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
    return dst
