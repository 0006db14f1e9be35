"""Temperature axis (fig 7_2): fixed temperatures, staged switches, ramps, and temperature robustness."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pandas as pd

from mcsweep.analysis import criteria as cr
from mcsweep.analysis.arms import RAMP, STAGED, Arm
from mcsweep.analysis.checks.common import COLLAPSE, NOISE
from mcsweep.analysis.criteria import ACC, DIVERSITY
from mcsweep.analysis.registry import insight
from mcsweep.analysis.samples import temperature_table
from mcsweep.analysis.verdicts import Ctx, NotEnoughData, Verdict, all_or_none, inconclusive, judge

T7_TOL = 0.10
"""Largest spread of final diversity across stable temperatures that still counts as 'similar'."""
NO_CONVERGENCE = (
    "no convergence diversity: no stable fixed-temperature arm, or their diversities did not "
    "draw together (final spread >= initial spread, as T7 checks)"
)


def stable_max_temperature(by_temp: pd.Series) -> float:
    """Highest evaluation temperature whose pass@1 is at least half the pass@1 at the lowest one."""
    by_temp = by_temp.sort_index()
    ok = by_temp[by_temp >= 0.5 * by_temp.iloc[0]]
    return float(ok.index.max())


def _temperature_curves(ctx: Ctx) -> dict[str, pd.Series]:
    """'run (length L, k samples)' -> stable max temperature per checkpoint step, from evaluate-at-temperatures
    samples; checkpoints are compared only within one evaluation length and sample count."""
    s = ctx.samples
    if s.empty or "run_id" not in s:
        return {}
    table = temperature_table(s[s["run_id"].isin(set(ctx.frame["run_id"]))])
    out = {}
    for (rid, length, k), g in table.groupby(["run_id", "max_length", "samples_per_problem"]):
        per_step = {
            step: stable_max_temperature(h.set_index("eval_temperature")["pass@1"])
            for step, h in g.groupby("step")
            if len(h) >= 3
        }
        if len(per_step) >= 2:
            out[f"{rid} (length {length:g}, {k} samples)"] = pd.Series(per_step).sort_index()
    return out


def _fixed(ctx: Ctx, at_least: int) -> list[Arm]:
    """The fixed-temperature arms, lowest first; the lowest and the highest are only that among two or
    more (a lone arm of a sweep still running is neither)."""
    fixed = ctx.fixed()
    if len(fixed) < at_least:
        raise NotEnoughData(f"fewer than {at_least} fixed temperatures (have {ctx.labels(ctx.arms)})")
    return fixed


@insight(
    "T1",
    "The highest temperature that still evaluates stably grows with training.",
    sweep="temperature",
    metrics=("eval_samples: passed by temperature",),
    figure="7_2",
    criterion="per run and checkpoint, stable max temperature = highest evaluation temperature whose pass@1 is "
    ">= half the pass@1 at the lowest (evaluate-at-temperatures samples only, each evaluation length and "
    "sample count apart); it must be higher at the last checkpoint than the first in every run",
)
def stable_max_temperature_grows(ctx: Ctx) -> Verdict:
    curves = _temperature_curves(ctx)
    if not curves:
        raise NotEnoughData(
            "no evaluate-at-temperatures samples (>=3 temperatures at >=2 checkpoints); run the trainer's "
            "evaluate-at-temperatures over the temperature sweep's checkpoints"
        )
    numbers = {f"t_max[{r}] first->last": f"{c.iloc[0]:g}->{c.iloc[-1]:g}" for r, c in curves.items()}
    if all(c.iloc[-1] == c.iloc[0] for c in curves.values()):
        return inconclusive("stable max temperature unchanged at the grid resolution", numbers)
    return all_or_none(
        {r: bool(c.iloc[-1] > c.iloc[0]) for r, c in curves.items()}, "stable max temperature grew", numbers
    )


@insight(
    "T2",
    "Higher temperature gives higher diversity.",
    sweep="temperature",
    metrics=(DIVERSITY,),
    figure="7_2",
    criterion=f"initial diversity rises across consecutive fixed temperatures; {NOISE}",
)
def diversity_rises_with_temperature(ctx: Ctx) -> Verdict:
    fixed = _fixed(ctx, 2)
    return judge(ctx.ordered(DIVERSITY, cr.initial, fixed), ctx.means(DIVERSITY, cr.initial, fixed))


@insight(
    "T3",
    "At a fixed temperature, diversity falls during training.",
    sweep="temperature",
    metrics=(DIVERSITY,),
    figure="7_2",
    criterion=f"initial - final diversity > 0 at every fixed temperature; {NOISE}",
)
def diversity_falls_at_fixed_temperature(ctx: Ctx) -> Verdict:
    fixed = _fixed(ctx, 1)
    parts = {
        f"diversity falls at t={a.label}": ctx.cmp_values(DIVERSITY, cr.fall, ctx.values(DIVERSITY, cr.fall, a), None)
        for a in fixed
    }
    return judge(parts, ctx.means(DIVERSITY, cr.initial, fixed) | ctx.means(DIVERSITY, cr.final, fixed))


def _collapsed_runs(ctx: Ctx, arm: Arm) -> dict[str, bool]:
    return {r: cr.collapsed(s) for r, s in ctx.series(ACC, arm).items() if len(s) >= 3}


def _stable_arms(ctx: Ctx) -> list[Arm]:
    """Fixed-temperature arms where no run collapsed."""
    return [a for a in ctx.fixed() if (c := _collapsed_runs(ctx, a)) and not any(c.values())]


def _diversity_spreads(ctx: Ctx, arms: list[Arm]) -> tuple[float, float]:
    """(final, initial) spread of mean diversity across ``arms``."""
    spread = []
    for fn in (cr.final, cr.initial):
        means = [float(np.mean(ctx.values(DIVERSITY, fn, a))) for a in arms]
        spread.append(max(means) - min(means))
    return spread[0], spread[1]


def _spread_beyond_noise(ctx: Ctx, arms: list[Arm], fn: cr.Summary) -> bool:
    """The arms with the highest and lowest mean ``fn`` of diversity differ beyond noise, at ALPHA divided
    by the number of pairs (the extremes are picked from all of them)."""
    by_mean = sorted(arms, key=lambda a: float(np.mean(ctx.values(DIVERSITY, fn, a))))
    pairs = len(arms) * (len(arms) - 1) // 2
    return ctx.cmp(DIVERSITY, fn, by_mean[-1], by_mean[0]).sign_at(cr.ALPHA / pairs) == 1


def _below_convergence(ctx: Ctx) -> list[Arm]:
    """Fixed temperatures whose initial diversity is below the stable arms' final diversity beyond noise
    (and by > 0.01): a two-sample test against those arms' seeds, so the convergence value's own noise
    counts (a one-sample test against its mean took it as exact)."""
    finals = np.concatenate([ctx.values(DIVERSITY, cr.final, a) for a in _stable_arms(ctx)] or [np.array([])])
    return [
        a
        for a in ctx.fixed()
        if ctx.cmp_values(DIVERSITY, cr.initial, finals, ctx.values(DIVERSITY, cr.initial, a)).sign == 1
    ]


def convergence_diversity(ctx: Ctx) -> float:
    """The value diversity converges to: mean final diversity of the stable fixed-temperature arms.
    NotEnoughData when there is none, or when those arms' diversities did not converge at all.

    A definition, not evidence: T7's equivalence is not required, since a low temperature that stays
    stable (T4's counter-case) keeps its low diversity among the stable arms and would then leave T4
    no convergence value to be contradicted against."""
    stable = _stable_arms(ctx)
    if len(stable) >= 2:
        final, initial = _diversity_spreads(ctx, stable)
        if final >= initial:
            raise NotEnoughData(NO_CONVERGENCE)
    vals = [v for a in stable for v in ctx.values(DIVERSITY, cr.final, a)]
    if not vals:
        raise NotEnoughData(NO_CONVERGENCE)
    return float(np.mean(vals))


@insight(
    "T4",
    "If initial diversity is below the value it converges to, diversity keeps falling and training fails.",
    sweep="temperature",
    metrics=(DIVERSITY, ACC),
    figure="7_2",
    criterion="convergence value = mean final diversity of the fixed temperatures where no run collapsed; every "
    "run of a temperature starting below it (beyond noise and 0.01) loses more than 0.01 diversity and "
    f"collapses; {COLLAPSE}",
)
def low_initial_diversity_fails(ctx: Ctx) -> Verdict:
    d_star = convergence_diversity(ctx)
    fixed = ctx.fixed()
    numbers = {"convergence diversity": round(d_star, 4)} | ctx.means(DIVERSITY, cr.initial, fixed)
    below = _below_convergence(ctx)
    if not below:
        raise NotEnoughData("no temperature starts below the convergence diversity beyond noise", numbers)
    flags = {}
    for a in below:
        div = ctx.series(DIVERSITY, a)
        flags |= {
            f"{a.label}/{r}": c and r in div and cr.fall(div[r]) > cr.MIN_EFFECT_ABS
            for r, c in _collapsed_runs(ctx, a).items()
        }
    return all_or_none(flags, "starting below the convergence diversity, diversity fell and pass@1 collapsed", numbers)


def _collapse_verdict(ctx: Ctx, arm: Arm, expect_collapse: bool) -> Verdict:
    flags = {r: c == expect_collapse for r, c in _collapsed_runs(ctx, arm).items()}
    what = "collapsed" if expect_collapse else "stayed stable (no collapse)"
    return all_or_none(flags, f"t={arm.label} {what}", ctx.means(ACC, cr.peak, [arm]) | ctx.means(ACC, cr.final, [arm]))


T_FAILS, T_STABLE = 0.6, 1.8
"""The temperatures T5 and T6 name (the study's units: the arms' labels)."""


def _fixed_at(ctx: Ctx, t: float) -> Arm:
    """The fixed arm at temperature ``t``; NotEnoughData ('arm missing') when it did not run. The lowest or
    highest temperature that did run is another arm, not the one the claim is about."""
    found = [a for a in ctx.fixed() if math.isclose(float(a.value), t)]
    if not found:
        raise NotEnoughData(f"arm missing from sweep {ctx.sweep!r}: t = {t:g} (have {ctx.labels(ctx.arms)})")
    return found[0]


@insight(
    "T5",
    "Training at t = 0.6 fails.",
    sweep="temperature",
    metrics=(ACC,),
    figure="7_2",
    criterion=f"every run at t = {T_FAILS:g} collapses; {COLLAPSE}",
)
def low_temperature_fails(ctx: Ctx) -> Verdict:
    return _collapse_verdict(ctx, _fixed_at(ctx, T_FAILS), expect_collapse=True)


@insight(
    "T6",
    "Training at t = 1.8 is stable.",
    sweep="temperature",
    metrics=(ACC,),
    figure="7_2",
    criterion=f"no run at t = {T_STABLE:g} collapses; {COLLAPSE}",
)
def high_temperature_is_stable(ctx: Ctx) -> Verdict:
    return _collapse_verdict(ctx, _fixed_at(ctx, T_STABLE), expect_collapse=False)


@insight(
    "T7",
    "Diversity converges to similar values at every (stable) temperature.",
    sweep="temperature",
    metrics=(DIVERSITY,),
    figure="7_2",
    criterion="across fixed temperatures with no collapse whose initial diversities differ beyond noise, every "
    "pair's final diversities are shown within the tolerance min(0.10, half the initial spread) (equivalence "
    "test: |diff| + t * SE <= tolerance); contradicted when a pair differs by more than the tolerance beyond "
    f"noise; {NOISE}",
)
def diversity_converges_across_temperatures(ctx: Ctx) -> Verdict:
    """'Similar' is a 'no difference' claim: each pair must be shown within the tolerance, since a spread
    under it by point estimate, or not shown beyond it, is no evidence that the arms ended alike."""
    stable = _stable_arms(ctx)
    if len(stable) < 2:
        raise NotEnoughData(f"fewer than 2 stable fixed temperatures (stable: {ctx.labels(stable)})")
    final, initial = _diversity_spreads(ctx, stable)
    tol = min(T7_TOL, 0.5 * initial)
    numbers = {"final spread": round(final, 4), "initial spread": round(initial, 4), "tolerance": round(tol, 4)}
    if not _spread_beyond_noise(ctx, stable, cr.initial):
        raise NotEnoughData("initial diversities do not differ beyond noise: nothing to converge", numbers)
    parts = {
        f"final diversity [{a.label}] ~ [{b.label}]": replace(ctx.cmp(DIVERSITY, cr.final, a, b, eps=tol), flip=True)
        for a, b in itertools.combinations(stable, 2)
    }
    return judge(parts, numbers)


def _best(ctx: Ctx, arms: list[Arm]) -> Arm:
    """The arm with the highest mean final pass@1: a pick that its test must pay for (``picked_alpha``)."""
    return max(arms, key=lambda a: float(np.mean(ctx.values(ACC, cr.final, a))))


def picked_alpha(arms: list[Arm]) -> float:
    """Level for the best of ``arms`` picked by mean: ALPHA / len(arms) (Bonferroni), so that the pick
    passes by chance no more often than any one arm's test at ALPHA would."""
    return cr.ALPHA / max(len(arms), 1)


@insight(
    "T8",
    "Choose the training temperature from diversity.",
    sweep="temperature",
    metrics=(DIVERSITY, ACC),
    figure="7_2",
    criterion="the rule (lowest fixed temperature whose initial diversity is >= the "
    "convergence value) picks an arm whose final pass@1 is shown not below any other fixed arm's by the "
    "minimum effect (non-inferiority: the lower end of pick - other's t-interval above -0.01), where some "
    "temperature starts below that value beyond noise (T4's premise); "
    f"contradicted when another fixed arm ends higher beyond noise; {NOISE}",
)
def diversity_rule_picks_a_best_temperature(ctx: Ctx) -> Verdict:
    """The pick must be shown as good as every other fixed arm: being the best by mean, or within noise
    of the best, is no evidence that it is."""
    d_star = convergence_diversity(ctx)
    fixed = ctx.fixed()
    ok = [a for a in fixed if np.mean(ctx.values(DIVERSITY, cr.initial, a)) >= d_star]
    if not ok:
        raise NotEnoughData("no temperature starts at or above the convergence diversity")
    if not _below_convergence(ctx):
        raise NotEnoughData(
            "no temperature starts below the convergence diversity beyond noise: the rule excludes none"
        )
    chosen = ok[0]
    parts = {
        f"final acc [{chosen.label}] not below [{o.label}]": replace(
            ctx.cmp(ACC, cr.final, chosen, o), noninferior=True
        )
        for o in fixed
        if o != chosen
    }
    numbers = {"convergence diversity": round(d_star, 4), "chosen": chosen.label} | ctx.means(ACC, cr.final, fixed)
    return judge(parts, numbers)


@insight(
    "T9",
    "A low -> high staged schedule ends higher than any fixed temperature.",
    sweep="temperature",
    metrics=(ACC,),
    figure="7_2",
    criterion="final pass@1 of the best staged arm (a->b@step, picked by mean) > every fixed arm, each part at "
    f"alpha / staged arms (Bonferroni for the pick); {NOISE}",
)
def staged_schedule_beats_fixed(ctx: Ctx) -> Verdict:
    """Against every fixed arm, not only the best by mean: a noisier fixed arm just below it may be within
    noise of the staged one."""
    staged, fixed = ctx.of_kind(STAGED), ctx.fixed()
    if not staged or not fixed:
        raise NotEnoughData(f"need staged (a->b@step) and fixed temperature arms (have {ctx.labels(ctx.arms)})")
    s = _best(ctx, staged)
    parts = {f"final acc [{s.label}] > [{f.label}]": ctx.cmp(ACC, cr.final, s, f) for f in fixed}
    return judge(parts, ctx.means(ACC, cr.final, staged + fixed), alpha=picked_alpha(staged))


@insight(
    "T10",
    "Continuous temperature ramps are unstable; use discrete stages.",
    sweep="temperature_schedules",
    metrics=(ACC,),
    figure="7_2",
    criterion="final pass@1 of the best staged arm (picked by mean) > every ramp arm (a~b), each part at alpha / "
    f"staged arms (Bonferroni for the pick); {NOISE}",
)
def staged_schedule_beats_ramps(ctx: Ctx) -> Verdict:
    ramps, staged = ctx.of_kind(RAMP), ctx.of_kind(STAGED)
    if not ramps or not staged:
        raise NotEnoughData(f"need a continuous ramp (a~b) and a staged arm (have {ctx.labels(ctx.arms)})")
    s = _best(ctx, staged)
    parts = {f"final acc [{s.label}] > [{r.label}]": ctx.cmp(ACC, cr.final, s, r) for r in ramps}
    numbers = ctx.means(ACC, cr.final, [*ramps, s]) | ctx.means(ACC, cr.drop, [*ramps, s])
    return judge(parts, numbers, alpha=picked_alpha(staged))
