"""Context-length axis (fig 10_2): fixed maximum lengths and extensions from a shorter start."""

from __future__ import annotations

import itertools

import numpy as np

from mcsweep.analysis import criteria as cr
from mcsweep.analysis.arms import STAGED, Arm
from mcsweep.analysis.checks.common import NOISE
from mcsweep.analysis.criteria import ACC_COMMON, DIVERSITY, LENGTH
from mcsweep.analysis.registry import insight
from mcsweep.analysis.verdicts import Ctx, NotEnoughData, Verdict, judge

COMMON = "test pass@1 at the sweep's common evaluation length (evals.jsonl rows flagged common_length)"


def common_acc(ctx: Ctx) -> str:
    """The metric C1 and C4-C6 compare: every arm's pass@1 at one common length. Older stores evaluated
    each arm at its own starting length, which follows the evaluation budget, not the training."""
    if not ctx.store.has(ctx.sweep, ACC_COMMON):
        raise NotEnoughData(
            "no evaluation at the sweep's common length (evals.jsonl 'common_length' rows): these runs were "
            "evaluated at each arm's own starting length, so arms are not comparable; not substituted"
        )
    return ACC_COMMON


def _fixed(ctx: Ctx) -> list[Arm]:
    fixed = ctx.fixed()
    if len(fixed) < 2:
        raise NotEnoughData(f"fewer than 2 fixed lengths (have {ctx.labels(ctx.arms)})")
    return fixed


@insight(
    "C1",
    "A larger maximum response length gives higher final accuracy.",
    sweep="context",
    metrics=(ACC_COMMON,),
    figure="10_2",
    criterion=f"final pass@1 rises across consecutive fixed lengths; {COMMON}; {NOISE}",
)
def longer_context_higher_accuracy(ctx: Ctx) -> Verdict:
    fixed, acc = _fixed(ctx), common_acc(ctx)
    return judge(ctx.ordered(acc, cr.final, fixed), ctx.means(acc, cr.final, fixed))


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
    acc = common_acc(ctx)
    deficit = float(np.mean(ctx.values(acc, cr.final, target))) - ctx.values(acc, cr.final, arm)
    return ctx.record(f"deficit vs {target.display}", arm, deficit)


@insight(
    "C4",
    "Starting with a small context leaves a lasting deficit after extension.",
    sweep="context",
    metrics=(ACC_COMMON,),
    figure="10_2",
    criterion=f"final pass@1 of each extension a->b@step is below the fixed-b arm; {COMMON}; {NOISE}",
)
def short_start_leaves_deficit(ctx: Ctx) -> Verdict:
    ext = _extended(ctx)
    if not ext:
        raise NotEnoughData(f"no extension arm (a->b@step) with its fixed target (have {ctx.labels(ctx.arms)})")
    acc = common_acc(ctx)
    parts = {f"final acc [{t.label}] > [{a.label}]": ctx.cmp(acc, cr.final, t, a) for a, t in ext}
    involved = sorted({x for pair in ext for x in pair}, key=lambda a: a.label)
    return judge(parts, ctx.means(acc, cr.final, involved))


def _deficit_order(ctx: Ctx, key: str) -> Verdict:
    """Deficits should grow as the start shrinks (key='start') or the switch comes later (key='at').

    Both claims presuppose C4's deficit: without it established, they are inconclusive."""
    premise = short_start_leaves_deficit(ctx)
    if premise.status != "holds":
        raise NotEnoughData(f"presupposes C4's deficit, which is not established (C4: {premise.status})")
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
            f"deficit[{b.label}]>[{a.label}]": ctx.cmp_values(ACC_COMMON, cr.final, db, da)
            for (a, da), (b, db) in itertools.pairwise(defs)
        }
    if not parts:
        raise NotEnoughData(f"need 2 extension arms differing only in {key} (have {ctx.labels(ctx.arms)})")
    return judge(parts, numbers)


@insight(
    "C5",
    "The smaller the starting length, the larger the deficit.",
    sweep="context",
    metrics=(ACC_COMMON,),
    figure="10_2",
    criterion="C4 holds, and among extensions to the same length at the same step, deficit grows as the start "
    f"shrinks; {NOISE}",
)
def smaller_start_larger_deficit(ctx: Ctx) -> Verdict:
    return _deficit_order(ctx, "start")


@insight(
    "C6",
    "A later extension recovers less.",
    sweep="context",
    metrics=(ACC_COMMON,),
    figure="10_2",
    criterion="C4 holds, and among extensions with the same start and target, deficit grows with the switch "
    f"step; {NOISE}",
)
def later_extension_recovers_less(ctx: Ctx) -> Verdict:
    return _deficit_order(ctx, "at")
