"""One run's lifecycle: what a run opens, and how its run card ends, in one place.

Entering `run_session` writes config.yaml and the run card (status running), starts W&B and the
evaluator; leaving it marks the card finished (with the final summary) or failed (on any exception,
interrupts included), then closes the evaluator, records the segment's cost on the card (`compute`:
after the close, so the sandbox workers' CPU time is counted) and uploads the run store to W&B and
finishes it. The card is marked before the closing, so a failure to close cannot leave a finished run
"running".
"""

from __future__ import annotations

import os
import platform
import subprocess
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import torch
from omegaconf import DictConfig, OmegaConf

import mcsweep
from mcsweep.config.schema import RunConfig, plain_dict
from mcsweep.evaluator import Evaluator
from mcsweep.launch.status import CardStatus
from mcsweep.train import compute, tracking
from mcsweep.train.run_store import RunStore
from mcsweep.train.tracking import axis_options, start_wandb


@dataclass
class RunSession:
    """The open resources of a run; `evaluator` grades rewards and evaluations alike."""

    store: RunStore
    evaluator: Evaluator
    wandb_run: object | None


def run_card(cfg: RunConfig, run_id: str) -> dict:
    import transformers
    import trl

    return {
        "run_id": run_id,
        "sweep": cfg.sweep_name,
        "axes": axis_options(cfg),
        "algo": cfg.algo.name,
        "seed": cfg.seed,
        "world": "micro" if cfg.model.kind == "micro" else cfg.model.path,
        "scale": cfg.scale,
        "status": CardStatus.RUNNING,
        "started": compute.stamp(),
        "versions": {
            "mcsweep": mcsweep.__version__,
            "trl": trl.__version__,
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        },
        "git_commit": _git_commit(),
        "machine": {
            "host": platform.node(),
            "cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(),
            "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        },
    }


def _git_commit() -> str | None:
    root = Path(__file__).resolve().parents[2]
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return sha.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def final_summary(store: RunStore) -> dict:
    """Test pass@1 of the last evaluation, at the training, the common and the longest evaluation length."""
    evals = store.rows("evals")
    if not evals:
        return {"run_dir": str(store.path)}
    last = [r for r in evals if r["step"] == evals[-1]["step"]]
    common = [r["pass@1"] for r in last if r.get("common_length")]
    return {
        "step": last[0]["step"],
        "pass@1": last[0]["pass@1"],
        "pass@1_ext": max(last, key=lambda r: r["max_length"])["pass@1"],
        **({"pass@1_common": common[0]} if common else {}),
        "run_dir": str(store.path),
    }


def _record_compute(store: RunStore, clock: compute.SegmentClock, world_size: int, wandb_run) -> None:
    """This segment's wall and CPU time added to the card (and the totals to the W&B summary)."""
    totals = compute.add_segment(store.read_json("run_card.json").get("compute"), clock.stop(), world_size)
    store.update_card(compute=totals)
    if wandb_run is not None:
        wandb_run.summary.update({f"compute/{k}": totals[k] for k in compute.TOTALS})


def _finish_wandb(store: RunStore, wandb_run) -> None:
    tracking.log_run_store(store.path, "end")
    wandb_run.finish()


def record_copy(cfg: RunConfig, run_id: str, store: RunStore, card: dict) -> None:
    """A run folder copied from a finished twin (mcsweep/launch/reuse.py) gets its own W&B run, in its
    own sweep's group, holding the twin's history: a W&B-sourced report sees the arm in both sweeps."""
    wandb_run = start_wandb(cfg, run_id, store.path, plain_dict(cfg), card)
    if wandb_run is not None:
        tracking.replay_run_store(store.path)
        wandb_run.finish()


@contextmanager
def run_session(
    cfg: RunConfig,
    raw: DictConfig,
    run_id: str,
    store: RunStore,
    open_evaluator: Callable[[], Evaluator],
    main_process: bool = True,
    world_size: int = 1,
) -> Iterator[RunSession]:
    """Open the run (see the module docstring); only the main process writes files and talks to W&B.
    A resumed run keeps its first `started` time and adds a cost segment."""
    clock = compute.SegmentClock()
    with ExitStack() as closing:
        try:
            if main_process:
                OmegaConf.save({k: v for k, v in raw.items() if k != "hydra"}, store.path / "config.yaml", resolve=True)
            card = run_card(cfg, run_id)
            card["started"] = store.read_json("run_card.json").get("started", card["started"])
            store.update_card(**card)
            wandb_run = None
            if main_process:
                card = store.read_json("run_card.json")
                wandb_run = start_wandb(cfg, run_id, store.path, plain_dict(cfg), card)
            if wandb_run is not None:
                closing.callback(_finish_wandb, store, wandb_run)
            closing.callback(_record_compute, store, clock, world_size, wandb_run)
            evaluator = open_evaluator()
            closing.callback(evaluator.close)
            store.update_card(judge_sandbox=evaluator.isolation.summary())
            yield RunSession(store, evaluator, wandb_run)
        except BaseException:
            store.update_card(status=CardStatus.FAILED, finished=compute.stamp())
            raise
        store.update_card(status=CardStatus.FINISHED, finished=compute.stamp(), final=final_summary(store))
