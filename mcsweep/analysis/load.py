"""Load runs into one tidy frame, from the run store (docs/ARCHITECTURE.md) or from W&B.

Every run found is listed in the load report, with what was missing or partial, so a report
built on the frame can say which runs it stands on. Nothing is dropped without an entry there.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml
from omegaconf import OmegaConf

from mcsweep.analysis import names
from mcsweep.analysis.arms import AXIS_OF_SWEEP, arm_of
from mcsweep.analysis.compute import run_cost
from mcsweep.io.jsonl import JsonlError, read_jsonl
from mcsweep.launch.identity import config_key as identity_config_key

NO_CARD = "unknown"
"""A run's status where it has no readable run card (named in the load report; the verdicts keep it)."""

log = logging.getLogger(__name__)

AXES: tuple[str, ...] = ("evaluator", "temperature", "data", "context", "masking", "batch", "kl_clip")
RUN_COLUMNS: tuple[str, ...] = (
    "run_id",
    "sweep",
    "world",
    "algo",
    "seed",
    "status",
    "simulated",
    *AXES,
    "arm",
    "config_key",
)
"""Axis columns hold each axis's arm label; ``arm`` holds the swept axis's ``arms.Arm`` record (None for
sweeps that vary no axis); ``config_key`` is the same for runs of one config launched in several sweeps
(from the run folder's config.yaml; None without one, and for W&B runs, whose client reshapes configs)."""
TIDY_COLUMNS: tuple[str, ...] = (*RUN_COLUMNS, "file", "max_length", "step", "metric", "value")
SAMPLE_FIELDS: tuple[str, ...] = (
    "step",
    "max_length",
    "temperature",
    "problem_id",
    "difficulty",
    "format",
    "sample",
    "passed",
    "verdict",
    "length",
    "truncated",
)
_EVAL_KEYS = {"step", "max_length", "temperature"}
_SAMPLE_RENAME = {"temperature": "eval_temperature"}
"""A sample's sampling temperature is renamed so it cannot clash with the ``temperature`` axis column."""
SAMPLE_COLUMNS: tuple[str, ...] = tuple(_SAMPLE_RENAME.get(f, f) for f in SAMPLE_FIELDS)


@dataclass
class RunIssue:
    """One thing wrong with one run (or source): kept, and said, never hidden."""

    run_id: str
    where: str
    problem: str


@dataclass
class LoadReport:
    """What the loader found: every run (with its row count) and every issue."""

    runs: list[dict[str, Any]] = field(default_factory=list)
    issues: list[RunIssue] = field(default_factory=list)
    unknown_metrics: set[str] = field(default_factory=set)

    def add(self, run_id: str, where: str, problem: str) -> None:
        self.issues.append(RunIssue(run_id, where, problem))
        log.warning("%s (%s): %s", run_id, where, problem)

    def partial_runs(self) -> list[str]:
        """Runs that did not finish (running, failed) or that lack metrics."""
        return sorted({r["run_id"] for r in self.runs if r["status"] != "finished" or r["n_rows"] == 0})


def load(*sources: str | Path, api: Any = None) -> pd.DataFrame:
    """Tidy frame (``TIDY_COLUMNS``) of every metric of every run under ``sources``.

    A source is a run folder, any folder above run folders, a report's data folder (or the report
    folder holding it; ``report_data``), or ``wandb:ENTITY/PROJECT[/GROUP]`` (read through
    ``wandb.Api()``, or ``api`` when given). The load report is in
    ``frame.attrs["load_report"]`` (see ``load_report``).
    """
    report = LoadReport()
    frames = [_load_source(src, report, api) for src in sources]
    frames = [f for f in frames if not f.empty]
    frame = pd.concat(frames, ignore_index=True) if frames else _empty(TIDY_COLUMNS)
    frame = frame.reindex(columns=list(TIDY_COLUMNS))
    frame.attrs["load_report"] = report
    return frame


def load_report(frame: pd.DataFrame) -> LoadReport:
    """The report ``load`` attached to ``frame`` (an empty one if the frame did not come from it)."""
    return frame.attrs.get("load_report", LoadReport())


