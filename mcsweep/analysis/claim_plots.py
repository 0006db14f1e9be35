"""Per-claim plots: exactly the numbers an insight's check compared, per arm, with their spread over seeds.

The report puts one beside each verdict, so a reader sees the compared values (seed by seed, mean
+- SD) on an axis no narrower than ``style.MIN_SPAN_EFFECTS`` minimum effects, with the minimum effect
marked: a difference the check calls noise does not look like an effect.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from mcsweep.analysis import criteria as cr
from mcsweep.analysis import style
from mcsweep.analysis.verdicts import Observed

MAX_PER_ROW = 3
MIN_WIDTH = 5.5
"""Inches: room for the claim and the source label above a single panel."""


def by_quantity(observed: Sequence[Observed]) -> dict[str, list[Observed]]:
    """Quantity -> its arms' records, arms in one order across quantities (the order they first appear)."""
    order = list(dict.fromkeys(o.arm for o in observed))
    out: dict[str, list[Observed]] = {}
    for o in sorted(observed, key=lambda o: order.index(o.arm)):
        out.setdefault(o.quantity, []).append(o)
    return out


def quantity_threshold(quantity: str, level: float) -> float:
    """The minimum effect that applies to ``quantity`` (3% of the level for lengths, 0.01 for rates);
    nan for step counts (their threshold is the evaluation interval, not a rate)."""
    if "step" in quantity:
        return float("nan")
    return cr.min_effect(quantity, level)


def claim_figure(iid: str, claim: str, status: str, observed: Sequence[Observed], source: str) -> Figure | None:
    """One panel per compared quantity: each arm's seeds as dots and their mean +- SD; None without numbers."""
    groups = by_quantity(observed)
    if not groups:
        return None
    n = len(groups)
    cols = min(n, MAX_PER_ROW)
    rows = -(-n // cols)
    fig, axes = style.figure(cols, "", source, nrows=rows)
    width = max(3.2 * cols, MIN_WIDTH)
    fig.set_size_inches(width, 2.9 * rows + 0.8)
    title = textwrap.fill(f"{iid} ({status}): {claim}", width=int(width * 14))
    fig.suptitle(f"{title}\n{source}", fontsize=8)
    for ax, (quantity, rows) in zip(axes, groups.items(), strict=False):
        _panel(ax, quantity, rows)
    for ax in axes[n:]:
        ax.set_visible(False)
    return style.legends(fig)


def _panel(ax: Axes, quantity: str, rows: list[Observed]) -> None:
    x = np.arange(len(rows))
    for i, o in enumerate(rows):
        ax.scatter([i] * o.n, o.values, s=10, color="0.55", zorder=2, label="one seed" if i == 0 else None)
    means = np.array([o.mean for o in rows])
    sds = np.array([o.sd if o.n >= 2 else 0.0 for o in rows])
    label = "mean ± SD over seeds" if any(o.n >= 2 for o in rows) else "mean (one seed: no spread)"
    ax.errorbar(x, means, yerr=sds, fmt="o", color=style.PALETTE[0], capsize=3, zorder=3, label=label)
    ax.set_xticks(x, [f"{o.arm} (n={o.n})" for o in rows], rotation=30, ha="right", fontsize=7)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.set_xlabel("arm")
    ax.set_ylabel(quantity)
    style.noise_scale(ax, quantity_threshold(quantity, float(np.nanmean(np.abs(means)))))
