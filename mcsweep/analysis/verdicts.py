"""Verdicts and the context a check reads: one sweep's runs, arm summaries, noise-aware comparisons."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mcsweep.analysis import criteria as cr
from mcsweep.analysis.arms import FIXED, Arm, arm_of

HOLDS, CONTRADICTED, INCONCLUSIVE, DEFINITION = "holds", "contradicted", "inconclusive", "definition"
NO_NOISE = "fewer than 2 seeds per arm and no seeds sweep to estimate noise"
SHORT = {
    cr.ACC: "acc",
    cr.ACC_EXT: "acc_ext",
    cr.REWARD: "reward",
    cr.LENGTH: "length",
    cr.DIVERSITY: "diversity",
}


T_TEST = (
    f"t-test over seeds, two-sided alpha {cr.ALPHA:g} per part, every part needed for 'holds', a reversal "
    "significant at alpha/k (k parts) for 'contradicted'"
)
PER_RUN = "per-run threshold, every seed must agree"


@dataclass(frozen=True)
class Verdict:
    """A check's outcome, the reason in words, the numbers it compared and the test it used."""

    status: str
    reason: str
    numbers: dict[str, float | str] = field(default_factory=dict)
    test: str = ""


class NotEnoughData(Exception):
    """The runs cannot answer the check (an arm, evaluations or a premise is missing); the registry
    turns it into an inconclusive verdict with this reason."""

    def __init__(self, reason: str, numbers: dict[str, float | str] | None = None) -> None:
        super().__init__(reason)
        self.reason, self.numbers = reason, numbers or {}


def inconclusive(reason: str, numbers: dict[str, float] | None = None) -> Verdict:
    return Verdict(INCONCLUSIVE, reason, numbers or {})


def judge(parts: dict[str, cr.Cmp], numbers: dict[str, float] | None = None) -> Verdict:
    """Every part beyond noise in the claimed direction (each at ALPHA) -> holds; a part reversed beyond
    noise at ALPHA / k (Bonferroni over the k parts) -> contradicted; otherwise inconclusive.

    Requiring every part for 'holds' keeps its false rate at most one part's; the corrected level keeps
    the chance that any of k parts reverses by chance at most one part's too."""
    nums = dict(numbers or {})
    for name, c in parts.items():
        nums.update(c.numbers(name))
    test = T_TEST.replace("k parts", f"k = {len(parts)}")
    uncomputable = [n for n, c in parts.items() if not np.isfinite(c.diff)]
    if uncomputable:
        why = "not computable (a summary has no points, e.g. too few evaluations in a window): "
        return Verdict(INCONCLUSIVE, why + ", ".join(uncomputable), nums, test)
    if not parts or any(c.sign is None for c in parts.values()):
        return Verdict(INCONCLUSIVE, NO_NOISE, nums, test)
    reversed_ = [n for n, c in parts.items() if c.sign_at(cr.ALPHA / len(parts)) == -1]
    if reversed_:
        return Verdict(CONTRADICTED, "opposite of the claim beyond noise: " + ", ".join(reversed_), nums, test)
    weak = [n for n, c in parts.items() if c.sign != 1]
    if weak:
        return Verdict(INCONCLUSIVE, "difference within noise: " + ", ".join(weak), nums, test)
    return Verdict(HOLDS, "every part beyond noise in the claimed direction: " + ", ".join(parts), nums, test)


def all_or_none(flags: dict[str, bool], what: str, numbers: dict[str, float]) -> Verdict:
    """Per-run threshold criteria: every run meets it -> holds, none -> contradicted, else seeds disagree."""
    if not flags:
        return Verdict(INCONCLUSIVE, "no runs with the metric", numbers, PER_RUN)
    hits = sum(flags.values())
    numbers = {**numbers, f"runs {what}": hits, "runs": len(flags)}
    if hits == len(flags):
        return Verdict(HOLDS, f"{what} in all {len(flags)} runs", numbers, PER_RUN)
    if hits == 0:
        return Verdict(CONTRADICTED, f"{what} in none of {len(flags)} runs", numbers, PER_RUN)
    return Verdict(INCONCLUSIVE, f"seeds disagree: {what} in {hits} of {len(flags)} runs", numbers, PER_RUN)


def _without_attrs(frame: pd.DataFrame) -> pd.DataFrame:
    """A view without ``attrs``: pandas deep-copies them (the load report) on every operation, which
    made the checks spend 90% of their time copying it."""
    view = frame.copy(deep=False)
    view.attrs = {}
    return view


