"""Load runs from W&B (``wandb:ENTITY/PROJECT[/GROUP]``) into the tidy frame the run-store loader makes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd

from mcsweep.analysis.load import TIDY_COLUMNS, LoadReport, _empty, _register, _run_columns, _step_of, _tidy

_WANDB_STATUS = {
    "finished": "finished",
    "running": "running",
    "crashed": "failed",
    "failed": "failed",
    "killed": "failed",
}


def _iter_wandb_runs(spec: str, api: Any) -> Iterator[Any]:
    parts = spec.strip("/").split("/")
    if len(parts) not in (2, 3):
        raise ValueError(f"W&B source must be wandb:ENTITY/PROJECT[/GROUP], got wandb:{spec}")
    if api is None:
        import wandb

        api = wandb.Api()
    filters = {"group": parts[2]} if len(parts) == 3 else None
    yield from api.runs("/".join(parts[:2]), filters=filters, lazy=False)


def _card_from_wandb(run: Any) -> dict[str, Any]:
    """A run card from a W&B run's config: a ``run_card`` entry, or mcsweep's flat ``axis/<name>`` keys
    (group = sweep), or top-level card keys."""
    config = dict(run.config or {})
    card = dict(config.get("run_card") or config)
    flat_axes = {k.removeprefix("axis/"): v for k, v in config.items() if k.startswith("axis/")}
    card["axes"] = card.get("axes") or flat_axes
    card["run_id"] = card.get("run_id") or run.id
    card["sweep"] = card.get("sweep") or run.group or "single"
    card["status"] = _WANDB_STATUS.get(run.state, run.state)
    card["config"] = config
    card.setdefault("world", _world_of(config))
    return card


def _world_of(config: dict[str, Any]) -> str | None:
    model = config.get("model") if isinstance(config.get("model"), dict) else {}
    return "micro" if model.get("kind") == "micro" else model.get("path")


def load_wandb(spec: str, report: LoadReport, api: Any) -> pd.DataFrame:
    frames = []
    for run in _iter_wandb_runs(spec, api):
        card = _card_from_wandb(run)
        rows = list(run.scan_history())
        if rows and all(_step_of(r) is None for r in rows):
            report.add(card["run_id"], f"wandb:{spec}", "no trainer step key; using W&B _step")
            rows = [{**r, "step": r.get("_step")} for r in rows]
        frame = _tidy(rows, "metrics", card["run_id"], report)
        if frame.empty:
            report.add(card["run_id"], f"wandb:{spec}", "history is empty")
        _register(card, frame, report, f"wandb:{spec}/{run.id}")
        frames.append(frame.assign(**_run_columns(card)) if not frame.empty else frame)
    if not frames:
        report.add(spec, f"wandb:{spec}", "no runs found")
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else _empty(TIDY_COLUMNS)
