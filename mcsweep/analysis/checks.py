"""One check per insight: the stated, testable criterion for each claim of the MicroCoder study.

Each function reads a ``Ctx`` (one sweep's runs) and returns a ``Verdict``. Shared thresholds live
in ``criteria``; the criterion of each check is restated in words in ``insights.INSIGHTS``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from mcsweep.analysis import arms as ar
from mcsweep.analysis import criteria as cr
from mcsweep.analysis.criteria import ACC, DIVERSITY, LENGTH, REWARD
from mcsweep.analysis.samples import temperature_table
from mcsweep.analysis.verdicts import Ctx, Verdict, all_or_none, inconclusive, judge

T7_TOL = 0.10
"""Largest spread of final diversity across stable temperatures that still counts as 'similar'."""
DIV_FALL = 0.30
"""K2: a run's diversity 'falls' when its final value is below its initial value by 30% or more."""


def _need(ctx: Ctx, **roles: str) -> dict[str, str] | Verdict:
    """Find the named arms; a Verdict saying which are missing when some are."""
    found = {k: ar.find(ctx.arms, role) for k, role in roles.items()}
    missing = [roles[k] for k, v in found.items() if v is None]
    if missing:
        return inconclusive(f"arm missing from sweep {ctx.sweep!r}: {', '.join(missing)} (have {ctx.arms})")
    return found


# --- evaluator (fig 6_4) -------------------------------------------------------------------------


def _reward_acc_corr(s_reward: pd.Series, s_acc: pd.Series) -> float:
    joined = pd.concat([s_reward, s_acc], axis=1, join="inner").dropna()
    return float(joined.corr().iloc[0, 1]) if len(joined) >= 3 else np.nan


def _correlations(rew: dict[str, pd.Series], acc: dict[str, pd.Series]) -> np.ndarray:
    return np.array([c for r in rew if r in acc and np.isfinite(c := _reward_acc_corr(rew[r], acc[r]))])


def _corr_values(ctx: Ctx, arm: str) -> np.ndarray:
    return _correlations(ctx.series(REWARD, arm), ctx.series(ACC, arm))


def _corr_seed_sd(ctx: Ctx) -> float | None:
    """Seed-to-seed SD of the reward/acc correlation, from the seeds sweep (repeats of one config)."""
    c = _correlations(ctx.store.series("seeds", REWARD), ctx.store.series("seeds", ACC))
    return float(np.std(c, ddof=1)) if len(c) >= 2 else None


def e3(ctx: Ctx) -> Verdict:
    a = _need(ctx, robust="robust", lcb="lcb")
    if isinstance(a, Verdict):
        return a
    r, b = _corr_values(ctx, a["robust"]), _corr_values(ctx, a["lcb"])
    if not len(r) or not len(b):
        return inconclusive(
            "a reward/pass@1 correlation needs >= 3 evaluation steps that also log a training reward (step 0 has none)"
        )
    numbers = {
        "corr(reward, acc)[robust]": round(float(np.mean(r)), 3) if len(r) else np.nan,
        "corr(reward, acc)[lcb]": round(float(np.mean(b)), 3) if len(b) else np.nan,
    }
    return judge({"reward tracks acc better": cr.compare(r, b, 0.05, _corr_seed_sd(ctx))}, numbers)


def e4(ctx: Ctx) -> Verdict:
    a = _need(ctx, robust="robust", lcb="lcb")
    if isinstance(a, Verdict):
        return a
    return judge(
        {"mean reward": ctx.cmp(REWARD, cr.mean, a["robust"], a["lcb"])},
        ctx.means(REWARD, cr.mean, list(a.values())),
    )


def e5(ctx: Ctx) -> Verdict:
    a = _need(ctx, robust="robust", lcb="lcb")
    if isinstance(a, Verdict):
        return a
    parts = {
        "acc gain": ctx.cmp(ACC, cr.gain, a["robust"], a["lcb"]),
        "final acc": ctx.cmp(ACC, cr.final, a["robust"], a["lcb"]),
    }
    return judge(parts, ctx.means(ACC, cr.final, list(a.values())) | ctx.means(ACC, cr.gain, list(a.values())))


def _window(s: pd.Series, lo: float, hi: float) -> float:
    x = (s.index - s.index.min()) / max(s.index.max() - s.index.min(), 1)
    return float(s[(x > lo) & (x <= hi)].mean())


