"""W&B tracking: `auto` (the default) is online when the user is logged in, offline otherwise.

The run id is the run store's id, so a resumed run (and `temperature_eval`) continues the same W&B
run; the group is the sweep name, the display name `<sweep>/<arm>/s<seed>`, and each axis's option
is a flat `axis/<name>` key (and an `<axis>:<option>` tag) so dashboards can group by axis, as are
`algo`, `seed` and `world` (the base model).

mcsweep's resolved config sits under the `mcsweep` config key: TRL's W&B callback writes the
trainer's arguments at the top level (its `temperature` is the sampling temperature, a number), so
a top-level `temperature` section would be overwritten. Everything the run folder records reaches
W&B on the trainer's step axis (`train/global_step`): TRL's metric rows, the step-0 row, every
evaluation row (`evals/len<L>/<column>`), the temperature evaluations
(`temperature_evals/t<T>/len<L>/<column>`), and the JSONL files as a versioned `run-store`
artifact. Rows are logged generically, column by column, so new columns flow through unchanged.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from mcsweep.analysis.names import EVAL_VIEWS
from mcsweep.config.schema import RunConfig

AXES = ("evaluator", "temperature", "data", "context", "masking", "batch", "kl_clip")
STEP = "train/global_step"
"""TRL's W&B step metric; every mcsweep key is plotted against it too."""
SUMMARIZED = ("train/eval/pass@1", "train/eval/pass@1_ext")
"""Keys whose run summary holds both the final (`last`) and the peak (`max`) value."""
ARTIFACT_TYPE = "run-store"
STORE_FILES = ("*.jsonl", "run_card.json", "config.yaml", "temperature_probe.json")
IDENTITY = ("step", "max_length", "temperature")
"""Row fields that say which evaluation a row is; the rest are its columns."""


def axis_options(cfg: RunConfig) -> dict[str, str]:
    return {axis: getattr(cfg, axis).name for axis in AXES}


def arm(cfg: RunConfig) -> str:
    """The option the run's sweep varies: the axis the sweep is named after, else the algorithm."""
    axis = next((a for a in AXES if cfg.sweep_name == a or cfg.sweep_name.startswith(f"{a}_")), None)
    return getattr(cfg, axis).name if axis else cfg.algo.name


def run_name(cfg: RunConfig) -> str:
    return f"{cfg.sweep_name}/{arm(cfg)}/s{cfg.seed}"


def tags(cfg: RunConfig) -> list[str]:
    return [f"sweep:{cfg.sweep_name}", f"algo:{cfg.algo.name}", *(f"{a}:{o}" for a, o in axis_options(cfg).items())]


def artifact_name(run_id: str) -> str:
    return f"run-store-{run_id}"


def enabled(cfg: RunConfig) -> bool:
    return cfg.tracker.wandb and cfg.tracker.mode != "disabled"


def report_to(cfg: RunConfig) -> list[str]:
    """TRL's `report_to`: its profiling timers log to W&B only when "wandb" is in it, so without
    `tracker.profiling` the W&B callback is added by `callbacks` instead."""
    return ["wandb"] if enabled(cfg) and cfg.tracker.profiling else []


def callbacks(cfg: RunConfig, store_path: Path) -> list[TrainerCallback]:
    """W&B callbacks to add to the trainer (none when tracking is off)."""
    if not enabled(cfg):
        return []
    from transformers.integrations import WandbCallback

    extra: list[TrainerCallback] = [] if cfg.tracker.profiling else [WandbCallback()]
    return [*extra, RunStoreArtifactCallback(store_path)]


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
    if not enabled(cfg):
        os.environ["WANDB_DISABLED"] = "true"
        return None
    import wandb

    mode = _mode(cfg.tracker.mode)
    os.environ["WANDB_MODE"] = mode
    flat = {f"axis/{k}": v for k, v in axis_options(cfg).items()}
    flat |= {"algo": cfg.algo.name, "seed": cfg.seed, "world": card.get("world")}
    run = wandb.init(
        project=cfg.tracker.project,
        entity=cfg.tracker.entity,
        id=run_id,
        name=run_name(cfg),
        group=cfg.sweep_name,
        job_type=cfg.tracker.job_type,
        tags=tags(cfg),
        dir=str(run_dir),
        mode=mode,
        resume="allow",
        config={"mcsweep": config_dict, **flat, "run_card": card},
        settings=wandb.Settings(silent=True, console="off"),
    )
    run.define_metric(STEP)
    run.define_metric("*", step_metric=STEP, step_sync=True)
    for key in SUMMARIZED:
        run.define_metric(key, step_metric=STEP, summary="max,last")
    return run


