"""Verdicts and the context a check reads: one sweep's runs, arm summaries, noise-aware comparisons."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mcsweep.analysis import criteria as cr
from mcsweep.analysis.arms import FIXED, Arm, arm_of
from mcsweep.analysis.load import NO_CARD
from mcsweep.launch.status import CardStatus

HOLDS, CONTRADICTED, INCONCLUSIVE, DEFINITION = "holds", "contradicted", "inconclusive", "definition"
NO_NOISE = "fewer than 2 seeds per arm and no seeds sweep to estimate noise"
UNCOMPUTABLE = "not computable (a summary has no points, e.g. too few evaluations in a window): "
WITHIN = "difference within noise: "
SHORT = {
    cr.ACC: "acc",
    cr.ACC_EXT: "acc_ext",
    cr.REWARD: "reward",
    cr.LENGTH: "length",
    cr.DIVERSITY: "diversity",
    cr.ACC_COMMON: "acc@common",
}


T_TEST = (
    f"t-test over seeds, two-sided alpha {cr.ALPHA:g} per part, every part needed for 'holds', a reversal "
    "significant at alpha/k (k parts) for 'contradicted'"
)
MIN_RUNS = 2
PER_RUN = f"per-run threshold, every seed must agree (at least {MIN_RUNS} runs)"


QUANTITY = SHORT | {
    cr.ACC_COMMON: "acc at common length",
    **{cr.acc_judged(j): f"acc judged by {j}" for j in cr.JUDGES},
}
"""Short names of the compared metrics for the report's per-claim tables."""


@dataclass(frozen=True)
class Observed:
    """One compared quantity of one arm, seed by seed: a row of the report's per-claim table and a point
    (mean, spread over seeds) of its per-claim plot."""

    quantity: str
    arm: str
    values: tuple[float, ...]

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return float(np.mean(self.values)) if self.values else float("nan")

    @property
    def sd(self) -> float:
        """Sample SD over seeds (nan with one seed)."""
        return float(np.std(self.values, ddof=1)) if len(self.values) >= 2 else float("nan")


AS_CLAIMED, WITHIN_NOISE, REVERSED, NO_ESTIMATE = "as claimed", "within noise", "reversed", "no noise estimate"


@dataclass(frozen=True)
class Part:
    """One compared difference of a claim: its size, standard error, the threshold it must exceed (the
    larger of the minimum effect and the t-test's critical difference) and what it came to."""

    name: str
    diff: float
    se: float | None
    threshold: float
    outcome: str
    eps: float = float("nan")
    """The minimum effect: a smaller difference never counts, at any number of seeds."""
    seeds_needed: int | None = None
    """For a part within noise: seeds per arm at which it would count in its direction with ``cr.POWER``
    chance, were its effect as measured."""
    flat: bool = False
    """A 'no difference' part: it counts when its t-interval lies within the minimum effect."""
    noninferior: bool = False
    """A 'not worse' part: it counts when its t-interval's lower end lies above minus the minimum effect."""


def part_of(name: str, c: cr.Cmp, alpha: float, claimed: float = cr.ALPHA) -> Part:
    """The report's record of comparison ``c``; ``alpha`` is the level its reversal is tested at, ``claimed``
    the level it must pass as claimed."""
    sign, reversed_ = c.sign_at(claimed), c.sign_at(alpha) == -1
    outcome = NO_ESTIMATE if sign is None else REVERSED if reversed_ else AS_CLAIMED if sign == 1 else WITHIN_NOISE
    level = alpha if c.diff < 0 and not (c.flip or c.noninferior) else claimed
    needed = c.seeds_needed(level) if outcome == WITHIN_NOISE else None
    return Part(name, c.diff, c.se, c.bound_at(claimed), outcome, c.eps, needed, c.flip, c.noninferior)


@dataclass(frozen=True)
class Verdict:
    """A check's outcome, the reason in words, the numbers it compared and the test it used. ``observed``
    (per arm and seed) and ``parts`` (each compared difference against its threshold) are the same numbers
    laid out for the report's per-claim table and plot."""

    status: str
    reason: str
    numbers: dict[str, float | str] = field(default_factory=dict)
    test: str = ""
    observed: tuple[Observed, ...] = ()
    parts: tuple[Part, ...] = ()


def quantity(metric: str, fn: cr.Summary) -> str:
    """'final acc', 'gain length': the summary and the metric, as the report's tables name them."""
    return f"{fn.__name__.strip('_').replace('_', ' ')} {QUANTITY.get(metric, metric)}"


class NotEnoughData(Exception):
    """The runs cannot answer the check (an arm, evaluations or a premise is missing); the registry
    turns it into an inconclusive verdict with this reason."""

    def __init__(self, reason: str, numbers: dict[str, float | str] | None = None) -> None:
        super().__init__(reason)
        self.reason, self.numbers = reason, numbers or {}


def inconclusive(reason: str, numbers: dict[str, float] | None = None) -> Verdict:
    return Verdict(INCONCLUSIVE, reason, numbers or {})