def early_minus_late(s: pd.Series) -> float:
    """Mean over 10-40% of the run minus mean over the last 30%."""
    return _window(s, 0.1, 0.4) - _window(s, 0.7, 1.0)


def e6(ctx: Ctx) -> Verdict:
    a = _need(ctx, robust="robust", lcb="lcb")
    if isinstance(a, Verdict):
        return a
    # gap_early - gap_late = (R_early - R_late) - (L_early - L_late)
    return judge(
        {"gap early > gap late": ctx.cmp(ACC, early_minus_late, a["robust"], a["lcb"])},
        ctx.means(ACC, early_minus_late, list(a.values())),
    )


# --- temperature (fig 7_2) -----------------------------------------------------------------------


def _fixed(ctx: Ctx) -> list[str]:
    return [arm for _, arm in ar.fixed(ctx.arms)]


def stable_max_temperature(by_temp: pd.Series) -> float:
    """Highest evaluation temperature whose pass@1 is at least half the pass@1 at the lowest one."""
    by_temp = by_temp.sort_index()
    ok = by_temp[by_temp >= 0.5 * by_temp.iloc[0]]
    return float(ok.index.max())


def _temperature_curves(ctx: Ctx) -> dict[str, pd.Series]:
    """run_id -> stable max temperature per checkpoint step, from evaluate-at-temperatures samples."""
    s = ctx.samples
    if s.empty or "run_id" not in s:
        return {}
    table = temperature_table(s[s["run_id"].isin(set(ctx.frame["run_id"]))])
    out = {}
    for rid, g in table.groupby("run_id"):
        per_step = {
            step: stable_max_temperature(h.set_index("eval_temperature")["pass@1"])
            for step, h in g.groupby("step")
            if len(h) >= 3
        }
        if len(per_step) >= 2:
            out[rid] = pd.Series(per_step).sort_index()
    return out


def t1(ctx: Ctx) -> Verdict:
    curves = _temperature_curves(ctx)
    if not curves:
        return inconclusive(
            "no evaluate-at-temperatures samples (>=3 temperatures at >=2 checkpoints); run the trainer's "
            "evaluate-at-temperatures over the temperature sweep's checkpoints"
        )
    numbers = {f"t_max[{r}] first->last": f"{c.iloc[0]:g}->{c.iloc[-1]:g}" for r, c in curves.items()}
    if all(c.iloc[-1] == c.iloc[0] for c in curves.values()):
        return inconclusive("stable max temperature unchanged at the grid resolution", numbers)
    return all_or_none(
        {r: bool(c.iloc[-1] > c.iloc[0]) for r, c in curves.items()}, "stable max temperature grew", numbers
    )


def t2(ctx: Ctx) -> Verdict:
    fixed = _fixed(ctx)
    if len(fixed) < 2:
        return inconclusive(f"fewer than 2 fixed temperatures (have {ctx.arms})")
    return judge(ctx.ordered(DIVERSITY, cr.initial, fixed), ctx.means(DIVERSITY, cr.initial, fixed))


def _fall(s: pd.Series) -> float:
    return -cr.gain(s)


def t3(ctx: Ctx) -> Verdict:
    fixed = _fixed(ctx)
    if not fixed:
        return inconclusive(f"no fixed temperature (have {ctx.arms})")
    parts = {
        f"diversity falls at t={arm}": ctx.cmp_values(DIVERSITY, _fall, ctx.values(DIVERSITY, _fall, arm), np.zeros(2))
        for arm in fixed
    }
    return judge(parts, ctx.means(DIVERSITY, cr.initial, fixed) | ctx.means(DIVERSITY, cr.final, fixed))


def _collapsed_runs(ctx: Ctx, arm: str) -> dict[str, bool]:
    return {r: cr.collapsed(s) for r, s in ctx.series(ACC, arm).items() if len(s) >= 3}


def _stable_arms(ctx: Ctx) -> list[str]:
    """Fixed-temperature arms where no run collapsed."""
    return [a for a in _fixed(ctx) if (c := _collapsed_runs(ctx, a)) and not any(c.values())]


NO_CONVERGENCE = (
    "no convergence diversity: no stable fixed-temperature arm, or their diversities did not "
    "draw together (final spread >= initial spread, as T7 checks)"
)


