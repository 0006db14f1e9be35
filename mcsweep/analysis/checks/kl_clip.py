"""KL / clip axis (fig 9_2): a KL loss against no KL with clip-higher."""

from __future__ import annotations

import pandas as pd

from mcsweep.analysis import criteria as cr
from mcsweep.analysis.checks.common import COLLAPSE, NOISE
from mcsweep.analysis.criteria import ACC, DIVERSITY, LENGTH
from mcsweep.analysis.registry import insight
from mcsweep.analysis.verdicts import Ctx, NotEnoughData, Verdict, all_or_none, judge

DIV_FALL = 0.30
"""K2: a run's diversity 'falls' when its final value is below its initial value by 30% or more."""


@insight(
    "K1",
    "No KL with clip-high keeps diversity, grows length and sustains accuracy, unlike a KL loss.",
    sweep="kl_clip",
    metrics=(DIVERSITY, LENGTH, ACC),
    figure="9_2",
    criterion=f"clip-high > KL in diversity change, final length and final pass@1; {NOISE}",
)
def clip_high_beats_kl(ctx: Ctx) -> Verdict:
    clip, kl = ctx.arm("clip_high"), ctx.arm("kl")
    parts = {
        "diversity change": ctx.cmp(DIVERSITY, cr.gain, clip, kl),
        "final length": ctx.cmp(LENGTH, cr.final, clip, kl),
        "final acc": ctx.cmp(ACC, cr.final, clip, kl),
    }
    arms = [clip, kl]
    return judge(
        parts, ctx.means(DIVERSITY, cr.final, arms) | ctx.means(LENGTH, cr.final, arms) | ctx.means(ACC, cr.final, arms)
    )


def rose_then_fell(s: pd.Series) -> bool:
    """pass@1 climbed above its start by more than the minimum effect, then collapsed."""
    return cr.peak(s) - cr.initial(s) > cr.MIN_EFFECT_ABS and cr.collapsed(s)


@insight(
    "K2",
    "Falling diversity makes accuracy rise and then fall.",
    sweep="kl_clip",
    metrics=(DIVERSITY, ACC),
    figure="9_2",
    criterion="every run whose final diversity is >= 30% below its initial value has pass@1 rising above "
    f"its start then collapsing; {COLLAPSE}",
)
def falling_diversity_rise_then_fall(ctx: Ctx) -> Verdict:
    div, acc = ctx.store.series(ctx.sweep, DIVERSITY), ctx.store.series(ctx.sweep, ACC)
    falling = [r for r, s in div.items() if cr.final(s) <= (1 - DIV_FALL) * cr.initial(s) and r in acc]
    if not falling:
        raise NotEnoughData(f"no run whose diversity fell by {DIV_FALL:.0%} or more")
    return all_or_none(
        {r: rose_then_fell(acc[r]) for r in falling}, f"diversity fell by {DIV_FALL:.0%}+ and pass@1 rose then fell", {}
    )
