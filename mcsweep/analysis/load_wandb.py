"""Load runs from W&B (``wandb:ENTITY/PROJECT[/GROUP]``) into the frames the run-store loader makes.

mcsweep's tracker (``mcsweep/train/tracking.py``) logs TRL's rows as ``train/<metric>``, each
evaluation row as ``evals/len<L>/<column>`` and the temperature evaluations as
``temperature_evals/...``, all against ``train/global_step``, and uploads the run folder as a
``run-store`` artifact. This module reverses that: history rows become the ``metrics`` and
``evals`` files of the tidy frame, and samples come from the newest ``run-store`` artifact. What a
W&B run lacks (no evaluation rows, no artifact, no mcsweep config) is said in the load report.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from mcsweep.analysis import names
from mcsweep.analysis.load import (
    _SAMPLE_RENAME,
    TIDY_COLUMNS,
    LoadReport,
    _empty,
    _numeric,
    _read_jsonl,
    _register,
    _run_columns,
    _step_of,
    _tidy,
    eval_tuples,
    evaluation_kind,
)
from mcsweep.train.compute import TOTALS

_WANDB_STATUS = {
    "finished": "finished",
    "running": "running",
    "crashed": "failed",
    "failed": "failed",
    "killed": "failed",
}
EVAL_KEY = re.compile(r"^evals/len(?P<length>\d+)/(?:[^/=]+=[^/]+/)*(?P<column>.+)$")
"""``evals/len<L>[/<field>=<value>...]/<column>``, as ``tracking.row_prefix`` writes it."""
NOT_METRICS = ("evals/", "evals@", "temperature_evals/")
"""History keys that are evaluation rows, not metrics.jsonl columns (temperature evaluations are
read from the samples, as in the run store)."""
ARTIFACT_TYPE = "run-store"
RUNS_PER_PAGE = 50


def _iter_wandb_runs(spec: str, api: Any) -> Iterator[Any]:
    parts = spec.strip("/").split("/")
    if len(parts) not in (2, 3):
        raise ValueError(f"W&B source must be wandb:ENTITY/PROJECT[/GROUP], got wandb:{spec}")
    if api is None:
        import wandb

        api = wandb.Api()
    filters = {"group": parts[2]} if len(parts) == 3 else None
    yield from api.runs("/".join(parts[:2]), filters=filters, per_page=RUNS_PER_PAGE, lazy=False)


def _card_from_wandb(run: Any, report: LoadReport, where: str) -> dict[str, Any]:
    """A run card from a W&B run's config: a ``run_card`` entry, or mcsweep's flat ``axis/<name>`` keys
    (group = sweep), or top-level card keys. Arm values come from the ``mcsweep`` config section
    (TRL's callback owns the top level, where ``temperature`` is a bare number)."""
    config = dict(run.config or {})
    card = dict(config.get("run_card") or config)
    flat_axes = {k.removeprefix("axis/"): v for k, v in config.items() if k.startswith("axis/")}
    card["axes"] = card.get("axes") or flat_axes
    card["run_id"] = card.get("run_id") or run.id
    card["sweep"] = card.get("sweep") or run.group or "single"
    card["status"] = _WANDB_STATUS.get(run.state, run.state)
    if "mcsweep" not in config and card["axes"]:
        report.add(card["run_id"], where, "no 'mcsweep' config section: arm values are option names only")
    card["config"] = config.get("mcsweep") or config
    card.setdefault("world", _world_of(card["config"]))
    cost = {k: _summary_value(run, f"compute/{k}") for k in TOTALS}
    if cost["wall_s"] is not None:  # the card in the config was written at the start, the cost at the end
        card["compute"] = cost
    return card


def _summary_value(run: Any, key: str) -> Any:
    summary = getattr(run, "summary", None) or {}
    return summary.get(key) if hasattr(summary, "get") else None


def _world_of(config: dict[str, Any]) -> str | None:
    model = config.get("model") if isinstance(config.get("model"), dict) else {}
    return "micro" if model.get("kind") == "micro" else model.get("path")


def _split(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    """(metrics rows, evals frame) from history rows: ``evals/len<L>/...`` keys are put back together
    into evals.jsonl rows (0/1 flags as booleans) and tidied by the local loader's ``eval_tuples``."""
    metrics, evals = [], {}
    for row in rows:
        step = _step_of(row)
        metrics.append({k: v for k, v in row.items() if not k.startswith(NOT_METRICS)})
        for key, value in row.items():
            match = EVAL_KEY.match(key)
            if match and step is not None and _numeric(value):
                cell = evals.setdefault((int(step), int(match["length"])), {"step": int(step)})
                cell["max_length"] = int(match["length"])
                column = match["column"]
                cell[column] = bool(value) if column in names.EVAL_VIEWS else float(value)
    frame = pd.DataFrame(eval_tuples(list(evals.values())), columns=["step", "max_length", "metric", "value"])
    return metrics, frame.assign(file="evals")


def load_wandb(spec: str, report: LoadReport, api: Any) -> pd.DataFrame:
    frames = []
    for run in _iter_wandb_runs(spec, api):
        where = f"wandb:{spec}/{run.id}"
        card = _card_from_wandb(run, report, where)
        rows = list(run.scan_history())
        if rows and all(_step_of(r) is None for r in rows):
            report.add(card["run_id"], where, "no trainer step key; using W&B _step")
            rows = [{**r, "step": r.get("_step")} for r in rows]
        metric_rows, evals = _split(rows)
        frame = pd.concat([_tidy(metric_rows, "metrics", card["run_id"], report), evals], ignore_index=True)
        if not rows:
            report.add(card["run_id"], where, "history is empty")
        elif evals.empty:
            report.add(
                card["run_id"],
                where,
                "no evals/len<L>/<column> keys: evaluation rows (pass@1 by difficulty, format, length) unavailable",
            )
        _register(card, frame, report, where)
        frames.append(frame.assign(**_run_columns(card)) if not frame.empty else frame)
    if not frames:
        report.add(spec, f"wandb:{spec}", "no runs found")
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else _empty(TIDY_COLUMNS)


def _run_store_artifact(run: Any) -> Any | None:
    """The run's newest ``run-store`` artifact version (its run folder at the last upload)."""
    stores = [a for a in run.logged_artifacts() if a.type == ARTIFACT_TYPE]
    return max(stores, key=lambda a: int(str(a.version).removeprefix("v")), default=None)


def load_wandb_samples(spec: str, report: LoadReport, api: Any) -> list[pd.DataFrame]:
    """Per run, its ``eval_samples.jsonl`` from the newest ``run-store`` artifact, with run columns."""
    frames = []
    for run in _iter_wandb_runs(spec, api):
        where = f"wandb:{spec}/{run.id}"
        card = _card_from_wandb(run, report, where)
        artifact = _run_store_artifact(run)
        rows: list[dict[str, Any]] = []
        if artifact is None:
            report.add(card["run_id"], where, "no run-store artifact: samples (length density, pass@k) unavailable")
        else:
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(artifact.download(root=tmp))
                rows, found = _read_jsonl(root / "eval_samples.jsonl", card["run_id"], report)
                if rows:
                    frame = pd.DataFrame(rows).rename(columns=_SAMPLE_RENAME).assign(**_run_columns(card))
                    frames.append(frame.assign(evaluation=evaluation_kind(frame, root, card["run_id"], report)))
            if not found:
                report.add(card["run_id"], f"{where}:{artifact.name}", "artifact has no eval_samples.jsonl")
        report.runs.append({**_run_columns(card), "n_rows": len(rows)})
    return frames