def _diversity_spreads(ctx: Ctx, arms: list[str]) -> tuple[float, float]:
    """(final, initial) spread of mean diversity across ``arms``."""
    spread = []
    for fn in (cr.final, cr.initial):
        means = [float(np.mean(ctx.values(DIVERSITY, fn, a))) for a in arms]
        spread.append(max(means) - min(means))
    return spread[0], spread[1]


def convergence_diversity(ctx: Ctx) -> float | None:
    """The value diversity converges to: mean final diversity of the stable fixed-temperature arms;
    None when there is none, or when those arms' diversities did not converge at all."""
    stable = _stable_arms(ctx)
    if len(stable) >= 2:
        final, initial = _diversity_spreads(ctx, stable)
        if final >= initial:
            return None
    vals = [v for a in stable for v in ctx.values(DIVERSITY, cr.final, a)]
    return float(np.mean(vals)) if vals else None


def t4(ctx: Ctx) -> Verdict:
    d_star = convergence_diversity(ctx)
    if d_star is None:
        return inconclusive(NO_CONVERGENCE)
    numbers = {"convergence diversity": round(d_star, 4)} | ctx.means(DIVERSITY, cr.initial, _fixed(ctx))
    below = [a for a in _fixed(ctx) if np.mean(ctx.values(DIVERSITY, cr.initial, a)) < d_star - cr.MIN_EFFECT_ABS]
    if not below:
        return inconclusive("no temperature starts below the convergence diversity", numbers)
    flags = {}
    for a in below:
        div = ctx.series(DIVERSITY, a)
        flags |= {
            f"{a}/{r}": c and r in div and _fall(div[r]) > cr.MIN_EFFECT_ABS for r, c in _collapsed_runs(ctx, a).items()
        }
    return all_or_none(flags, "starting below the convergence diversity, diversity fell and pass@1 collapsed", numbers)


def _collapse_verdict(ctx: Ctx, pick: int, expect_collapse: bool) -> Verdict:
    fixed = _fixed(ctx)
    if not fixed:
        return inconclusive(f"no fixed temperature (have {ctx.arms})")
    arm = fixed[pick]
    flags = {r: c == expect_collapse for r, c in _collapsed_runs(ctx, arm).items()}
    what = "collapsed" if expect_collapse else "stayed stable (no collapse)"
    return all_or_none(flags, f"t={arm} {what}", ctx.means(ACC, cr.peak, [arm]) | ctx.means(ACC, cr.final, [arm]))


def t5(ctx: Ctx) -> Verdict:
    return _collapse_verdict(ctx, 0, expect_collapse=True)


def t6(ctx: Ctx) -> Verdict:
    return _collapse_verdict(ctx, -1, expect_collapse=False)


def t7(ctx: Ctx) -> Verdict:
    stable = _stable_arms(ctx)
    if len(stable) < 2:
        return inconclusive(f"fewer than 2 stable fixed temperatures (stable: {stable})")
    final, initial = _diversity_spreads(ctx, stable)
    numbers = {"final spread": round(final, 4), "initial spread": round(initial, 4)}
    if final >= initial:
        return Verdict("contradicted", "final diversity spread is not smaller than the initial one", numbers)
    if final <= min(T7_TOL, 0.5 * initial):
        return Verdict("holds", f"final spread within {T7_TOL} and under half the initial spread", numbers)
    return inconclusive("spread shrank but not to within the tolerance", numbers)


def t8(ctx: Ctx) -> Verdict:
    d_star = convergence_diversity(ctx)
    fixed = _fixed(ctx)
    if d_star is None:
        return inconclusive(NO_CONVERGENCE)
    ok = [a for a in fixed if np.mean(ctx.values(DIVERSITY, cr.initial, a)) >= d_star]
    if not ok:
        return inconclusive("no temperature starts at or above the convergence diversity")
    chosen = ok[0]
    best = max(fixed, key=lambda a: float(np.mean(ctx.values(ACC, cr.final, a))))
    numbers = {"convergence diversity": round(d_star, 4), "chosen": chosen, "best": best}
    numbers |= ctx.means(ACC, cr.final, fixed)
    if chosen == best:
        return Verdict("holds", f"the rule picks t={chosen}, the best fixed temperature", numbers)
    c = ctx.cmp(ACC, cr.final, best, chosen)
    if c.sign is None:
        return inconclusive("the rule's pick is not the best arm, and " + "noise is unknown", numbers)
    numbers |= c.numbers("best - chosen")
    if c.sign == 1:
        return Verdict("contradicted", f"t={best} beats the rule's pick t={chosen} beyond noise", numbers)
    return Verdict("holds", f"the rule's pick t={chosen} is within noise of the best t={best}", numbers)


