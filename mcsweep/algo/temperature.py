"""Temperature controllers (the `temperature` axis): fixed, staged, ramp and diversity-chosen.

A controller maps a rollout step to a temperature. The trainer applies a change only at a rollout
boundary, to generation and to the loss's log-probabilities together (see train/trainer.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mcsweep.algo.diversity import mean_group_diversity
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
    """The run's schedule; `chosen` is the diversity probe's pick for kind=diversity."""
    if cfg.kind == "diversity":
        if chosen is None:
            raise ValueError("temperature kind 'diversity' needs the probe's choice")
        return Schedule("fixed", chosen)
    return Schedule(cfg.kind, cfg.value, tuple((float(s), float(t)) for s, t in cfg.stages))


def probe_table(
    sample: Callable[[float], Sequence[Sequence[int]]], candidates: Sequence[float], group_size: int
) -> list[dict[str, float]]:
    """Initial diversity D0(t) for each candidate; `sample(t)` returns G samples per probe prompt."""
    return [{"temperature": t, "diversity": mean_group_diversity(sample(t), group_size)} for t in candidates]


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
