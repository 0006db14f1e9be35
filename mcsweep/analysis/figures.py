"""The study's figures (1, 6_4, 7_2, 8_2, 9_2, 10_2, 11_2, 12_2, 13), redrawn from loaded runs.

Each figure function takes the tidy frame (and stored samples) and returns a finished matplotlib
figure (legends on every panel, whatever the entry point), or None when its sweep is missing. Series
are seed means per step: raw faded, smoothed solid, maxima dashed, and a band of +-1 SD over seeds
where an arm has several (``style``). Arms are named in the study's words (``Arm.display``). Each
panel's y-axis spans at least ``style.MIN_SPAN_EFFECTS`` minimum effects and marks the minimum effect,
so differences below the noise threshold do not fill it. Titles carry the data source and seed count.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from mcsweep.analysis import style
from mcsweep.analysis.arms import FIXED, Arm, arm_of
from mcsweep.analysis.criteria import ACC, ACC_EXT, DIVERSITY, LENGTH, REWARD, min_effect
from mcsweep.analysis.load import AXES
from mcsweep.analysis.samples import temperature_table

LABELS = {
    ACC: "test pass@1 (Acc)",
    ACC_EXT: "test pass@1, extended length",
    REWARD: "critic reward",
    LENGTH: "response length",
    DIVERSITY: "diversity",
}
ALGO_WORD = {"grpo": "GRPO", "dapo": "DAPO", "microcoder_grpo": "MicroCoder-GRPO"}
"""The study's names of the algorithms (fig 13, Table 1)."""
MEMORY = "memory/max_allocated_gb"
PHASES = (("time/generation_s", "inference"), ("time/reward_s", "reward"), ("time/update_s", "update"))


def _as_number(label: str) -> float | None:
    try:
        return float(label)
    except ValueError:
        return None


def _order(groups: list[str]) -> list[str]:
    """Numbers first in increasing order, then the rest alphabetically."""
    nums = sorted((g for g in groups if _as_number(g) is not None), key=_as_number)
    return nums + sorted(g for g in groups if _as_number(g) is None)


def _arms(sub: pd.DataFrame, axis: str) -> dict[str, Arm]:
    """Label -> the loader's arm record (read from the label where a hand-made frame has none)."""
    runs = sub.drop_duplicates("run_id")
    recs = runs["arm"] if "arm" in runs else [None] * len(runs)
    return {
        str(label): rec if isinstance(rec, Arm) else arm_of(axis, str(label))
        for label, rec in zip(runs[axis], recs, strict=True)
        if label is not None
    }


def arm_panel(
    ax: Axes,
    frame: pd.DataFrame,
    metric: str,
    by: str,
    arms_: list[str] | None = None,
    xlabel: str = "training step",
) -> None:
    """One series per arm: the seed-mean of ``metric`` against step, with a +-1 SD band over seeds, the
    arm named in the study's words; the y-axis no narrower than ``style.MIN_SPAN_EFFECTS`` minimum effects."""
    sub = frame[frame["metric"] == metric]
    present = [str(a) for a in sub[by].dropna().unique()]
    names = display_names(sub, by)
    for i, arm in enumerate(a for a in (arms_ or _order(present)) if a in present):
        per_step = sub[sub[by].astype(str) == arm].groupby("step")["value"]
        m, sd, n = per_step.mean().sort_index(), per_step.std().sort_index(), per_step.count().sort_index()
        spread = sd.where(n >= 2).to_numpy() if (n >= 2).any() else None
        color = style.PALETTE[i % len(style.PALETTE)]
        style.series(ax, m.index.to_numpy(), m.to_numpy(), names.get(arm, arm), color, spread=spread)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(LABELS.get(metric, metric))
    if len(sub):
        style.noise_scale(ax, min_effect(metric, float(sub["value"].abs().mean())))


def display_names(sub: pd.DataFrame, by: str) -> dict[str, str]:
    """Frame label -> the study's name: the arm's ``display`` for an axis, the algorithm's name for
    ``algo``, the label itself otherwise."""
    if by in AXES:
        return {label: arm.display for label, arm in _arms(sub, by).items()}
    if by == "algo":
        return {str(a): ALGO_WORD.get(str(a), str(a)) for a in sub[by].dropna().unique()}
    return {}