def _best(ctx: Ctx, arms_: list[str]) -> str:
    return max(arms_, key=lambda a: float(np.mean(ctx.values(ACC, cr.final, a))))


def t9(ctx: Ctx) -> Verdict:
    staged, fixed = [a for a in ctx.arms if ar.staged(a)], _fixed(ctx)
    if not staged or not fixed:
        return inconclusive(f"need staged (a->b@step) and fixed temperature arms (have {ctx.arms})")
    s, f = _best(ctx, staged), _best(ctx, fixed)
    return judge({f"final acc [{s}] > [{f}]": ctx.cmp(ACC, cr.final, s, f)}, ctx.means(ACC, cr.final, staged + fixed))


def t10(ctx: Ctx) -> Verdict:
    ramps, staged = [a for a in ctx.arms if ar.is_ramp(a)], [a for a in ctx.arms if ar.staged(a)]
    if not ramps or not staged:
        return inconclusive(f"need a continuous ramp (a~b) and a staged arm (have {ctx.arms})")
    s = _best(ctx, staged)
    parts = {f"final acc [{s}] > [{r}]": ctx.cmp(ACC, cr.final, s, r) for r in ramps}
    return judge(parts, ctx.means(ACC, cr.final, [*ramps, s]) | ctx.means(ACC, cr.drop, [*ramps, s]))


# --- data (fig 8_2) ------------------------------------------------------------------------------


def d1(ctx: Ctx) -> Verdict:
    a = _need(ctx, hard="hard", easy="easy")
    if isinstance(a, Verdict):
        return a
    hard, easy = ctx.values(ACC, cr.gain, a["hard"]), ctx.values(ACC, cr.gain, a["easy"])
    easy_move = ctx.cmp_values(ACC, cr.gain, easy, np.zeros(2))
    flat = cr.Cmp(
        easy_move.diff,
        easy_move.se,
        easy_move.threshold,
        None if easy_move.sign is None else 1 if easy_move.sign == 0 else -1,
    )
    parts = {
        "hard acc rises": ctx.cmp_values(ACC, cr.gain, hard, np.zeros(2)),
        "hard gain > easy gain": ctx.cmp_values(ACC, cr.gain, hard, easy),
        "easy stays flat": flat,
    }
    return judge(parts, ctx.means(ACC, cr.gain, list(a.values())))


def d2(ctx: Ctx) -> Verdict:
    a = _need(ctx, hard="hard", easy="easy")
    if isinstance(a, Verdict):
        return a
    return judge(
        {"mean reward easy > hard": ctx.cmp(REWARD, cr.mean, a["easy"], a["hard"])},
        ctx.means(REWARD, cr.mean, list(a.values())),
    )


def d3(ctx: Ctx) -> Verdict:
    a = _need(ctx, hard="hard", easy="easy")
    if isinstance(a, Verdict):
        return a
    trend = {k: ctx.cmp_values(REWARD, cr.gain, ctx.values(REWARD, cr.gain, v), np.zeros(2)) for k, v in a.items()}
    numbers = ctx.means(REWARD, cr.gain, list(a.values())) | ctx.means(ACC, cr.gain, list(a.values()))
    if None not in (trend["hard"].sign, trend["easy"].sign) and trend["hard"].sign * trend["easy"].sign == -1:
        return Verdict("contradicted", "reward trends go opposite ways", numbers)
    if trend["hard"].sign != trend["easy"].sign:
        return inconclusive("reward trends not clearly alike (one within noise)", numbers)
    return judge({"acc gain hard > easy": ctx.cmp(ACC, cr.gain, a["hard"], a["easy"])}, numbers)


def d4(ctx: Ctx) -> Verdict:
    a = _need(ctx, hard="hard", easy="easy")
    if isinstance(a, Verdict):
        return a
    parts = {
        "length growth": ctx.cmp(LENGTH, cr.gain, a["hard"], a["easy"]),
        "final length": ctx.cmp(LENGTH, cr.final, a["hard"], a["easy"]),
    }
    return judge(parts, ctx.means(LENGTH, cr.final, list(a.values())))


