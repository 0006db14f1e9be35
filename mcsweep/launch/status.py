"""Where a sweep point stands, read from its run folder, so a re-run skips or resumes it."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path


class RunStatus(StrEnum):
    NEW = "new"  # nothing to reuse: launch from scratch
    DONE = "done"  # finished: skip
    PARTIAL = "partial"  # started and left a checkpoint: launch, and the run resumes from it


class CardStatus(StrEnum):
    """`status` in run_card.json, written by the run session (mcsweep/train/session.py)."""

    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"


class RunStoreError(RuntimeError):
    """A run folder exists but its run card cannot be understood."""


def has_checkpoint(run_dir: Path) -> bool:
    """TRL writes `checkpoints/checkpoint-<step>/`; one of them is enough to resume."""
    folder = run_dir / "checkpoints"
    return folder.is_dir() and any(p.is_dir() and p.name.startswith("checkpoint-") for p in folder.iterdir())


def run_status(run_dir: Path) -> RunStatus:
    """finished -> done; running or failed with a checkpoint -> partial; otherwise new.

    A run card that says running may belong to a run still alive elsewhere; the run store cannot
    tell, so it counts as partial (or new) like a crashed one."""
    card_path = run_dir / "run_card.json"
    if not card_path.exists():
        return RunStatus.NEW
    try:
        status = json.loads(card_path.read_text())["status"]
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise RunStoreError(f"{card_path}: no readable 'status' ({err.__class__.__name__}: {err})") from None
    if status == CardStatus.FINISHED:
        return RunStatus.DONE
    if status in (CardStatus.RUNNING, CardStatus.FAILED):
        return RunStatus.PARTIAL if has_checkpoint(run_dir) else RunStatus.NEW
    expected = ", ".join(CardStatus)
    raise RunStoreError(f"{card_path}: unknown status {status!r}; expected one of {expected}")