def judge(parts: dict[str, cr.Cmp], numbers: dict[str, float] | None = None, alpha: float = cr.ALPHA) -> Verdict:
    """Every part beyond noise in the claimed direction (each at ``alpha``) -> holds; a part reversed beyond
    noise at alpha / k (Bonferroni over the k parts) -> contradicted; otherwise inconclusive.

    Requiring every part for 'holds' keeps its false rate at most one part's; the corrected level keeps
    the chance that any of k parts reverses by chance at most one part's too. A check that compares the
    best of several arms picked by mean passes a lower ``alpha`` (ALPHA / arms) for 'holds' only: the pick
    favours the claim, so a reversal of the best arm needs no correction for it."""
    nums = dict(numbers or {})
    for name, c in parts.items():
        nums.update(c.numbers(name))
    test = T_TEST.replace("k parts", f"k = {len(parts)}")
    if alpha != cr.ALPHA:
        test = test.replace(f"alpha {cr.ALPHA:g} per part", f"alpha {alpha:.3g} per part")
    laid_out = tuple(part_of(n, c, cr.ALPHA / max(len(parts), 1), alpha) for n, c in parts.items())

    def verdict(status: str, reason: str) -> Verdict:
        return Verdict(status, reason, nums, test, parts=laid_out)

    uncomputable = [n for n, c in parts.items() if not np.isfinite(c.diff)]
    if uncomputable:
        return verdict(INCONCLUSIVE, UNCOMPUTABLE + ", ".join(uncomputable))
    if not parts or any(c.sign is None for c in parts.values()):
        return verdict(INCONCLUSIVE, NO_NOISE)
    reversed_ = [n for n, c in parts.items() if c.sign_at(cr.ALPHA / len(parts)) == -1]
    if reversed_:
        return verdict(CONTRADICTED, "opposite of the claim beyond noise: " + ", ".join(reversed_))
    weak = [n for n, c in parts.items() if c.sign_at(alpha) != 1]
    if weak:
        return verdict(INCONCLUSIVE, WITHIN + ", ".join(weak))
    return verdict(HOLDS, "every part beyond noise in the claimed direction: " + ", ".join(parts))


def all_or_none(flags: dict[str, bool], what: str, numbers: dict[str, float]) -> Verdict:
    """Per-run threshold criteria: every run meets it -> holds, none -> contradicted, else seeds disagree.

    One run decides nothing: agreement needs at least MIN_RUNS runs, as the t-tests need two seeds."""
    if not flags:
        return Verdict(INCONCLUSIVE, "no runs with the metric", numbers, PER_RUN)
    hits = sum(flags.values())
    numbers = {**numbers, f"runs {what}": hits, "runs": len(flags)}
    if len(flags) < MIN_RUNS:
        reason = f"fewer than {MIN_RUNS} runs to agree: {what} in {hits} of {len(flags)}"
        return Verdict(INCONCLUSIVE, reason, numbers, PER_RUN)
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


KEPT = (CardStatus.FINISHED, NO_CARD)
"""Run statuses the verdicts use. Any other (running, failed, and W&B's preempted, pending...) is a
run whose last point is where it stopped, not its end: its 'final' value would compare a shorter run
with finished ones (the report still plots it, marked)."""


def finished_only(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of finished runs, and of runs without a card or status (hand-made frames)."""
    if frame.empty or "status" not in frame:
        return frame
    return frame[frame["status"].isna() | frame["status"].isin(KEPT)]


class Store:
    """The frame split once by sweep, with per-(sweep, metric) series cached: checks read it many times.
    Runs not finished (running, failed, preempted...) are left out (``KEPT``)."""

    def __init__(self, full: pd.DataFrame, samples: pd.DataFrame | None = None, judge: str = cr.DEFAULT_JUDGE) -> None:
        if judge not in cr.JUDGES:
            raise ValueError(f"judge must be one of {cr.JUDGES}, got {judge!r}")
        self.judge = judge
        self.full = finished_only(_without_attrs(full))
        self.samples = finished_only(_without_attrs(samples)) if samples is not None else pd.DataFrame()
        self.by_sweep = {str(k): g for k, g in self.full.groupby("sweep")} if not self.full.empty else {}
        self._by_metric = (
            {(str(k), str(m)): g for (k, m), g in self.full.groupby(["sweep", "metric"])} if not self.full.empty else {}
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
    seen: dict[tuple[str, str], Observed] = field(default_factory=dict)
    """Every per-arm quantity the check computed, in order: the verdict's ``observed``."""

    def record(self, quantity: str, arm: Arm | str, values: np.ndarray) -> np.ndarray:
        """Note ``values`` (one per seed) as a compared quantity of ``arm``; returns them."""
        label = arm.display if isinstance(arm, Arm) else arm
        self.seen[(quantity, label)] = Observed(quantity, label, tuple(float(v) for v in values))
        return values

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
        """``fn`` of ``metric`` in each of the arm's runs (one value per seed), recorded as observed."""
        vals = np.array([fn(s) for s in self.series(metric, arm).values() if len(s)])
        return self.record(quantity(metric, fn), arm, vals)

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
