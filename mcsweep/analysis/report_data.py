"""The data folder a report ships (``<report>/data/``): the tidy frames it was built from, as Parquet.

``write`` saves what the report used: one row per run (its columns and arm record), the metrics and
evaluations in long form, the samples its figures and pass@k read (each run's last checkpoint, and
the evaluate-at-temperatures rows with their token ids, which figure 7_2's diversity needs), and the
load report. ``read_frame`` / ``read_samples`` give back the frames ``load`` / ``load_samples`` gave,
so a data folder is a source like a run folder: the report, the figures and the notebooks redraw from
it without the runs. Only needed columns are kept, so the folder is small enough to commit.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from mcsweep.analysis.arms import Arm, Schedule
from mcsweep.analysis.load import RUN_COLUMNS, TIDY_COLUMNS, LoadReport, RunIssue

FORMAT = "mcsweep-report-data"
VERSION = 1
MANIFEST = "manifest.json"
SAMPLE_KEEP = ("run_id", "step", "max_length", "eval_temperature", "problem_id", "passed", "length", "evaluation")
"""Sample columns the report reads (pass@k, figure 1's length density, figure 7_2 and T1); ``ids`` is
kept on evaluate-at-temperatures rows only."""
ARM_FIELDS = ("arm_axis", "arm_option", "arm_kind", "arm_value", "sched_kind", "sched_start", "sched_end", "sched_at")


def folder_of(source: Path) -> Path | None:
    """The data folder ``source`` names: itself, or the ``data/`` of a report folder; None if neither."""
    for cand in (source, source / "data"):
        if (cand / MANIFEST).is_file():
            return cand
    return None


def _arm_row(arm: Any) -> dict[str, Any]:
    if not isinstance(arm, Arm):
        return dict.fromkeys(ARM_FIELDS)
    s = arm.schedule
    return {
        "arm_axis": arm.axis,
        "arm_option": arm.option,
        "arm_kind": arm.kind,
        "arm_value": arm.value,
        "sched_kind": s.kind if s else None,
        "sched_start": s.start if s else None,
        "sched_end": s.end if s else None,
        "sched_at": s.at if s else None,
    }


def _arm_of_row(r: dict[str, Any]) -> Arm | None:
    if not isinstance(r.get("arm_axis"), str):
        return None
    sched = None
    if isinstance(r.get("sched_kind"), str):
        at = None if pd.isna(r["sched_at"]) else int(r["sched_at"])
        sched = Schedule(r["sched_kind"], float(r["sched_start"]), float(r["sched_end"]), at)
    value = r.get("arm_value")
    kind = r.get("arm_kind")
    return Arm(
        r["arm_axis"],
        r["arm_option"],
        kind if isinstance(kind, str) else None,
        None if value is None or pd.isna(value) else float(value),
        sched,
    )


def _runs_table(frame: pd.DataFrame, samples: pd.DataFrame) -> pd.DataFrame:
    both = [f[list(RUN_COLUMNS)] for f in (frame, samples) if not f.empty and set(RUN_COLUMNS) <= set(f.columns)]
    if not both:
        return pd.DataFrame(columns=[c for c in RUN_COLUMNS if c != "arm"] + list(ARM_FIELDS))
    runs = pd.concat(both, ignore_index=True).drop_duplicates("run_id")
    arms = pd.DataFrame([_arm_row(a) for a in runs["arm"]], index=runs.index)
    return pd.concat([runs.drop(columns="arm"), arms], axis=1).reset_index(drop=True)


def needed_samples(samples: pd.DataFrame) -> pd.DataFrame:
    """Each run's last-checkpoint rows and every evaluate-at-temperatures row, in ``SAMPLE_KEEP`` columns;
    token ids only where figure 7_2 computes diversity from them."""
    if samples.empty:
        return pd.DataFrame(columns=[*SAMPLE_KEEP, "ids"])
    temps = (
        samples["evaluation"].eq("temperatures") if "evaluation" in samples else pd.Series(False, index=samples.index)
    )
    keep = temps | (samples["step"] == samples.groupby("run_id")["step"].transform("max"))
    kept = samples[keep]
    out = kept.reindex(columns=list(SAMPLE_KEEP))
    out["ids"] = kept["ids"].where(temps[keep], None) if "ids" in kept else None
    return out.reset_index(drop=True)


def _report_json(rep: LoadReport) -> dict[str, Any]:
    runs = [{k: (v.label if isinstance(v, Arm) else v) for k, v in r.items()} for r in rep.runs]
    return {
        "runs": runs,
        "issues": [asdict(i) for i in rep.issues],
        "unknown_metrics": sorted(rep.unknown_metrics),
    }


def write(frame: pd.DataFrame, samples: pd.DataFrame, out: Path, report: LoadReport) -> dict[str, int]:
    """Write the data folder ``out``; returns file name -> size in bytes (also in its manifest)."""
    out.mkdir(parents=True, exist_ok=True)
    tables = {
        "runs.parquet": _runs_table(frame, samples),
        "metrics.parquet": frame.loc[frame["file"] == "metrics", ["run_id", "step", "metric", "value"]],
        "evals.parquet": frame.loc[frame["file"] == "evals", ["run_id", "step", "max_length", "metric", "value"]],
        "samples.parquet": needed_samples(samples),
    }
    sizes = {}
    for name, table in tables.items():
        plain = table.reset_index(drop=True)
        plain.attrs = {}  # the load report goes to load_report.json
        plain.to_parquet(out / name, index=False, compression="zstd")
        sizes[name] = (out / name).stat().st_size
    (out / "load_report.json").write_text(json.dumps(_report_json(report), indent=1, default=str) + "\n")
    sizes["load_report.json"] = (out / "load_report.json").stat().st_size
    simulated = bool(tables["runs.parquet"]["simulated"].fillna(False).astype(bool).any())
    manifest = {"format": FORMAT, "version": VERSION, "simulated": simulated, "bytes": sizes}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return sizes


def _check(folder: Path) -> None:
    manifest = json.loads((folder / MANIFEST).read_text())
    if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise ValueError(
            f"{folder / MANIFEST}: format {manifest.get('format')!r} version {manifest.get('version')!r}, "
            f"expected {FORMAT!r} version {VERSION}"
        )


def _runs(folder: Path) -> pd.DataFrame:
    runs = pd.read_parquet(folder / "runs.parquet")
    runs["arm"] = [_arm_of_row(r) for r in runs.to_dict("records")]
    runs = runs.drop(columns=list(ARM_FIELDS))
    gaps = [c for c in runs.columns if runs[c].isna().any()]
    runs[gaps] = runs[gaps].astype(object).where(runs[gaps].notna(), None)
    return runs


def read_report(folder: Path, into: LoadReport) -> None:
    """Add the shipped load report (runs, issues, unknown metrics) to ``into``."""
    data = json.loads((folder / "load_report.json").read_text())
    into.runs += data["runs"]
    into.issues += [RunIssue(**i) for i in data["issues"]]
    into.unknown_metrics |= set(data["unknown_metrics"])


def read_frame(folder: Path, into: LoadReport) -> pd.DataFrame:
    """The tidy frame (``TIDY_COLUMNS``) the report was built from; its load report is added to ``into``."""
    _check(folder)
    read_report(folder, into)
    metrics = pd.read_parquet(folder / "metrics.parquet").assign(file="metrics", max_length=float("nan"))
    evals = pd.read_parquet(folder / "evals.parquet").assign(file="evals")
    long = pd.concat([metrics, evals], ignore_index=True)
    long["step"] = long["step"].astype(int)
    return long.merge(_runs(folder), on="run_id", how="left").reindex(columns=list(TIDY_COLUMNS))


def read_samples(folder: Path, into: LoadReport) -> pd.DataFrame:
    """The samples the report read, with their run's columns (as ``load_samples`` gives them)."""
    _check(folder)
    read_report(folder, into)
    s = pd.read_parquet(folder / "samples.parquet")
    s["ids"] = [list(x) if x is not None else None for x in s["ids"]]
    return s.merge(_runs(folder), on="run_id", how="left")
