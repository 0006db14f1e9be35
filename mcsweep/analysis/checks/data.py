"""Data axis (fig 8_2): the hard training set (MicroCoder-Dataset's role) against the easy one."""

from __future__ import annotations

from dataclasses import replace

from mcsweep.analysis import criteria as cr
from mcsweep.analysis.checks.common import NOISE
from mcsweep.analysis.criteria import ACC, LENGTH, REWARD
from mcsweep.analysis.registry import insight
from mcsweep.analysis.verdicts import Ctx, Verdict, inconclusive, judge


@insight(
    "D1",
    "The harder dataset raises test accuracy; the easy one stays flat.",
    sweep="data",
    metrics=(ACC,),
    figure="8_2",
    criterion="hard arm's pass@1 gain > 0 and > easy arm's gain, and the easy gain within +-0.01 (its t-interval "
    f"inside the minimum effect); {NOISE}",
)
def hard_data_raises_accuracy(ctx: Ctx) -> Verdict:
    hard_arm, easy_arm = ctx.arm("hard"), ctx.arm("easy")
    hard, easy = ctx.values(ACC, cr.gain, hard_arm), ctx.values(ACC, cr.gain, easy_arm)
    parts = {
        "hard acc rises": ctx.cmp_values(ACC, cr.gain, hard, None),
        "hard gain > easy gain": ctx.cmp_values(ACC, cr.gain, hard, easy),
        "easy stays flat": replace(ctx.cmp_values(ACC, cr.gain, easy, None), flip=True),
    }
    return judge(parts, ctx.means(ACC, cr.gain, [hard_arm, easy_arm]))


@insight(
    "D2",
    "The harder dataset has a lower critic reward.",
    sweep="data",
    metrics=(REWARD,),
    figure="8_2",
    criterion=f"mean training reward, easy > hard; {NOISE}",
)
def hard_data_lowers_reward(ctx: Ctx) -> Verdict:
    hard, easy = ctx.arm("hard"), ctx.arm("easy")
    return judge(
        {"mean reward easy > hard": ctx.cmp(REWARD, cr.mean, easy, hard)}, ctx.means(REWARD, cr.mean, [hard, easy])
    )


@insight(
    "D3",
    "Reward trends are similar, but only the hard data improves the test score.",
    sweep="data",
    metrics=(REWARD, ACC),
    figure="8_2",
    criterion="reward gains of both arms have the same sign beyond noise, and the hard "
    f"arm's pass@1 gain > the easy arm's; {NOISE}",
)
def only_hard_data_improves_test(ctx: Ctx) -> Verdict:
    arms = {"hard": ctx.arm("hard"), "easy": ctx.arm("easy")}
    trend = {k: ctx.cmp_values(REWARD, cr.gain, ctx.values(REWARD, cr.gain, v), None) for k, v in arms.items()}
    numbers = ctx.means(REWARD, cr.gain, list(arms.values())) | ctx.means(ACC, cr.gain, list(arms.values()))
    if None not in (trend["hard"].sign, trend["easy"].sign) and trend["hard"].sign * trend["easy"].sign == -1:
        return Verdict("contradicted", "reward trends go opposite ways", numbers)
    if trend["hard"].sign != trend["easy"].sign:
        return inconclusive("reward trends not clearly alike (one within noise)", numbers)
    return judge({"acc gain hard > easy": ctx.cmp(ACC, cr.gain, arms["hard"], arms["easy"])}, numbers)


@insight(
    "D4",
    "Harder data makes responses grow faster and longer.",
    sweep="data",
    metrics=(LENGTH,),
    figure="8_2",
    criterion=f"length gain and final length, hard > easy (min effect 3% of length); {NOISE}",
)
def hard_data_grows_length(ctx: Ctx) -> Verdict:
    hard, easy = ctx.arm("hard"), ctx.arm("easy")
    parts = {
        "length growth": ctx.cmp(LENGTH, cr.gain, hard, easy),
        "final length": ctx.cmp(LENGTH, cr.final, hard, easy),
    }
    return judge(parts, ctx.means(LENGTH, cr.final, [hard, easy]))
