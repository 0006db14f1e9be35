"""Truncation-mask axis (fig 12_2): no mask, the conditional mask, mask rates and mask all."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from mcsweep.analysis import criteria as cr
from mcsweep.analysis.arms import DEFAULT_RHO, Arm
from mcsweep.analysis.checks.common import COLLAPSE, NOISE
from mcsweep.analysis.criteria import ACC, DIVERSITY, LENGTH
from mcsweep.analysis.registry import definition, insight
from mcsweep.analysis.verdicts import Ctx, NotEnoughData, Verdict, all_or_none, judge

SHAPE_POINTS = 5
"""Evaluations a run needs before its pass@1 curve can show a rise, a fall and a plateau."""

definition("M1", "masking", "Masked truncated responses get advantage 0.")
definition(
    "M2",
    "masking",
    "The conditional mask masks a truncated response only when it is non-incorrect, not "
    "repetitive (last 128 tokens repeat the 128 before) and U(0,1) < rho.",
)


def _by_amount(ctx: Ctx, with_none: bool, at_least: int = 1) -> list[Arm]:
    """Arms with a known share masked (no mask 0, rates, mask all 1), increasing; no mask only if asked."""
    arms = sorted((a for a in ctx.arms if a.value is not None and (with_none or a.value > 0)), key=lambda a: a.value)
    if len(arms) < at_least:
        raise NotEnoughData(f"fewer than {at_least} masking amounts (have {ctx.labels(ctx.arms)})")
    return arms


def rise_fall_converge(s: pd.Series) -> bool:
    """Peak before the last 20% of steps, a collapse-sized fall after it, and a flat last quarter."""
    sm = pd.Series(cr.smooth(s.to_numpy(), cr.PEAK_WINDOW), index=s.index)
    x = (s.index - s.index.min()) / max(s.index.max() - s.index.min(), 1)
    tail = sm[x >= 0.75]
    return bool(
        x[int(np.argmax(sm.to_numpy()))] < 0.8 and cr.collapsed(s) and tail.max() - tail.min() <= 0.5 * cr.drop(s)
    )


@insight(
    "M3",
    "With masking, accuracy rises, falls, then converges.",
    sweep="masking",
    metrics=(ACC,),
    figure="12_2",
    criterion=f"every run of mask-all and mask-rate arms peaks before the last 20% of steps, collapses ({COLLAPSE}) "
    "and its smoothed last quarter varies by at most half the fall",
)
def masked_accuracy_rises_falls_converges(ctx: Ctx) -> Verdict:
    masked = _by_amount(ctx, with_none=False)
    blank = [a.label for a in masked if not any(len(s) for s in ctx.series(ACC, a).values())]
    if blank:
        raise NotEnoughData(f"no runs with test pass@1 in the masked arm(s) {blank}: their shape is unknown")
    points = min(len(s) for a in masked for s in ctx.series(ACC, a).values())
    if points < SHAPE_POINTS:
        raise NotEnoughData(
            f"a rise, fall and levelling off needs >= {SHAPE_POINTS} evaluations per run (have {points})"
        )
    flags = {f"{a.label}/{r}": rise_fall_converge(s) for a in masked for r, s in ctx.series(ACC, a).items()}
    return all_or_none(flags, "pass@1 rose, fell and levelled off", ctx.means(ACC, cr.drop, masked))


@insight(
    "M4",
    "A higher mask rate grows length faster; 30% is close to mask all.",
    sweep="masking",
    metrics=(LENGTH,),
    figure="12_2",
    criterion="length gain rises with the mask rate up to mask all (beyond noise), and the "
    "largest rate's gain is closer to mask all's than the smallest rate's",
)
def higher_mask_rate_grows_length(ctx: Ctx) -> Verdict:
    order = _by_amount(ctx, with_none=False)
    rates = [a for a in order if a.value < 1]
    all_ = [a for a in order if a.kind == "all"]
    if len(rates) < 2 or not all_:
        raise NotEnoughData(f"need 2 mask rates and mask all (have {ctx.labels(ctx.arms)})")
    # Gains rising beyond noise along the rates to mask all put the largest rate closer to mask all than the
    # smallest: that part needs no test of its own (a point-estimate test of it could only add a verdict).
    return judge(ctx.ordered(LENGTH, cr.gain, order), ctx.means(LENGTH, cr.gain, order))


def _neg_peak_step(s: pd.Series) -> float:
    return -cr.peak_step(s)


@insight(
    "M5",
    "More masking reaches the first accuracy peak sooner.",
    sweep="masking",
    metrics=(ACC,),
    figure="12_2",
    criterion="step of the smoothed pass@1 peak falls with the mask amount, by more than one evaluation "
    "interval, beyond noise (t-test over seeds)",
)
def more_masking_peaks_sooner(ctx: Ctx) -> Verdict:
    order = _by_amount(ctx, with_none=False, at_least=2)
    interval = float(np.median(np.diff(sorted(ctx.frame.loc[ctx.frame["metric"] == ACC, "step"].unique()))))
    parts = {
        f"peak earlier [{b.label}] than [{a.label}]": ctx.cmp(ACC, _neg_peak_step, b, a, eps=interval)
        for a, b in itertools.pairwise(order)
    }
    return judge(parts, ctx.means(ACC, cr.peak_step, order))


@insight(
    "M6",
    "Less masking gives a longer rise and a higher peak.",
    sweep="masking",
    metrics=(ACC,),
    figure="12_2",
    criterion=f"smoothed pass@1 peak falls as the mask amount rises (no mask, rates, mask all); {NOISE}",
)
def less_masking_higher_peak(ctx: Ctx) -> Verdict:
    order = _by_amount(ctx, with_none=True, at_least=2)
    return judge(ctx.ordered(ACC, cr.peak, order[::-1]), ctx.means(ACC, cr.peak, order))


@insight(
    "M7",
    "More masking makes diversity fall faster.",
    sweep="masking",
    metrics=(DIVERSITY,),
    figure="12_2",
    criterion="diversity lost between the start and the middle (40-60%) of the run rises with the mask amount; "
    f"{NOISE}",
)
def more_masking_diversity_falls_faster(ctx: Ctx) -> Verdict:
    order = _by_amount(ctx, with_none=True, at_least=2)
    return judge(ctx.ordered(DIVERSITY, cr.fall_by_midpoint, order), ctx.means(DIVERSITY, cr.fall_by_midpoint, order))


def _conditional(ctx: Ctx) -> Arm:
    """MicroCoder-GRPO's mask: the plain conditional arm, else the rate grid's point at the default rho."""
    cond = ctx.of_kind("conditional")
    plain = [a for a in cond if a.value is None] or [a for a in cond if a.value == DEFAULT_RHO]
    if not plain:
        raise NotEnoughData(f"need the conditional mask and another arm (have {ctx.labels(ctx.arms)})")
    return plain[0]


@insight(
    "M8",
    "The conditional mask is the most stable and ends highest.",
    sweep="masking",
    metrics=(ACC,),
    figure="12_2",
    criterion="conditional arm's final pass@1 > every other arm's, and every other arm that drops by "
    f"more than 0.02 drops more than it; {NOISE}",
)
def conditional_mask_most_stable_and_highest(ctx: Ctx) -> Verdict:
    cond = _conditional(ctx)
    others = [a for a in ctx.arms if a != cond]
    if not others:
        raise NotEnoughData(f"need the conditional mask and another arm (have {ctx.labels(ctx.arms)})")
    parts = {f"final acc [{cond.label}] > [{o.label}]": ctx.cmp(ACC, cr.final, cond, o) for o in others}
    parts |= {
        f"drop [{o.label}] > [{cond.label}]": ctx.cmp(ACC, cr.drop, o, cond, eps=0.0)
        for o in others
        if np.mean(ctx.values(ACC, cr.drop, o)) > cr.COLLAPSE_ABS
    }
    return judge(parts, ctx.means(ACC, cr.final, ctx.arms) | ctx.means(ACC, cr.drop, ctx.arms))
