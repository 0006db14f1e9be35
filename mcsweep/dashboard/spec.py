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

from mcsweep.analysis import names
from mcsweep.analysis.criteria import ACC, ACC_EXT, DIVERSITY, LENGTH, REWARD
from mcsweep.analysis.figures import LABELS, MEMORY, SWEEP_OF_FIGURE
from mcsweep.analysis.insights import AXIS_OF_SWEEP, INSIGHTS
from mcsweep.config import CONF_DIR
from mcsweep.train.tracking import STEP

SWEEPS_DIR = CONF_DIR / "sweep"
STEP_LABEL = "training step"
WALL_TIME = "_runtime"
"""W&B's seconds since the run started: figure 6_4's wall-time axis."""
TEMPERATURE_SAMPLES = "eval_samples: passed by temperature"
"""The insight metric read from evaluate-at-temperature samples (``temperature_evals/...`` in W&B)."""


@dataclass(frozen=True)
class Panel:
    title: str
    """The figure panel's y label (``figures.LABELS``), or the insight metric's name."""
    metric: str
    """The analysis name (as in ``mcsweep.analysis``)."""
    y: str | None
    """The W&B history key, or None when ``regex`` selects the keys."""
    regex: str | None
    x: str
    """The W&B x-axis key."""
    x_label: str
    """The figure panel's x label; where W&B cannot draw that axis, ``x`` says what stands in."""


def wandb_key(metric: str) -> tuple[str | None, str | None]:
    """(key, regex) of the W&B history keys that hold an analysis metric."""
    if metric == TEMPERATURE_SAMPLES:
        return None, r"^temperature_evals/t[^/]+/len\d+/pass@1$"
    if metric.startswith("temperature_evals/"):
        return None, rf"^temperature_evals/t[^/]+/len\d+/{re.escape(metric.split('/', 1)[1])}$"
    if metric.startswith(tuple(names.EVAL_VIEWS.values())):
        return metric, None
    if metric.startswith("evals/"):
        return None, rf"^evals/len\d+/{re.escape(metric.split('/', 1)[1])}$"
    return f"train/{metric}", None


def panel(metric: str, title: str | None = None, x: str = STEP, x_label: str = STEP_LABEL) -> Panel:
    key, regex = wandb_key(metric)
    return Panel(title or LABELS.get(metric, metric), metric, key, regex, x, x_label)


FIGURE_PANELS: dict[str, tuple[Panel, ...]] = {
    "1": (
        panel(ACC),
        panel(REWARD),
        panel(LENGTH),
        panel("evals/mean_length", "Density", x_label="response length (final checkpoint samples)"),
    ),
    "6_4": (panel(ACC), panel(REWARD), panel(MEMORY, "max memory allocated (GB)", WALL_TIME, "wall time (s)")),
    "7_2": (
        panel(TEMPERATURE_SAMPLES, "pass@1", x_label="evaluation temperature"),
        panel("temperature_evals/diversity", "diversity", x_label="evaluation temperature"),
        panel(ACC),
        panel(DIVERSITY),
    ),
    "8_2": (panel(ACC), panel(REWARD), panel(LENGTH)),
    "9_2": (panel(ACC), panel(DIVERSITY), panel(LENGTH)),
    "10_2": (panel(ACC), panel(LENGTH), panel(DIVERSITY)),
    "11_2": tuple(
        panel(m, x_label="data: training step (one update of mini_batch prompts, every arm)")
        for m in (ACC, LENGTH, DIVERSITY)
    ),
    "12_2": (panel(ACC), panel(LENGTH), panel(DIVERSITY)),
    "13": (panel(ACC), panel(ACC_EXT), panel(LENGTH), panel(DIVERSITY)),
}
"""The panels of each figure in ``mcsweep.analysis.figures``, in the figure's order. Where W&B
cannot draw the figure's axis, the training step stands in: figure 1's length density of final
samples becomes evaluation mean length over steps, figure 7_2's temperature panels one line per
evaluation temperature over checkpoints (figure 11_2's data axis is the step itself: one step is
one update of mini_batch prompts in every arm); figure 7_2's and 12_2's split of arms into two
rows is one panel per metric here (the runset groups every arm)."""
TABLE_1 = tuple(panel(f"evals/pass@1/{c}") for c in ("easy", "medium", "hard", "stdin", "call"))
"""Table 1's columns: pass@1 by difficulty and by format, one line per evaluation length."""
DEFAULT_PANELS = (panel(ACC), panel(REWARD), panel(LENGTH), panel(DIVERSITY))
"""A sweep without a figure of its own (temperature_schedules, optuna...) gets the study's curves."""


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


def group_key(sweep: str) -> str:
    """The W&B config key a sweep's arms differ in: `axis/<axis>`, else the algorithm (table1) or
    the base model (seeds, figure 1)."""
    if sweep in AXIS_OF_SWEEP:
        return f"axis/{AXIS_OF_SWEEP[sweep]}"
    return "world" if sweep == "seeds" else "algo"


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
    sections = [Section(f"Fig. {figure}" if figure else "Curves", list(curves))]
    if sweep == "table1":
        sections.append(Section("Table 1", list(TABLE_1)))
    by_metric: dict[str, list[str]] = {}
    for insight in INSIGHTS:
        if insight.sweep == sweep:
            for metric in insight.metrics:
                by_metric.setdefault(metric, []).append(insight.id)
    insight_panels = [panel(m, title=f"{m} (insights {', '.join(ids)})") for m, ids in by_metric.items()]
    if insight_panels:
        sections.append(Section("Insights", insight_panels))
    return DashboardSpec(sweep, group_key(sweep), figure, sections)
