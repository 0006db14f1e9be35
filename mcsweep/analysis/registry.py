"""The insight registry: each check declares its claim beside its code, with ``@insight``.

Modelled on verl's ``register_adv_est``: a decorator records an ``Insight`` (id, claim, sweep,
metrics, figure, criterion) and its check under the id. A check that lacks the data it needs raises
``NotEnoughData``; ``Insight.run`` turns that into an inconclusive verdict that says what is missing.
Definitions (E1, E2, M1, M2, B1, B2) are recorded with ``definition`` and never checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import pandas as pd

from mcsweep.analysis.arms import AXIS_OF_SWEEP
from mcsweep.analysis.criteria import DEFAULT_JUDGE
from mcsweep.analysis.verdicts import DEFINITION, Ctx, NotEnoughData, Store, Verdict, inconclusive

Check = Callable[[Ctx], Verdict]
__all__ = ["Insight", "NotEnoughData", "definition", "insight", "registered", "sweep_command"]
ASPECTS = ("evaluator", "temperature", "data", "context", "masking", "batch", "kl_clip")
"""The insights page's order of aspects."""


def sweep_command(sweep: str) -> str:
    """The command that produces a missing sweep."""
    return f"python -m mcsweep +sweep={sweep} -m"


@dataclass(frozen=True)
class Insight:
    """One bullet of the insights page: claim, what it needs, and how it is checked."""

    id: str
    aspect: str
    claim: str
    sweep: str | None
    metrics: tuple[str, ...]
    figure: str | None
    criterion: str
    check: Check | None = None

    @property
    def is_definition(self) -> bool:
        return self.check is None

    def run(
        self, frame: pd.DataFrame | Store, samples: pd.DataFrame | None = None, judge: str = DEFAULT_JUDGE
    ) -> Verdict:
        """The verdict on the runs; a missing sweep is inconclusive and names the command to run. ``judge``
        is the comparator whose grading of test samples the E insights compare (every arm alike)."""
        if self.check is None:
            return Verdict(DEFINITION, "definition: recorded, not checked")
        store = frame if isinstance(frame, Store) else Store(frame, samples, judge)
        if self.sweep not in store.by_sweep:
            return inconclusive(f"sweep missing: {self.sweep} (run: {sweep_command(self.sweep)})")
        ctx = Ctx(store, self.sweep, AXIS_OF_SWEEP[self.sweep])
        if not ctx.arms:
            return inconclusive(f"runs of sweep {self.sweep!r} carry no {ctx.axis!r} axis value")
        try:
            verdict = self.check(ctx)
        except NotEnoughData as exc:
            verdict = inconclusive(exc.reason, exc.numbers)
        return replace(verdict, observed=verdict.observed or tuple(ctx.seen.values()))


_REGISTRY: dict[str, Insight] = {}


def _add(entry: Insight) -> None:
    if entry.id in _REGISTRY:
        raise ValueError(f"insight {entry.id} registered twice")
    _REGISTRY[entry.id] = entry


def insight(
    id: str, claim: str, *, sweep: str, metrics: tuple[str, ...], figure: str, criterion: str
) -> Callable[[Check], Check]:
    """Register the decorated function as the check of insight ``id``."""

    def register(check: Check) -> Check:
        _add(Insight(id, AXIS_OF_SWEEP[sweep], claim, sweep, metrics, figure, criterion, check))
        return check

    return register


def definition(id: str, aspect: str, claim: str) -> None:
    """Record a definition bullet (not a claim, never checked)."""
    _add(Insight(id, aspect, claim, None, (), None, "definition"))


def _page_order(entry: Insight) -> tuple[int, int]:
    return ASPECTS.index(entry.aspect), int(re.sub(r"\D", "", entry.id))


def registered() -> tuple[Insight, ...]:
    """Every registered entry in the insights page's order."""
    return tuple(sorted(_REGISTRY.values(), key=_page_order))