def load_samples(*sources: str | Path, api: Any = None) -> pd.DataFrame:
    """One row per stored evaluation sample (``eval_samples.jsonl``) with its run's columns.

    The sample's ``temperature`` field becomes ``eval_temperature`` (``temperature`` is the sweep
    axis); ``evaluation`` says which evaluation wrote the row ('temperatures' or 'training'). A W&B
    source is read from each run's newest ``run-store`` artifact.
    """
    report = LoadReport()
    frames = []
    for src in sources:
        if str(src).startswith("wandb:"):
            from mcsweep.analysis.load_wandb import load_wandb_samples  # imports this module

            frames += load_wandb_samples(str(src).removeprefix("wandb:"), report, api)
            continue
        if (data := _data_folder(src)) is not None:
            from mcsweep.analysis import report_data  # imports this module

            frames.append(report_data.read_samples(data, report))
            continue
        for run_dir in _run_dirs(Path(src), report):
            card = _read_card(run_dir, report)
            rows, _ = _read_jsonl(run_dir / "eval_samples.jsonl", card["run_id"], report)
            report.runs.append({**_run_columns(card), "n_rows": len(rows)})
            if rows:
                frame = pd.DataFrame(rows).rename(columns=_SAMPLE_RENAME).assign(**_run_columns(card))
                frames.append(frame.assign(evaluation=evaluation_kind(frame, run_dir, card["run_id"], report)))
    frame = pd.concat(frames, ignore_index=True) if frames else _empty((*RUN_COLUMNS, *SAMPLE_COLUMNS, "evaluation"))
    frame.attrs["load_report"] = report
    return frame


def evaluation_kind(samples: pd.DataFrame, run_dir: Path, run_id: str, report: LoadReport) -> list[str]:
    """'temperatures' for rows of the evaluate-at-temperatures command (its (step, temperature) pairs are
    listed in temperature_evals.jsonl), 'training' for the trainer's regular evaluation."""
    done, _ = _read_jsonl(run_dir / "temperature_evals.jsonl", run_id, report)
    pairs = {(int(r["step"]), float(r["temperature"])) for r in done if "step" in r and "temperature" in r}
    keys = zip(samples["step"], samples.get("eval_temperature", pd.Series(index=samples.index)), strict=True)
    return ["temperatures" if (int(s), float(t)) in pairs else "training" for s, t in keys]


def _data_folder(src: str | Path) -> Path | None:
    """The report data folder ``src`` names (itself, or a report folder's ``data/``), or None."""
    from mcsweep.analysis.report_data import folder_of  # imports this module

    return folder_of(Path(src))


def _empty(columns: Iterable[str]) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})


def _load_source(src: str | Path, report: LoadReport, api: Any) -> pd.DataFrame:
    if str(src).startswith("wandb:"):
        from mcsweep.analysis.load_wandb import load_wandb  # imports this module

        return load_wandb(str(src).removeprefix("wandb:"), report, api)
    if (data := _data_folder(src)) is not None:
        from mcsweep.analysis import report_data  # imports this module

        return report_data.read_frame(data, report)
    frames = [_load_run_dir(d, report) for d in _run_dirs(Path(src), report)]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else _empty(TIDY_COLUMNS)


def _run_dirs(root: Path, report: LoadReport) -> list[Path]:
    """Folders holding a run_card.json or a metrics.jsonl, outside checkpoints."""
    if not root.exists():
        report.add(str(root), str(root), "source does not exist")
        return []
    found = {p.parent for pat in ("run_card.json", "metrics.jsonl") for p in root.rglob(pat)}
    dirs = sorted(d for d in found if "checkpoints" not in d.relative_to(root).parts)
    if not dirs:
        report.add(str(root), str(root), "no run folders (run_card.json or metrics.jsonl) found")
    return dirs


def _read_card(run_dir: Path, report: LoadReport) -> dict[str, Any]:
    path = run_dir / "run_card.json"
    try:
        card = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        report.add(
            run_dir.name,
            str(path),
            f"run_card.json unreadable ({exc.__class__.__name__}); run id and sweep taken from folder names",
        )
        card = {"run_id": run_dir.name, "sweep": run_dir.parent.name, "status": NO_CARD}
    card.setdefault("run_id", run_dir.name)
    card.setdefault("sweep", run_dir.parent.name)
    card["config"] = _read_config(run_dir / "config.yaml", card["run_id"], report)
    card["config_key"] = config_key(card["config"]) if card["config"] else None
    return card


def _read_config(path: Path, run_id: str, report: LoadReport) -> dict[str, Any]:
    """The resolved Hydra config (for arm values); absent or unreadable is reported, not fatal."""
    if not path.exists():
        return {}
    try:
        config = yaml.safe_load(path.read_text())
    except yaml.YAMLError:
        report.add(run_id, str(path), "config.yaml unreadable; axis values kept as option names")
        return {}
    return config if isinstance(config, dict) else {}