# --- context length (fig 10_2) -------------------------------------------------------------------


def _ordered_fixed(ctx: Ctx, metric: str, fn: cr.Summary) -> Verdict:
    fixed = _fixed(ctx)
    if len(fixed) < 2:
        return inconclusive(f"fewer than 2 fixed lengths (have {ctx.arms})")
    return judge(ctx.ordered(metric, fn, fixed), ctx.means(metric, fn, fixed))


def c1(ctx: Ctx) -> Verdict:
    return _ordered_fixed(ctx, ACC, cr.final)


def c2(ctx: Ctx) -> Verdict:
    fixed = _fixed(ctx)
    if len(fixed) < 2:
        return inconclusive(f"fewer than 2 fixed lengths (have {ctx.arms})")
    parts = ctx.ordered(LENGTH, cr.final, fixed) | {
        f"growth {k}": v for k, v in ctx.ordered(LENGTH, cr.gain, fixed).items()
    }
    return judge(parts, ctx.means(LENGTH, cr.final, fixed))


def c3(ctx: Ctx) -> Verdict:
    return _ordered_fixed(ctx, DIVERSITY, cr.final)


def _extended(ctx: Ctx) -> list[tuple[ar.Staged, str, str]]:
    """(schedule, arm, the fixed arm at its target length) for each extension with that fixed arm present."""
    fixed = {v: a for v, a in ar.fixed(ctx.arms)}
    return [(st, a, fixed[st.end]) for a in ctx.arms if (st := ar.staged(a)) and st.end in fixed]


def _deficits(ctx: Ctx, arm: str, target: str) -> np.ndarray:
    return float(np.mean(ctx.values(ACC, cr.final, target))) - ctx.values(ACC, cr.final, arm)


def c4(ctx: Ctx) -> Verdict:
    ext = _extended(ctx)
    if not ext:
        return inconclusive(f"no extension arm (a->b@step) with its fixed target (have {ctx.arms})")
    parts = {f"final acc [{t}] > [{a}]": ctx.cmp(ACC, cr.final, t, a) for _, a, t in ext}
    return judge(parts, ctx.means(ACC, cr.final, sorted({x for _, a, t in ext for x in (a, t)})))


def _deficit_order(ctx: Ctx, key: str) -> Verdict:
    """Deficits should grow as the start shrinks (key='start') or the switch comes later (key='at')."""
    ext = [(st, a, t) for st, a, t in _extended(ctx) if getattr(st, key) is not None]
    groups: dict[tuple, list] = {}
    for st, a, t in ext:
        other = (st.end, st.at) if key == "start" else (st.start, st.end)
        groups.setdefault(other, []).append((getattr(st, key), a, t))
    parts, numbers = {}, {}
    for items in groups.values():
        items.sort(reverse=key == "start")
        defs = [(a, _deficits(ctx, a, t)) for _, a, t in items]
        numbers |= {f"deficit[{a}]": round(float(np.mean(d)), 4) for a, d in defs}
        parts |= {
            f"deficit[{b}]>[{a}]": ctx.cmp_values(ACC, cr.final, db, da)
            for (a, da), (b, db) in itertools.pairwise(defs)
        }
    if not parts:
        return inconclusive(f"need 2 extension arms differing only in {key} (have {ctx.arms})")
    return judge(parts, numbers)


def c5(ctx: Ctx) -> Verdict:
    return _deficit_order(ctx, "start")


def c6(ctx: Ctx) -> Verdict:
    return _deficit_order(ctx, "at")


# --- truncation mask (fig 12_2) ------------------------------------------------------------------


def _by_amount(ctx: Ctx, with_none: bool) -> list[str]:
    amt = {a: ar.mask_amount(a) for a in ctx.arms}
    return sorted((a for a, v in amt.items() if v is not None and (with_none or v > 0)), key=amt.__getitem__)


SHAPE_POINTS = 5  # evaluations a run needs before its pass@1 curve can show a rise, a fall and a plateau


