"""Temperature controllers (the `temperature` axis): fixed, staged, ramp and diversity-chosen.

A controller maps a rollout step to a temperature. The trainer applies a change only at a rollout
boundary, to generation and to the loss's log-probabilities together (see train/trainer.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mcsweep.algo.diversity import MEASURES, METRIC
from mcsweep.config.schema import TemperatureConfig

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Schedule:
    """`kind` fixed/diversity: constant `value`; staged: jumps at stage steps; ramp: linear knots."""

    kind: str
    value: float
    stages: tuple[tuple[float, float], ...] = ()

    def at(self, step: int) -> float:
        if self.kind == "staged":
            current = self.value
            for start, temp in self.stages:
                if step >= start:
                    current = temp
            return current
        if self.kind == "ramp":
            steps, temps = zip(*self.stages, strict=True)
            return float(np.interp(step, steps, temps, left=self.value))
        return self.value


def schedule_from_config(cfg: TemperatureConfig, chosen: float | None = None) -> Schedule:
    """The run's schedule of sampling temperatures (the config's, times its `unit`); `chosen` is the
    diversity probe's pick for kind=diversity, in the config's scale."""
    if cfg.kind == "diversity":
        if chosen is None:
            raise ValueError("temperature kind 'diversity' needs the probe's choice")
        return Schedule("fixed", cfg.sampling(chosen))
    stages = tuple((float(s), cfg.sampling(float(t))) for s, t in cfg.stages)
    return Schedule(cfg.kind, cfg.sampled_value, stages)


def probe_table(
    sample: Callable[[float], Sequence[Sequence[int]]],
    candidates: Sequence[float],
    group_size: int,
    measure: str = "pooled",
) -> list[dict[str, float]]:
    """Initial diversity D0(t) for each candidate; `sample(t)` returns G samples per probe prompt."""
    return [{"temperature": t, "diversity": MEASURES[measure](sample(t), group_size)} for t in candidates]


def _run_dirs(source: str, runs_root: str) -> list[Path]:
    """A run folder, a sweep folder (its runs), or a run id or sweep name under `runs_root`."""
    for path in (Path(source), Path(runs_root) / source):
        if (path / "metrics.jsonl").exists():
            return [path]
        if path.is_dir() and (runs := sorted(p.parent for p in path.glob("*/metrics.jsonl"))):
            return runs
    found = sorted(p.parent for p in Path(runs_root).glob(f"*/{source}/metrics.jsonl"))
    if not found:
        raise ValueError(
            f"temperature.target_from: {source!r} is neither a run or sweep folder with runs, "
            f"nor a run id or sweep name under {runs_root}"
        )
    return found


def measured_target(source: str, runs_root: str, measure: str, last: int = 5) -> tuple[float, list[str]]:
    """The diversity a pilot run converged to: the mean of its last `last` logged values of the
    measure, averaged over the runs when `source` is a sweep. Returns (target, run folders read)."""
    column, finals, runs = METRIC[measure], [], _run_dirs(source, runs_root)
    for run in runs:
        metrics = pd.read_json(run / "metrics.jsonl", lines=True)
        values = metrics[column].dropna() if column in metrics else pd.Series(dtype=float)
        if values.empty:
            raise ValueError(f"temperature.target_from: {run} logged no {column} (measure {measure!r})")
        finals.append(float(values.tail(last).mean()))
    return sum(finals) / len(finals), [str(r) for r in runs]


def choose(table: Sequence[dict[str, float]], target: float) -> float:
    """The lowest candidate whose D0 reaches the target; the most diverse one if none does."""
    ranked = sorted(table, key=lambda row: row["temperature"])
    for row in ranked:
        if row["diversity"] >= target:
            return row["temperature"]
    best = max(ranked, key=lambda row: row["diversity"])
    log.warning(
        "no candidate reaches target diversity %.3f; using t=%.2f (D0=%.3f)",
        target,
        best["temperature"],
        best["diversity"],
    )
    return best["temperature"]