def _run_columns(card: dict[str, Any]) -> dict[str, Any]:
    """Run-level columns: axis columns hold each arm's label, ``arm`` the swept axis's typed record."""
    axes, config = card.get("axes") or {}, card.get("config") or {}
    cols = {k: card.get(k) for k in ("run_id", "sweep", "world", "algo", "seed", "status")}
    cols["simulated"] = bool(card.get("simulated", False))
    arms = {a: arm_of(a, str(axes[a]), config.get(a)) for a in AXES if axes.get(a) is not None}
    cols.update({a: arms[a].label if a in arms else None for a in AXES})
    cols["arm"] = arms.get(AXIS_OF_SWEEP.get(str(card.get("sweep")), ""))
    cols["config_key"] = card.get("config_key")
    return cols


def config_key(config: dict[str, Any]) -> str:
    """``launch.identity.config_key`` of a run folder's config: one config in two sweeps has two run
    ids but one key."""
    return identity_config_key(OmegaConf.create(config))


def _read_jsonl(path: Path, run_id: str, report: LoadReport) -> tuple[list[dict[str, Any]], bool]:
    """Rows of a JSONL file; unreadable lines are reported. The flag says whether the file exists."""
    if not path.exists():
        return [], False
    errors: list[JsonlError] = []
    rows = read_jsonl(path, errors, objects=False)
    for err in errors:
        report.add(run_id, str(path), f"line {err.line_no} is not JSON (skipped)")
    return rows, True


def _load_run_dir(run_dir: Path, report: LoadReport) -> pd.DataFrame:
    card = _read_card(run_dir, report)
    rid = card["run_id"]
    metrics, has_metrics = _read_jsonl(run_dir / "metrics.jsonl", rid, report)
    evals, has_evals = _read_jsonl(run_dir / "evals.jsonl", rid, report)
    if not has_metrics:
        report.add(rid, str(run_dir), "metrics.jsonl missing")
    if not has_evals:
        report.add(rid, str(run_dir), "evals.jsonl missing")
    frame = pd.concat([_tidy(metrics, "metrics", rid, report), _tidy_evals(evals, rid, report)], ignore_index=True)
    _register(card, frame, report, str(run_dir))
    return frame.assign(**_run_columns(card)) if not frame.empty else frame


def _register(card: dict[str, Any], frame: pd.DataFrame, report: LoadReport, where: str) -> None:
    status = card.get("status", NO_CARD)
    if status != "finished":
        report.add(card["run_id"], where, f"status is {status!r}: partial run, kept and marked")
    steps = frame.loc[frame["file"] == "metrics", "step"] if not frame.empty else pd.Series(dtype=float)
    report.runs.append(
        {
            **_run_columns(card),
            "n_rows": len(frame),
            "last_step": None if steps.empty else int(steps.max()),
            "where": where,
            **run_cost(card),
        }
    )
    if not frame.empty:
        report.unknown_metrics |= {m for m in frame["metric"].unique() if not names.is_known(m)}


def _numeric(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _step_of(row: dict[str, Any]) -> Any:
    return next((row[k] for k in names.STEP_KEYS if _numeric(row.get(k))), None)


def _tidy(rows: list[dict[str, Any]], file: str, rid: str, report: LoadReport) -> pd.DataFrame:
    """Long rows (step, metric, value) from per-step dict rows, names made canonical."""
    out, stepless = [], 0
    for row in rows:
        step = _step_of(row)
        if step is None:
            stepless += 1
            continue
        out += [
            (int(step), names.canonical(k), float(v))
            for k, v in row.items()
            if _numeric(v) and not names.is_bookkeeping(k)
        ]
    if stepless:
        report.add(rid, file, f"{stepless} rows without a trainer step (skipped)")
    frame = pd.DataFrame(out, columns=["step", "metric", "value"])
    return frame.assign(file=file, max_length=float("nan"))


def eval_tuples(rows: list[dict[str, Any]]) -> list[tuple[int, float, str, float]]:
    """(step, max_length, metric, value) for each numeric field of each evals.jsonl row (not the rows of
    evaluate-at-temperatures): ``evals/<field>``, and ``evals@train/<field>`` / ``evals@common/<field>``
    where the row is flagged ``train_length`` / ``common_length``."""
    out = []
    for r in rows:
        if not _numeric(r.get("step")) or "temperature" in r:
            continue
        prefixes = ["evals/"] + [p for flag, p in names.EVAL_VIEWS.items() if r.get(flag) is True]
        length = float(r.get("max_length", float("nan")))
        out += [
            (int(r["step"]), length, p + k, float(v))
            for k, v in r.items()
            if k not in _EVAL_KEYS and _numeric(v)
            for p in prefixes
        ]
    return out


def _tidy_evals(rows: list[dict[str, Any]], rid: str, report: LoadReport) -> pd.DataFrame:
    """evals.jsonl rows as metrics (``eval_tuples``), keeping the evaluation's max_length."""
    out = eval_tuples(rows)
    return pd.DataFrame(out, columns=["step", "max_length", "metric", "value"]).assign(file="evals")