def _sweep_figure(
    frame: pd.DataFrame,
    sweep: str,
    title: str,
    metrics: tuple[str, ...],
    by: str | None = None,
    xlabel: str = "training step",
) -> Figure | None:
    sub = frame[frame["sweep"] == sweep]
    if sub.empty:
        return None
    fig, axes = style.figure(len(metrics), title, style.source_label(sub))
    for ax, metric in zip(axes, metrics, strict=True):
        arm_panel(ax, sub, metric, by or sweep, xlabel=xlabel)
    return style.legends(fig)


def fig_1(frame: pd.DataFrame, samples: pd.DataFrame) -> Figure | None:
    """Base models compared (one series per world) on the seeds sweep: Acc, reward, length, length density."""
    sub = frame[frame["sweep"] == "seeds"]
    if sub.empty:
        return None
    fig, axes = style.figure(4, "Fig. 1: base models under the same recipe", style.source_label(sub))
    for ax, metric in zip(axes, (ACC, REWARD, LENGTH), strict=False):
        arm_panel(ax, sub, metric, "world")
    s = samples[samples["run_id"].isin(set(sub["run_id"]))] if not samples.empty else samples
    if s.empty:
        axes[3].text(0.5, 0.5, "no stored samples", ha="center", transform=axes[3].transAxes)
    else:
        last = s[s["step"] == s.groupby("run_id")["step"].transform("max")]
        sns.kdeplot(data=last, x="length", hue="world", ax=axes[3], fill=True, common_norm=False)
    axes[3].set_xlabel("response length (final checkpoint samples)")
    axes[3].set_ylabel(axes[3].get_ylabel() or "Density")  # seaborn's label; the same without samples
    return style.legends(fig)


def _cumulative_time(g: pd.DataFrame) -> pd.DataFrame:
    wide = g.pivot_table(index="step", columns="metric", values="value")
    phases = wide.reindex(columns=[p for p, _ in PHASES]).fillna(0.0)
    wide["t_end"] = phases.sum(axis=1).cumsum()
    wide["t_start"] = wide["t_end"] - phases.sum(axis=1)
    return wide.join(phases, rsuffix="_phase")


def _memory_panel(ax: Axes, sub: pd.DataFrame) -> None:
    """GPU memory against wall time, with one run's inference / reward / update phases shaded."""
    if MEMORY not in set(sub["metric"]):
        ax.text(0.5, 0.9, f"no {MEMORY} in these runs", ha="center", transform=ax.transAxes, fontsize=7)
    names = display_names(sub, "evaluator")
    for i, (arm, g) in enumerate(sub.groupby("evaluator")):
        first = g[g["run_id"] == sorted(g["run_id"].unique())[0]]
        wide = _cumulative_time(first)
        if MEMORY in wide:
            ax.plot(wide["t_end"], wide[MEMORY], color=style.PALETTE[i], label=f"{names.get(arm, arm)} (one run)")
        if i == 0:
            _shade(ax, wide)
    ax.set_xlabel("wall time (s)")
    ax.set_ylabel("max memory allocated (GB)")


def _shade(ax: Axes, wide: pd.DataFrame) -> None:
    """Each step's inference, reward and update phases as consecutive shaded spans along wall time."""
    start = wide["t_start"].to_numpy()
    for (metric, name), color in zip(PHASES, sns.color_palette("pastel", 3), strict=True):
        dur = wide[metric].to_numpy() if metric in wide else np.zeros(len(wide))
        ax.broken_barh(
            list(zip(start, dur, strict=True)),
            (0, 1),
            transform=ax.get_xaxis_transform(),
            color=color,
            alpha=0.4,
            label=name,
        )
        start = start + dur


