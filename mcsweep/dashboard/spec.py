"""Which W&B panels mirror each study figure, per sweep, as plain data (no wandb-workspaces needed).

A panel names the analysis metric it shows (``mcsweep.analysis`` names) and the W&B key that holds
it (``mcsweep/train/tracking.py`` logs TRL's metrics as ``train/<name>``, evaluation rows as
``evals/len<L>/<column>`` and temperature evaluations as ``temperature_evals/t<T>/len<L>/<column>``,
all against ``train/global_step``). Runs are grouped by the swept axis's flat config key.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from mcsweep.analysis.criteria import ACC, ACC_EXT, DIVERSITY, LENGTH, REWARD
from mcsweep.analysis.figures import MEMORY, SWEEP_OF_FIGURE
from mcsweep.analysis.insights import AXIS_OF_SWEEP, INSIGHTS
from mcsweep.train.tracking import STEP

SWEEPS_DIR = Path(__file__).resolve().parents[2] / "sweeps"
WALL_TIME = "_runtime"
"""W&B's seconds since the run started: figure 6_4's wall-time axis."""
TEMPERATURE_SAMPLES = "eval_samples: passed by temperature"
"""The insight metric read from evaluate-at-temperature samples (``temperature_evals/...`` in W&B)."""

FIGURE_PANELS: dict[str, tuple[tuple[str, str], ...]] = {
    "1": ((ACC, STEP), (REWARD, STEP), (LENGTH, STEP), ("evals/mean_length", STEP)),
    "6_4": ((ACC, STEP), (REWARD, STEP), (MEMORY, WALL_TIME)),
    "7_2": (
        (TEMPERATURE_SAMPLES, STEP),
        ("temperature_evals/diversity", STEP),
        (ACC, STEP),
        (DIVERSITY, STEP),
    ),
    "8_2": ((ACC, STEP), (REWARD, STEP), (LENGTH, STEP)),
    "9_2": ((ACC, STEP), (DIVERSITY, STEP), (LENGTH, STEP)),
    "10_2": ((ACC, STEP), (LENGTH, STEP), (DIVERSITY, STEP)),
    "11_2": ((ACC, STEP), (LENGTH, STEP), (DIVERSITY, STEP)),
    "12_2": ((ACC, STEP), (LENGTH, STEP), (DIVERSITY, STEP)),
    "13": ((ACC, STEP), (ACC_EXT, STEP), (LENGTH, STEP), (DIVERSITY, STEP)),
}
"""(metric, x-axis) per panel of each figure in ``mcsweep.analysis.figures``, in the figure's order.
Figure 1's fourth panel (length density of final samples) becomes evaluation mean length; figure
7_2's temperature panels become one line per evaluation temperature over checkpoints; figure
11_2's x-axis (relative data) is the step, since W&B cannot rescale it per arm."""
TABLE_1 = tuple(f"evals/pass@1/{c}" for c in ("easy", "medium", "hard", "stdin", "call"))
"""Table 1's columns: pass@1 by difficulty and by format, at every evaluation length."""
DEFAULT_PANELS = ((ACC, STEP), (REWARD, STEP), (LENGTH, STEP), (DIVERSITY, STEP))
"""A sweep without a figure of its own (temperature_schedules, optuna...) gets the study's curves."""


@dataclass(frozen=True)
class Panel:
    title: str
    metric: str
    """The analysis name (as in ``mcsweep.analysis``)."""
    y: str | None
    """The W&B history key, or None when ``regex`` selects the keys."""
    regex: str | None
    x: str


@dataclass
class Section:
    name: str
    panels: list[Panel] = field(default_factory=list)


@dataclass
class DashboardSpec:
    sweep: str
    group_by: str
    """The W&B config key runs are grouped by (the swept axis)."""
    figure: str | None
    sections: list[Section]

    def panels(self) -> list[Panel]:
        return [p for s in self.sections for p in s.panels]

    def to_dict(self) -> dict:
        return asdict(self)


def wandb_key(metric: str) -> tuple[str | None, str | None]:
    """(key, regex) of the W&B history keys that hold an analysis metric."""
    if metric == TEMPERATURE_SAMPLES:
        return None, r"^temperature_evals/t[^/]+/len\d+/pass@1$"
    if metric.startswith("temperature_evals/"):
        return None, rf"^temperature_evals/t[^/]+/len\d+/{re.escape(metric.split('/', 1)[1])}$"
    if metric.startswith("evals/"):
        return None, rf"^evals/len\d+/{re.escape(metric.split('/', 1)[1])}$"
    return f"train/{metric}", None


def panel(metric: str, x: str = STEP, title: str | None = None) -> Panel:
    key, regex = wandb_key(metric)
    return Panel(title or metric, metric, key, regex, x)


def group_key(sweep: str) -> str:
    """The W&B config key a sweep's arms differ in: `axis/<axis>`, else the algorithm (table1) or
    the base model (seeds, figure 1)."""
    if sweep in AXIS_OF_SWEEP:
        return f"axis/{AXIS_OF_SWEEP[sweep]}"
    return "run_card.world" if sweep == "seeds" else "algo"


def sweep_names(sweeps_dir: Path = SWEEPS_DIR) -> list[str]:
    """The `sweep_name` of every sweep file in ``sweeps/``."""
    names = []
    for path in sorted(sweeps_dir.glob("*.yaml")):
        name = (yaml.safe_load(path.read_text()) or {}).get("sweep_name")
        if not name:
            raise ValueError(f"{path} has no sweep_name")
        names.append(name)
    return names


def build_spec(sweep: str) -> DashboardSpec:
    """The figure's panels, Table 1 for table1, and one panel per metric an insight on this sweep checks."""
    figure = next((f for f, s in SWEEP_OF_FIGURE.items() if s == sweep), None)
    curves = FIGURE_PANELS[figure] if figure else DEFAULT_PANELS
    sections = [Section(f"Fig. {figure}" if figure else "Curves", [panel(m, x) for m, x in curves])]
    if sweep == "table1":
        sections.append(Section("Table 1", [panel(m) for m in TABLE_1]))
    by_metric: dict[str, list[str]] = {}
    for insight in INSIGHTS:
        if insight.sweep == sweep:
            for metric in insight.metrics:
                by_metric.setdefault(metric, []).append(insight.id)
    insight_panels = [panel(m, title=f"{m} (insights {', '.join(ids)})") for m, ids in by_metric.items()]
    if insight_panels:
        sections.append(Section("Insights", insight_panels))
    return DashboardSpec(sweep, group_key(sweep), figure, sections)