def _active_run():
    """The W&B run in progress, without importing wandb where tracking is off."""
    wandb = sys.modules.get("wandb")
    return None if wandb is None else wandb.run


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def row_prefix(table: str, row: dict) -> str:
    """`<table>[/t<T>]/len<L>[/<field>=<value>...]`: which evaluation a row is (generic in its fields)."""
    parts = [table]
    if row.get("temperature") is not None:
        parts.append(f"t{row['temperature']:g}")
    if row.get("max_length") is not None:
        parts.append(f"len{row['max_length']}")
    parts += [f"{k}={v}" for k, v in row.items() if isinstance(v, str)]
    return "/".join(parts)


def log_metrics(row: dict) -> None:
    """A metrics.jsonl row that TRL does not log itself (the step-0 evaluation), named as TRL names it."""
    run = _active_run()
    if run is None:
        return
    from transformers.integrations.integration_utils import rewrite_logs

    values = {k: v for k, v in row.items() if k != "step" and _number(v)}
    run.log({**rewrite_logs(values), STEP: row["step"]})


def log_eval_rows(table: str, rows: list[dict]) -> None:
    """evals.jsonl (or temperature_evals.jsonl) rows: every numeric column under the row's prefix (flags as
    0/1), and flagged evals rows again under their `names.EVAL_VIEWS` prefix for dashboards."""
    run = _active_run()
    if run is None:
        return
    for row in rows:
        prefix = row_prefix(table, row)
        cells = {k: float(v) if isinstance(v, bool) else v for k, v in row.items() if k not in IDENTITY}
        values = {f"{prefix}/{k}": v for k, v in cells.items() if _number(v)}
        for flag, view in EVAL_VIEWS.items():  # the same row under evals@train/ and evals@common/
            if table == "evals" and row.get(flag) is True:
                values |= {f"{view}{k}": v for k, v in cells.items() if _number(v) and k not in EVAL_VIEWS}
        run.log({**values, STEP: row["step"]})


def log_run_store(store_path: Path, alias: str) -> None:
    """The run folder's records as a new version of the run's `run-store` artifact."""
    run = _active_run()
    if run is None:
        return
    import wandb

    artifact = wandb.Artifact(artifact_name(run.id), type=ARTIFACT_TYPE)
    for pattern in STORE_FILES:
        for path in sorted(Path(store_path).glob(pattern)):
            artifact.add_file(str(path), name=path.name)
    run.log_artifact(artifact, aliases=[alias])


def replay_run_store(store_path: Path) -> None:
    """A copied run folder's rows (mcsweep/launch/reuse.py) into the active W&B run as training and
    `temperature_eval` logged them: metrics and evaluation rows in step order, then the temperature
    evaluations, then the folder as the `end` version of its artifact."""
    from mcsweep.io.jsonl import read_jsonl

    def rows(name: str) -> list[dict]:
        path = Path(store_path) / f"{name}.jsonl"
        return read_jsonl(path) if path.exists() else []

    # Within one step, the metrics row first (sort is stable): the order training logs them in.
    for table, row in sorted(
        [("metrics", r) for r in rows("metrics")] + [("evals", r) for r in rows("evals")], key=lambda t: t[1]["step"]
    ):
        log_metrics(row) if table == "metrics" else log_eval_rows("evals", [row])
    log_eval_rows("temperature_evals", rows("temperature_evals"))
    log_run_store(Path(store_path), "end")


class RunStoreArtifactCallback(TrainerCallback):
    """A `run-store` artifact version at every checkpoint (alias `step-<N>`)."""

    def __init__(self, store_path: Path) -> None:
        self.store_path = store_path

    def on_save(self, args, state, control, **kwargs):
        if state.is_world_process_zero:
            log_run_store(self.store_path, f"step-{state.global_step}")