def rise_fall_converge(s: pd.Series) -> bool:
    """Peak before the last 20% of steps, a collapse-sized fall after it, and a flat last quarter."""
    sm = pd.Series(cr.smooth(s.to_numpy(), cr.PEAK_WINDOW), index=s.index)
    x = (s.index - s.index.min()) / max(s.index.max() - s.index.min(), 1)
    tail = sm[x >= 0.75]
    return bool(
        x[int(np.argmax(sm.to_numpy()))] < 0.8 and cr.collapsed(s) and tail.max() - tail.min() <= 0.5 * cr.drop(s)
    )


def m3(ctx: Ctx) -> Verdict:
    masked = _by_amount(ctx, with_none=False)
    if not masked:
        return inconclusive(f"no masking arm (rates or mask all) (have {ctx.arms})")
    points = min(len(s) for a in masked for s in ctx.series(ACC, a).values())
    if points < SHAPE_POINTS:
        return inconclusive(
            f"a rise, fall and levelling off needs >= {SHAPE_POINTS} evaluations per run (have {points})"
        )
    flags = {f"{a}/{r}": rise_fall_converge(s) for a in masked for r, s in ctx.series(ACC, a).items()}
    return all_or_none(flags, "pass@1 rose, fell and levelled off", ctx.means(ACC, cr.drop, masked))


def m4(ctx: Ctx) -> Verdict:
    order = _by_amount(ctx, with_none=False)
    rates = [a for a in order if ar.mask_amount(a) < 1]
    all_ = ar.find(ctx.arms, "mask_all")
    if len(rates) < 2 or all_ is None:
        return inconclusive(f"need 2 mask rates and mask all (have {ctx.arms})")
    g = {a: float(np.mean(ctx.values(LENGTH, cr.gain, a))) for a in order}
    closer = abs(g[rates[-1]] - g[all_]) < abs(g[rates[0]] - g[all_])
    verdict = judge(ctx.ordered(LENGTH, cr.gain, order), ctx.means(LENGTH, cr.gain, order))
    if verdict.status == "holds" and not closer:
        return Verdict("contradicted", f"{rates[-1]} is not closer to mask all than {rates[0]}", verdict.numbers)
    return verdict


def _neg_peak_step(s: pd.Series) -> float:
    return -cr.peak_step(s)


def m5(ctx: Ctx) -> Verdict:
    order = _by_amount(ctx, with_none=False)
    if len(order) < 2:
        return inconclusive(f"fewer than 2 masking amounts (have {ctx.arms})")
    interval = float(np.median(np.diff(sorted(ctx.frame.loc[ctx.frame["metric"] == ACC, "step"].unique()))))
    parts = {
        f"peak earlier [{b}] than [{a}]": ctx.cmp(ACC, _neg_peak_step, b, a, eps=interval)
        for a, b in itertools.pairwise(order)
    }
    return judge(parts, ctx.means(ACC, cr.peak_step, order))


def m6(ctx: Ctx) -> Verdict:
    order = _by_amount(ctx, with_none=True)
    if len(order) < 2:
        return inconclusive(f"fewer than 2 masking amounts (have {ctx.arms})")
    return judge(ctx.ordered(ACC, cr.peak, order[::-1]), ctx.means(ACC, cr.peak, order))


def fall_by_midpoint(s: pd.Series) -> float:
    """Diversity lost between the start and the middle (40-60%) of the run."""
    return cr.initial(s) - _window(s, 0.4, 0.6)


def m7(ctx: Ctx) -> Verdict:
    order = _by_amount(ctx, with_none=True)
    if len(order) < 2:
        return inconclusive(f"fewer than 2 masking amounts (have {ctx.arms})")
    return judge(ctx.ordered(DIVERSITY, fall_by_midpoint, order), ctx.means(DIVERSITY, fall_by_midpoint, order))


def m8(ctx: Ctx) -> Verdict:
    cond = ar.find(ctx.arms, "conditional") or ar.conditional_at_default_rho(ctx.arms)
    others = [a for a in ctx.arms if a != cond]
    if cond is None or not others:
        return inconclusive(f"need the conditional mask and another arm (have {ctx.arms})")
    parts = {f"final acc [{cond}] > [{o}]": ctx.cmp(ACC, cr.final, cond, o) for o in others}
    parts |= {
        f"drop [{o}] > [{cond}]": ctx.cmp(ACC, cr.drop, o, cond, eps=0.0)
        for o in others
        if np.mean(ctx.values(ACC, cr.drop, o)) > cr.COLLAPSE_ABS
    }
    return judge(parts, ctx.means(ACC, cr.final, ctx.arms) | ctx.means(ACC, cr.drop, ctx.arms))


