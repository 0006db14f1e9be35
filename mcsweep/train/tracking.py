"""W&B tracking: `auto` (the default) is online when the user is logged in, offline otherwise.

The run id is the run store's id, so a resumed run continues the same W&B run; the group is the
sweep name; each axis's option is a flat `axis/<name>` key so dashboards can group by axis.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcsweep.config.schema import RunConfig

AXES = ("evaluator", "temperature", "data", "context", "masking", "batch", "kl_clip")


def axis_options(cfg: RunConfig) -> dict[str, str]:
    return {axis: getattr(cfg, axis).name for axis in AXES}


def _mode(requested: str) -> str:
    """`auto`: an explicit WANDB_MODE wins, else online when logged in, else offline."""
    if requested != "auto":
        return requested
    if os.environ.get("WANDB_MODE"):
        return os.environ["WANDB_MODE"]
    import wandb

    return "online" if wandb.login(prompt=False, verify=False) else "offline"


def start_wandb(cfg: RunConfig, run_id: str, run_dir: Path, config_dict: dict, card: dict):
    """Start (or resume) the W&B run; TRL's W&B callback then logs into it. None when disabled."""
    if not cfg.tracker.wandb or cfg.tracker.mode == "disabled":
        os.environ["WANDB_DISABLED"] = "true"
        return None
    import wandb

    mode = _mode(cfg.tracker.mode)
    os.environ["WANDB_MODE"] = mode
    flat = {f"axis/{k}": v for k, v in axis_options(cfg).items()} | {"algo": cfg.algo.name, "seed": cfg.seed}
    return wandb.init(
        project=cfg.tracker.project,
        entity=cfg.tracker.entity,
        id=run_id,
        name=run_id,
        group=cfg.sweep_name,
        dir=str(run_dir),
        mode=mode,
        resume="allow",
        config={**config_dict, **flat, "run_card": card},
        settings=wandb.Settings(silent=True, console="off"),
    )