class Store:
    """The frame split once by sweep, with per-(sweep, metric) series cached: checks read it many times."""

    def __init__(self, full: pd.DataFrame, samples: pd.DataFrame | None = None, judge: str = cr.DEFAULT_JUDGE) -> None:
        if judge not in cr.JUDGES:
            raise ValueError(f"judge must be one of {cr.JUDGES}, got {judge!r}")
        self.judge = judge
        self.full = _without_attrs(full)
        self.samples = _without_attrs(samples) if samples is not None else pd.DataFrame()
        self.by_sweep = {str(k): g for k, g in self.full.groupby("sweep")} if not full.empty else {}
        self._by_metric = (
            {(str(k), str(m)): g for (k, m), g in self.full.groupby(["sweep", "metric"])} if not full.empty else {}
        )
        self._series: dict[tuple[str, str], dict[str, pd.Series]] = {}
        self._arms: dict[tuple[str, str], dict[Arm, list[str]]] = {}
        self._sd: dict[tuple[str, str], tuple[float, int] | None] = {}
        self._level: dict[tuple[str, str], float] = {}

    def series(self, sweep: str, metric: str) -> dict[str, pd.Series]:
        key = (sweep, metric)
        if key not in self._series:
            self._series[key] = cr.run_series(self._by_metric.get(key, self.full.iloc[:0]), metric)
        return self._series[key]

    def runs_of(self, sweep: str, axis: str) -> dict[Arm, list[str]]:
        """Arm -> its run ids (one per seed), arms in label order. Frames without the loader's ``arm``
        column (hand-made ones) read the arm from the axis column's label."""
        key = (sweep, axis)
        if key not in self._arms:
            runs = self.by_sweep.get(sweep, self.full.iloc[:0]).drop_duplicates("run_id")
            if "arm" in runs:
                arms = runs["arm"]
            else:
                arms = runs[axis].map(lambda v: None if v is None else arm_of(axis, str(v)))
            out: dict[Arm, list[str]] = {}
            for rid, arm in zip(runs["run_id"], arms, strict=True):
                if isinstance(arm, Arm):
                    out.setdefault(arm, []).append(rid)
            self._arms[key] = {a: sorted(out[a]) for a in sorted(out, key=lambda a: a.label)}
        return self._arms[key]

    def seed_sd(self, metric: str, fn: cr.Summary) -> tuple[float, int] | None:
        """(SD, degrees of freedom) of ``fn`` across the seeds sweep (repeats of one config); None
        without 2 such runs."""
        key = (metric, fn.__name__)
        if key not in self._sd:
            vals = [fn(s) for s in self.series("seeds", metric).values() if len(s)]
            self._sd[key] = (float(np.std(vals, ddof=1)), len(vals) - 1) if len(vals) >= 2 else None
        return self._sd[key]

    def has(self, sweep: str, metric: str) -> bool:
        return (sweep, metric) in self._by_metric

    def level(self, sweep: str, metric: str) -> float:
        """The metric's mean over the sweep: the scale a relative minimum effect (length) is taken of."""
        key = (sweep, metric)
        if key not in self._level:
            vals = [float(s.mean()) for s in self.series(sweep, metric).values() if len(s)]
            self._level[key] = float(np.mean(vals)) if vals else 0.0
        return self._level[key]


@dataclass
class Ctx:
    """What a check sees: its sweep's runs (through the shared store), arm by arm."""

    store: Store
    sweep: str
    axis: str

    @property
    def frame(self) -> pd.DataFrame:
        return self.store.by_sweep.get(self.sweep, self.store.full.iloc[:0])

    @property
    def samples(self) -> pd.DataFrame:
        return self.store.samples

    @property
    def runs_of(self) -> dict[Arm, list[str]]:
        return self.store.runs_of(self.sweep, self.axis)

    @property
    def arms(self) -> list[Arm]:
        return list(self.runs_of)

    def of_kind(self, kind: str) -> list[Arm]:
        return [a for a in self.arms if a.kind == kind]

    def arm(self, kind: str) -> Arm:
        """The arm of ``kind`` (a role such as ``hard``); NotEnoughData naming it when the sweep lacks it."""
        found = self.of_kind(kind)
        if not found:
            raise NotEnoughData(f"arm missing from sweep {self.sweep!r}: {kind} (have {self.labels(self.arms)})")
        return found[0]

    def fixed(self) -> list[Arm]:
        """Arms at one fixed number (temperature, length, batch), in increasing order."""
        return sorted((a for a in self.of_kind(FIXED) if a.value is not None), key=lambda a: a.value)

    @staticmethod
    def labels(arms: list[Arm]) -> list[str]:
        return [a.label for a in arms]

    def series(self, metric: str, arm: Arm) -> dict[str, pd.Series]:
        all_ = self.store.series(self.sweep, metric)
        return {r: all_[r] for r in self.runs_of.get(arm, []) if r in all_}

    def values(self, metric: str, fn: cr.Summary, arm: Arm) -> np.ndarray:
        return np.array([fn(s) for s in self.series(metric, arm).values() if len(s)])

    def cmp(self, metric: str, fn: cr.Summary, a: Arm, b: Arm, eps: float | None = None) -> cr.Cmp:
        """Summary ``fn`` of ``metric``: arm a above arm b beyond noise?"""
        return self.cmp_values(metric, fn, self.values(metric, fn, a), self.values(metric, fn, b), eps)

    def cmp_values(
        self, metric: str, fn: cr.Summary, a: np.ndarray, b: np.ndarray | None, eps: float | None = None
    ) -> cr.Cmp:
        """mean(a) above mean(b), or above 0 when ``b`` is None (a one-arm claim such as 'diversity falls')."""
        eps = cr.min_effect(metric, self.store.level(self.sweep, metric)) if eps is None else eps
        return cr.compare(a, b, eps, self.store.seed_sd(metric, fn))

    def ordered(self, metric: str, fn: cr.Summary, arms: list[Arm]) -> dict[str, cr.Cmp]:
        """Parts 'b>a' for consecutive arms: the summary should rise along ``arms``."""
        return {
            f"{SHORT.get(metric, metric)}[{b.label}]>[{a.label}]": self.cmp(metric, fn, b, a)
            for a, b in itertools.pairwise(arms)
        }

    def means(self, metric: str, fn: cr.Summary, arms: list[Arm]) -> dict[str, float]:
        label = f"{fn.__name__} {SHORT.get(metric, metric)}"
        return {
            f"{label}[{a.label}]": round(float(np.mean(v)), 4) for a in arms if len(v := self.values(metric, fn, a))
        }
