"""The one plot style: raw series faded, smoothed series solid, reference maxima dashed.

Every figure goes through ``series`` and ``finish`` so the study's look and the data-source label
(micro world or model, seeds, SIMULATED) are the same everywhere.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from mcsweep.analysis.arms import Arm

RAW_ALPHA = 0.25
BAND_ALPHA = 0.18
BAND_GID = "seed-band"
"""Bands of +-1 SD over seeds carry this gid, so tests and readers can find them."""
NOISE_GID = "noise-threshold"
EMPTY_GID = "no-data"
EMPTY_TEXT = "no data for this panel in these runs"
MIN_SPAN_EFFECTS = 10
"""A panel's y-axis spans at least this many minimum effects: a difference below the noise threshold
then covers under a tenth of the panel instead of all of it."""
SMOOTH_WINDOW = 5
PALETTE = sns.color_palette("colorblind", 8)


def apply() -> None:
    """Set the shared seaborn/matplotlib theme."""
    sns.set_theme(context="paper", style="whitegrid", palette=PALETTE, font_scale=1.0)
    plt.rcParams.update(
        {
            "figure.dpi": 110,
            "savefig.dpi": 150,
            "legend.fontsize": 7,
            "axes.titlesize": 9,
            "axes.labelsize": 8,
        }
    )


def smooth(y: np.ndarray, window: int = SMOOTH_WINDOW) -> np.ndarray:
    """Centred rolling mean, shrinking at the ends, so the smoothed line spans the raw one. The window
    is at most a quarter of the points, but 3 from 5 points on: a curve of 3 or 4 evaluations is left as
    it is, not flattened, while a peak over 5-7 (a campaign's 6 evaluations) is not one noisy point."""
    window = max(1, min(window, max(len(y) // 4, 3 if len(y) >= 5 else 1)))
    return pd.Series(y).rolling(window, center=True, min_periods=1).mean().to_numpy()


def series(
    ax: plt.Axes,
    x: np.ndarray,
    y: np.ndarray,
    label: str,
    color: tuple[float, ...],
    ref_max: bool = True,
    spread: np.ndarray | None = None,
) -> None:
    """Raw faded, smoothed solid, (optionally) its maximum as a dashed horizontal line, and where
    ``spread`` (SD over seeds per point) is given, a band of mean +- SD around the raw seed mean."""
    if len(x) == 0:
        return
    if spread is not None and np.isfinite(spread).any():
        band = np.nan_to_num(spread)
        ax.fill_between(x, y - band, y + band, color=color, alpha=BAND_ALPHA, linewidth=0, gid=BAND_GID)
    ax.plot(x, y, color=color, alpha=RAW_ALPHA, linewidth=0.8)
    ys = smooth(y)
    ax.plot(x, ys, color=color, linewidth=1.6, label=label)
    if ref_max:
        ax.axhline(float(np.nanmax(ys)), color=color, linestyle="--", linewidth=0.8, alpha=0.8)


def source_label(runs: pd.DataFrame) -> str:
    """'SIMULATED · micro world · 2 seeds per arm (4 runs)' from the run columns of a tidy frame.

    Seeds are counted per arm (runs of one sweep and arm), not as distinct seed values over all runs:
    one seed per arm over three seed values is still one seed per arm."""
    if runs.empty:
        return "no runs"
    per_run = runs.drop_duplicates("run_id")
    worlds = sorted({"micro world" if w == "micro" else str(w) for w in per_run["world"].fillna("unknown")})
    parts = ["SIMULATED"] if per_run["simulated"].fillna(False).astype(bool).any() else []
    parts += [", ".join(worlds), f"{seeds_per_arm(per_run)} ({len(per_run)} runs)"]
    return " · ".join(parts)


def seeds_per_arm(per_run: pd.DataFrame) -> str:
    """'1 seed per arm' or '1-3 seeds per arm': runs per (sweep, arm), the arm being the swept axis's
    record or, for sweeps that vary none (table1, seeds), the algorithm."""
    arms = per_run["arm"] if "arm" in per_run else pd.Series([None] * len(per_run), index=per_run.index)
    key = [
        (sweep, arm.label if isinstance(arm, Arm) else algo)
        for sweep, arm, algo in zip(per_run["sweep"], arms, per_run["algo"], strict=True)
    ]
    counts = pd.Series(key).value_counts()
    lo, hi = int(counts.min()), int(counts.max())
    return f"{lo} seed{'s' if lo != 1 else ''} per arm" if lo == hi else f"{lo}-{hi} seeds per arm"


def figure(n_panels: int, title: str, source: str, nrows: int = 1) -> tuple[plt.Figure, list[plt.Axes]]:
    """A grid of panels (``n_panels`` per row) with the figure's title and data-source label."""
    apply()
    fig, axes = plt.subplots(nrows, n_panels, figsize=(3.2 * n_panels, 2.7 * nrows + 0.5), squeeze=False)
    fig.suptitle(f"{title}\n{source}", fontsize=9)
    return fig, list(axes.flat)


def noise_scale(ax: plt.Axes, threshold: float, what: str = "min effect") -> None:
    """Widen the y-axis to at least ``MIN_SPAN_EFFECTS`` x ``threshold`` around the data, and draw the
    threshold as a grey bar at the right edge (in the legend as ``what``), so a difference within
    noise cannot fill the panel."""
    if not (threshold > 0 and np.isfinite(threshold)) or not ax.has_data():
        return
    lo, hi = ax.get_ylim()
    span = MIN_SPAN_EFFECTS * threshold
    if hi - lo < span:
        mid = (lo + hi) / 2
        lo, hi = mid - span / 2, mid + span / 2
        ax.set_ylim(lo, hi)
    y0 = lo + 0.08 * (hi - lo)
    ax.plot(
        [0.985, 0.985],
        [y0, y0 + threshold],
        transform=ax.get_yaxis_transform(),
        color="0.35",
        linewidth=3,
        solid_capstyle="butt",
        label=f"{what} ({threshold:.3g})",
        gid=NOISE_GID,
    )


def legends(fig: plt.Figure) -> plt.Figure:
    """A legend on every panel that has labelled artists, a note on every panel that has none (a
    partial campaign: the runs lack what it plots), and a tight layout: the figure functions end with
    this, so every entry point (report, notebooks, ``draw``) shows the same legends."""
    for ax in fig.axes:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(frameon=False)
        elif ax.get_visible() and ax.get_legend() is None:
            ax.text(0.5, 0.5, EMPTY_TEXT, transform=ax.transAxes, ha="center", va="center", gid=EMPTY_GID)
    fig.tight_layout()
    return fig


def finish(fig: plt.Figure, out_dir: Path | None, stem: str, pdf: bool = True, dpi: int | None = None) -> list[Path]:
    """PNG (and PDF) files of a finished figure when ``out_dir`` is given (``dpi``: the PNG's, default the
    theme's); returns the paths written."""
    if out_dir is None:
        return []
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.{ext}" for ext in (("png", "pdf") if pdf else ("png",))]
    for p in paths:
        if p.suffix == ".png":
            fig.savefig(p, **({"dpi": dpi} if dpi else {}))
        else:  # no creation date: the same figure gives the same file, so a regenerated report diffs clean
            fig.savefig(p, metadata={"CreationDate": None})
    plt.close(fig)
    return paths