# --- batch (fig 11_2) ----------------------------------------------------------------------------


def _batches(ctx: Ctx) -> list[str]:
    return [a for _, a in ar.fixed(ctx.arms)]


def _common_data(ctx: Ctx) -> float:
    """Largest amount of data (step x batch) that every batch arm reached."""
    last = ctx.frame.groupby(ctx.axis)["step"].max()
    return float(min(last[a] * ar.number(a) for a in _batches(ctx)))


def _equal_data(ctx: Ctx, metric: str, fn: cr.Summary, arm: str) -> np.ndarray:
    """``fn`` over the part of each run within the data every arm reached."""
    limit = _common_data(ctx) / ar.number(arm)
    return np.array([fn(s[s.index <= limit]) for s in ctx.series(metric, arm).values() if len(s[s.index <= limit])])


def _rel_length_drop(s: pd.Series) -> float:
    return cr.drop(s) / max(cr.peak(s), 1e-9)


def b3(ctx: Ctx) -> Verdict:
    b = _batches(ctx)
    if len(b) < 2:
        return inconclusive(f"fewer than 2 batch sizes (have {ctx.arms})")
    on, off = b[0], b[-1]
    parts = {
        f"length falls from its peak more at {on} than {off}": ctx.cmp_values(
            LENGTH,
            _rel_length_drop,
            _equal_data(ctx, LENGTH, _rel_length_drop, on),
            _equal_data(ctx, LENGTH, _rel_length_drop, off),
            eps=0.03,
        ),
        f"diversity settles faster at {on} than {off}": ctx.cmp_values(
            DIVERSITY,
            fall_by_midpoint,
            _equal_data(ctx, DIVERSITY, fall_by_midpoint, on),
            _equal_data(ctx, DIVERSITY, fall_by_midpoint, off),
        ),
    }
    return judge(parts, {"common data (step x batch)": _common_data(ctx)})


def b4(ctx: Ctx) -> Verdict:
    b = _batches(ctx)
    if len(b) < 3:
        return inconclusive(f"fewer than 3 batch sizes (have {ctx.arms})")
    mid = b[len(b) // 2]
    vals = {a: _equal_data(ctx, ACC, cr.final, a) for a in b}
    parts = {f"final acc [{mid}] > [{o}]": ctx.cmp_values(ACC, cr.final, vals[mid], vals[o]) for o in (b[0], b[-1])}
    return judge(parts, {f"final acc at equal data[{a}]": round(float(np.mean(v)), 4) for a, v in vals.items()})


# --- KL / clip (fig 9_2) -------------------------------------------------------------------------


def k1(ctx: Ctx) -> Verdict:
    a = _need(ctx, clip="clip_high", kl="kl")
    if isinstance(a, Verdict):
        return a
    parts = {
        "diversity change": ctx.cmp(DIVERSITY, cr.gain, a["clip"], a["kl"]),
        "final length": ctx.cmp(LENGTH, cr.final, a["clip"], a["kl"]),
        "final acc": ctx.cmp(ACC, cr.final, a["clip"], a["kl"]),
    }
    arms_ = list(a.values())
    return judge(
        parts,
        ctx.means(DIVERSITY, cr.final, arms_) | ctx.means(LENGTH, cr.final, arms_) | ctx.means(ACC, cr.final, arms_),
    )


def k2(ctx: Ctx) -> Verdict:
    div, acc = ctx.store.series(ctx.sweep, DIVERSITY), ctx.store.series(ctx.sweep, ACC)
    falling = [r for r, s in div.items() if cr.final(s) <= (1 - DIV_FALL) * cr.initial(s) and r in acc]
    if not falling:
        return inconclusive(f"no run whose diversity fell by {DIV_FALL:.0%} or more")
    return all_or_none(
        {r: rose_then_fell(acc[r]) for r in falling},
        f"diversity fell by {DIV_FALL:.0%}+ and pass@1 rose then fell",
        {},
    )


def rose_then_fell(s: pd.Series) -> bool:
    """pass@1 climbed above its start by more than the minimum effect, then collapsed."""
    return cr.peak(s) - cr.initial(s) > cr.MIN_EFFECT_ABS and cr.collapsed(s)