def fig_6_4(frame: pd.DataFrame, samples: pd.DataFrame) -> Figure | None:
    sub = frame[frame["sweep"] == "evaluator"]
    if sub.empty:
        return None
    fig, axes = style.figure(3, "Fig. 6_4: robust vs LiveCodeBench evaluator", style.source_label(sub))
    arm_panel(axes[0], sub, ACC, "evaluator")
    arm_panel(axes[1], sub, REWARD, "evaluator")
    _memory_panel(axes[2], sub)
    return style.legends(fig)


def _temperature_panels(axes: list[Axes], frame: pd.DataFrame, samples: pd.DataFrame) -> None:
    table = (
        temperature_table(samples[samples["run_id"].isin(set(frame["run_id"]))])
        if not samples.empty
        else temperature_table(samples)
    )
    groups = table.groupby(["step", "max_length", "samples_per_problem"])
    for ax, col in zip(axes, ("pass@1", "diversity"), strict=True):
        for i, ((step, length, k), g) in enumerate(groups):
            per_t = g.groupby("eval_temperature")[col]
            m, sd, n = per_t.mean(), per_t.std(), per_t.count()
            spread = sd.where(n >= 2).to_numpy() if (n >= 2).any() else None
            label = f"step {step} (length {length:g}, {k}/problem, {n.max()} runs)"
            color = style.PALETTE[i % 8]
            style.series(ax, m.index.to_numpy(), m.to_numpy(), label, color, ref_max=False, spread=spread)
        ax.set_xlabel("evaluation temperature")
        ax.set_ylabel(col if table.size else f"{col} (no evaluate-at-temperatures samples)")
        if len(table):
            style.noise_scale(ax, min_effect(col, 0.0))


def fig_7_2(frame: pd.DataFrame, samples: pd.DataFrame) -> Figure | None:
    sub = frame[frame["sweep"] == "temperature"]
    if sub.empty:
        return None
    fig, axes = style.figure(3, "Fig. 7_2: temperature", style.source_label(sub), nrows=2)
    _temperature_panels(axes[:2], sub, samples)
    arms = _arms(sub, "temperature")
    fixed = sorted((k for k, a in arms.items() if a.kind == FIXED), key=lambda k: arms[k].value)
    staged = [k for k in arms if k not in fixed]
    arm_panel(axes[2], sub, ACC, "temperature", fixed)
    arm_panel(axes[3], sub, DIVERSITY, "temperature", fixed)
    arm_panel(axes[4], sub, ACC, "temperature", staged)
    arm_panel(axes[5], sub, DIVERSITY, "temperature", staged)
    for ax, t in zip(axes[2:], ("fixed", "fixed", "staged / ramp", "staged / ramp"), strict=True):
        ax.set_title(t)
    return style.legends(fig)


def fig_8_2(frame: pd.DataFrame, samples: pd.DataFrame) -> Figure | None:
    return _sweep_figure(frame, "data", "Fig. 8_2: training data", (ACC, REWARD, LENGTH))


def fig_9_2(frame: pd.DataFrame, samples: pd.DataFrame) -> Figure | None:
    return _sweep_figure(frame, "kl_clip", "Fig. 9_2: KL loss vs no KL + clip-high", (ACC, DIVERSITY, LENGTH))


def fig_10_2(frame: pd.DataFrame, samples: pd.DataFrame) -> Figure | None:
    return _sweep_figure(frame, "context", "Fig. 10_2: maximum response length", (ACC, LENGTH, DIVERSITY))


def fig_11_2(frame: pd.DataFrame, samples: pd.DataFrame) -> Figure | None:
    """Against the training step, which is the data: one step is one update of ``mini_batch`` prompts in
    every batch arm, so equal steps are equal data (docs/analysis.md)."""
    return _sweep_figure(
        frame,
        "batch",
        "Fig. 11_2: train batch (fixed mini-batch)",
        (ACC, LENGTH, DIVERSITY),
        xlabel="data: training step (one update of mini_batch prompts, every arm)",
    )


