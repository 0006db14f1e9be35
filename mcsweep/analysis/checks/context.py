"""Context-length axis (fig 10_2): fixed maximum lengths and extensions from a shorter start."""

from __future__ import annotations

import itertools

import numpy as np

from mcsweep.analysis import criteria as cr
from mcsweep.analysis.arms import STAGED, Arm
from mcsweep.analysis.checks.common import NOISE
from mcsweep.analysis.criteria import ACC, DIVERSITY, LENGTH
from mcsweep.analysis.registry import insight
from mcsweep.analysis.verdicts import Ctx, NotEnoughData, Verdict, judge


def _fixed(ctx: Ctx) -> list[Arm]:
    fixed = ctx.fixed()
    if len(fixed) < 2:
        raise NotEnoughData(f"fewer than 2 fixed lengths (have {ctx.labels(ctx.arms)})")
    return fixed


@insight(
    "C1",
    "A larger maximum response length gives higher final accuracy.",
    sweep="context",
    metrics=(ACC,),
    figure="10_2",
    criterion=f"final pass@1 rises across consecutive fixed lengths; {NOISE}",
)
def longer_context_higher_accuracy(ctx: Ctx) -> Verdict:
    fixed = _fixed(ctx)
    return judge(ctx.ordered(ACC, cr.final, fixed), ctx.means(ACC, cr.final, fixed))


@insight(
    "C2",
    "A larger maximum length gives faster length growth and longer final outputs.",
    sweep="context",
    metrics=(LENGTH,),
    figure="10_2",
    criterion=f"final length and length gain rise across fixed lengths; {NOISE}",
)
def longer_context_longer_outputs(ctx: Ctx) -> Verdict:
    fixed = _fixed(ctx)
    parts = ctx.ordered(LENGTH, cr.final, fixed) | {
        f"growth {k}": v for k, v in ctx.ordered(LENGTH, cr.gain, fixed).items()
    }
    return judge(parts, ctx.means(LENGTH, cr.final, fixed))


@insight(
    "C3",
    "Length and maximum length correlate with diversity.",
    sweep="context",
    metrics=(DIVERSITY,),
    figure="10_2",
    criterion=f"final diversity rises across consecutive fixed lengths; {NOISE}",
)
def longer_context_higher_diversity(ctx: Ctx) -> Verdict:
    fixed = _fixed(ctx)
    return judge(ctx.ordered(DIVERSITY, cr.final, fixed), ctx.means(DIVERSITY, cr.final, fixed))


def _extended(ctx: Ctx) -> list[tuple[Arm, Arm]]:
    """(extension arm, the fixed arm at its target length) for each extension whose target is present."""
    fixed = {a.value: a for a in ctx.fixed()}
    return [(a, fixed[a.schedule.end]) for a in ctx.of_kind(STAGED) if a.schedule and a.schedule.end in fixed]


def _deficits(ctx: Ctx, arm: Arm, target: Arm) -> np.ndarray:
    return float(np.mean(ctx.values(ACC, cr.final, target))) - ctx.values(ACC, cr.final, arm)


@insight(
    "C4",
    "Starting with a small context leaves a lasting deficit after extension.",
    sweep="context",
    metrics=(ACC,),
    figure="10_2",
    criterion=f"final pass@1 of each extension a->b@step is below the fixed-b arm; {NOISE}",
)
def short_start_leaves_deficit(ctx: Ctx) -> Verdict:
    ext = _extended(ctx)
    if not ext:
        raise NotEnoughData(f"no extension arm (a->b@step) with its fixed target (have {ctx.labels(ctx.arms)})")
    parts = {f"final acc [{t.label}] > [{a.label}]": ctx.cmp(ACC, cr.final, t, a) for a, t in ext}
    involved = sorted({x for pair in ext for x in pair}, key=lambda a: a.label)
    return judge(parts, ctx.means(ACC, cr.final, involved))


def _deficit_order(ctx: Ctx, key: str) -> Verdict:
    """Deficits should grow as the start shrinks (key='start') or the switch comes later (key='at')."""
    groups: dict[tuple, list[tuple[float, Arm, Arm]]] = {}
    for a, t in _extended(ctx):
        st = a.schedule
        if getattr(st, key) is not None:
            other = (st.end, st.at) if key == "start" else (st.start, st.end)
            groups.setdefault(other, []).append((getattr(st, key), a, t))
    parts, numbers = {}, {}
    for items in groups.values():
        items.sort(key=lambda x: x[0], reverse=key == "start")
        defs = [(a, _deficits(ctx, a, t)) for _, a, t in items]
        numbers |= {f"deficit[{a.label}]": round(float(np.mean(d)), 4) for a, d in defs}
        parts |= {
            f"deficit[{b.label}]>[{a.label}]": ctx.cmp_values(ACC, cr.final, db, da)
            for (a, da), (b, db) in itertools.pairwise(defs)
        }
    if not parts:
        raise NotEnoughData(f"need 2 extension arms differing only in {key} (have {ctx.labels(ctx.arms)})")
    return judge(parts, numbers)


@insight(
    "C5",
    "The smaller the starting length, the larger the deficit.",
    sweep="context",
    metrics=(ACC,),
    figure="10_2",
    criterion=f"among extensions to the same length at the same step, deficit grows as the start shrinks; {NOISE}",
)
def smaller_start_larger_deficit(ctx: Ctx) -> Verdict:
    return _deficit_order(ctx, "start")


@insight(
    "C6",
    "A later extension recovers less.",
    sweep="context",
    metrics=(ACC,),
    figure="10_2",
    criterion=f"among extensions with the same start and target, deficit grows with the switch step; {NOISE}",
)
def later_extension_recovers_less(ctx: Ctx) -> Verdict:
    return _deficit_order(ctx, "at")
