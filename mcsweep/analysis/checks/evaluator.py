"""Evaluator axis (fig 6_4): the robust comparator against LiveCodeBench's strict one."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mcsweep.analysis import criteria as cr
from mcsweep.analysis.checks.common import FINAL, NOISE
from mcsweep.analysis.criteria import DEFAULT_JUDGE, REWARD, acc_judged
from mcsweep.analysis.registry import definition, insight
from mcsweep.analysis.verdicts import Ctx, NotEnoughData, Verdict, judge

ROBUST, STRICT = "microcoder", "livecodebench"
JUDGED = acc_judged(DEFAULT_JUDGE)
JUDGE = (
    "test pass@1 at the training length graded by one fixed comparator in every arm (the report's --judge, "
    "default livecodebench)"
)


def judged_acc(ctx: Ctx) -> str:
    """The metric the E insights compare: every arm's test samples graded by the one fixed judge. Stores
    without it (older runs: each arm graded its samples by its own comparator) cannot answer."""
    metric = cr.acc_judged(ctx.store.judge)
    if not ctx.store.has(ctx.sweep, metric):
        raise NotEnoughData(
            f"no test pass@1 graded by the fixed judge {ctx.store.judge!r} (evals.jsonl 'pass@1/judge_"
            f"{ctx.store.judge}' on 'train_length' rows): these runs graded each arm by its own comparator, "
            "which mixes the judge's leniency into the comparison; not substituted"
        )
    return metric


definition(
    "E1",
    "evaluator",
    "The robust evaluator has 6-7 fallback comparisons (type conversion, np.allclose "
    "plus rounding, multi-line splitting, whitespace normalisation).",
)
definition("E2", "evaluator", "The LiveCodeBench evaluator uses exact ==, Decimal numerics and basic stripping.")


def interval_rewards(s_reward: pd.Series, eval_steps: pd.Index) -> pd.Series:
    """Mean training reward over the steps since the previous evaluation, at each later evaluation step.
    Training logs its reward once per rollout (on odd steps when a rollout makes two updates), so an
    evaluation step rarely logs one itself; the interval's mean is what the policy earned on its way there."""
    steps = eval_steps.sort_values()
    bins = pd.cut(s_reward.index, steps, right=True, labels=steps[1:])
    return s_reward.groupby(bins, observed=True).mean().rename_axis(None)


def _reward_acc_corr(s_reward: pd.Series, s_acc: pd.Series) -> float:
    s_acc = s_acc.dropna()
    joined = pd.concat([interval_rewards(s_reward.dropna(), s_acc.index), s_acc], axis=1, join="inner").dropna()
    return float(joined.corr().iloc[0, 1]) if len(joined) >= 3 else np.nan


def _correlations(rew: dict[str, pd.Series], acc: dict[str, pd.Series]) -> np.ndarray:
    return np.array([c for r in rew if r in acc and np.isfinite(c := _reward_acc_corr(rew[r], acc[r]))])


def _corr_seed_sd(ctx: Ctx, acc: str) -> tuple[float, int] | None:
    """Seed-to-seed SD (and its df) of the reward/acc correlation, from the seeds sweep (repeats of one
    config), with test pass@1 graded by the same fixed judge as the arms' (`acc`)."""
    c = _correlations(ctx.store.series("seeds", REWARD), ctx.store.series("seeds", acc))
    return (float(np.std(c, ddof=1)), len(c) - 1) if len(c) >= 2 else None


@insight(
    "E3",
    "A more accurate evaluator is more reliable.",
    sweep="evaluator",
    metrics=(REWARD, JUDGED),
    figure="6_4",
    criterion="per run, Pearson r between test pass@1 at each evaluation step and the mean training reward since "
    "the evaluation before; robust "
    f"arm's mean r exceeds the LCB arm's by more than 0.05, beyond noise; {JUDGE}",
)
def robust_reward_tracks_accuracy(ctx: Ctx) -> Verdict:
    robust, strict = ctx.arm(ROBUST), ctx.arm(STRICT)
    acc = judged_acc(ctx)
    r, b = (
        ctx.record("corr(reward, acc)", a, _correlations(ctx.series(REWARD, a), ctx.series(acc, a)))
        for a in (robust, strict)
    )
    if not len(r) or not len(b):
        raise NotEnoughData(
            "a reward/pass@1 correlation needs >= 3 evaluation steps after the first with training rewards logged "
            "since the evaluation before"
        )
    numbers = {
        "corr(reward, acc)[robust]": round(float(np.mean(r)), 3),
        "corr(reward, acc)[lcb]": round(float(np.mean(b)), 3),
    }
    return judge({"reward tracks acc better": cr.compare(r, b, 0.05, _corr_seed_sd(ctx, acc))}, numbers)


@insight(
    "E4",
    "The robust evaluator gives a higher critic (training) reward.",
    sweep="evaluator",
    metrics=(REWARD,),
    figure="6_4",
    criterion=f"mean training reward over the run, robust > LCB; {NOISE}",
)
def robust_reward_higher(ctx: Ctx) -> Verdict:
    robust, strict = ctx.arm(ROBUST), ctx.arm(STRICT)
    return judge(
        {"mean reward": ctx.cmp(REWARD, cr.mean, robust, strict)}, ctx.means(REWARD, cr.mean, [robust, strict])
    )


@insight(
    "E5",
    "With the robust evaluator test accuracy rises faster and ends higher.",
    sweep="evaluator",
    metrics=(JUDGED,),
    figure="6_4",
    criterion=f"pass@1 gain (final - initial) and final pass@1, robust > LCB; {FINAL}; {JUDGE}; {NOISE}",
)
def robust_accuracy_rises_faster_and_ends_higher(ctx: Ctx) -> Verdict:
    arms, acc = [ctx.arm(ROBUST), ctx.arm(STRICT)], judged_acc(ctx)
    parts = {"acc gain": ctx.cmp(acc, cr.gain, *arms), "final acc": ctx.cmp(acc, cr.final, *arms)}
    return judge(parts, ctx.means(acc, cr.final, arms) | ctx.means(acc, cr.gain, arms))


@insight(
    "E6",
    "The accuracy gap between evaluators is largest early in training.",
    sweep="evaluator",
    metrics=(JUDGED,),
    figure="6_4",
    criterion=f"gap over 10-40% of the run > gap over the last 30%; {JUDGE}; {NOISE}",
)
def accuracy_gap_largest_early(ctx: Ctx) -> Verdict:
    arms, acc = [ctx.arm(ROBUST), ctx.arm(STRICT)], judged_acc(ctx)
    # gap_early - gap_late = (R_early - R_late) - (L_early - L_late)
    return judge(
        {"gap early > gap late": ctx.cmp(acc, cr.early_minus_late, *arms)},
        ctx.means(acc, cr.early_minus_late, arms),
    )