def fig_12_2(frame: pd.DataFrame, samples: pd.DataFrame) -> Figure | None:
    sub = frame[frame["sweep"] == "masking"]
    if sub.empty:
        return None
    arms = _arms(sub, "masking")
    kinds = [k for k, a in arms.items() if a.kind in ("none", "all") or a.value is None]
    rates = sorted((k for k in arms if k not in kinds), key=lambda k: arms[k].value)
    fig, axes = style.figure(3, "Fig. 12_2: truncation mask", style.source_label(sub), nrows=2)
    for row, group in enumerate((kinds, rates)):
        for col, metric in enumerate((ACC, LENGTH, DIVERSITY)):
            arm_panel(axes[3 * row + col], sub, metric, "masking", group)
    return style.legends(fig)


def fig_13(frame: pd.DataFrame, samples: pd.DataFrame) -> Figure | None:
    sub = frame[frame["sweep"] == "table1"].copy()
    if sub.empty:
        return None
    multi = sub["world"].nunique() > 1
    algo = sub["algo"].astype(str).map(lambda a: ALGO_WORD.get(a, a))
    sub["series"] = algo + (" (" + sub["world"].astype(str) + ")" if multi else "")
    fig, axes = style.figure(4, "Fig. 13: GRPO vs DAPO vs MicroCoder-GRPO", style.source_label(sub))
    for ax, metric in zip(axes, (ACC, ACC_EXT, LENGTH, DIVERSITY), strict=True):
        arm_panel(ax, sub, metric, "series")
    return style.legends(fig)


FIGURES: dict[str, Callable[[pd.DataFrame, pd.DataFrame], Figure | None]] = {
    "1": fig_1,
    "6_4": fig_6_4,
    "7_2": fig_7_2,
    "8_2": fig_8_2,
    "9_2": fig_9_2,
    "10_2": fig_10_2,
    "11_2": fig_11_2,
    "12_2": fig_12_2,
    "13": fig_13,
}
SWEEP_OF_FIGURE = {
    "1": "seeds",
    "6_4": "evaluator",
    "7_2": "temperature",
    "8_2": "data",
    "9_2": "kl_clip",
    "10_2": "context",
    "11_2": "batch",
    "12_2": "masking",
    "13": "table1",
}


PANELS = {"1": 4, "6_4": 3, "7_2": 6, "8_2": 3, "9_2": 3, "10_2": 3, "11_2": 3, "12_2": 6, "13": 4}
"""Panels of each figure, as the study draws them."""


def describe(fig: Figure) -> dict[str, Any]:
    """What a reader checks on a figure: its title, and per visible panel the axis labels, legend entries
    and whether it has seed bands and the noise-threshold mark (notebook tests read this)."""
    panels = []
    for ax in (a for a in fig.axes if a.get_visible()):
        legend = ax.get_legend()
        panels.append(
            {
                "xlabel": ax.get_xlabel(),
                "ylabel": ax.get_ylabel(),
                "legend": [t.get_text() for t in legend.get_texts()] if legend else [],
                "bands": sum(c.get_gid() == style.BAND_GID for c in ax.collections),
                "noise_mark": any(line.get_gid() == style.NOISE_GID for line in ax.lines),
                "empty": any(t.get_gid() == style.EMPTY_GID for t in ax.texts),
                "ylim": [float(v) for v in ax.get_ylim()],
            }
        )
    title = fig._suptitle.get_text() if fig._suptitle else ""
    return {"title": title, "panels": panels}


def draw(fig_id: str, frame: pd.DataFrame, samples: pd.DataFrame | None = None) -> Figure | None:
    """The figure ``fig_id`` ('1', '6_4', ...) from the runs, or None when its sweep is missing."""
    return FIGURES[fig_id](frame, samples if samples is not None else pd.DataFrame())


def draw_all(frame: pd.DataFrame, samples: pd.DataFrame | None, out_dir: Path) -> dict[str, list[Path]]:
    """Write each figure whose sweep is present as PNG + PDF in ``out_dir``; id -> paths ([] if missing)."""
    written = {}
    for fig_id in FIGURES:
        fig = draw(fig_id, frame, samples)
        written[fig_id] = style.finish(fig, out_dir, f"fig_{fig_id}") if fig is not None else []
    return written
