"""A ``DashboardSpec`` as a W&B workspace, with the ``wandb-workspaces`` package (extra ``dashboard``)."""

from __future__ import annotations

from typing import Any

from mcsweep.dashboard.spec import DashboardSpec, Panel

SMOOTHING = 0.6
"""Exponential smoothing of the plotted lines (the figures' smoothed series); the raw line is kept."""


def _line_plot(p: Panel, group_by: str) -> Any:
    import wandb_workspaces.reports.v2 as wr

    return wr.LinePlot(
        title=p.title,
        x=p.x,
        y=[p.y] if p.y else [],
        metric_regex=p.regex,
        title_y=p.metric,
        groupby=wr.Config(group_by),
        groupby_aggfunc="mean",
        groupby_rangefunc="stderr",
        smoothing_type="exponential",
        smoothing_factor=SMOOTHING,
        smoothing_show_original=True,
    )


def build_workspace(spec: DashboardSpec, entity: str, project: str) -> Any:
    """One workspace per sweep: its runs (W&B group = sweep name), grouped by the swept axis."""
    import wandb_workspaces.workspaces as ws

    return ws.Workspace(
        entity=entity,
        project=project,
        name=f"mcsweep {spec.sweep}",
        sections=[
            ws.Section(name=s.name, panels=[_line_plot(p, spec.group_by) for p in s.panels], is_open=True)
            for s in spec.sections
        ],
        runset_settings=ws.RunsetSettings(
            filters=f"Metric('group') == '{spec.sweep}'",
            groupby=[ws.Config(spec.group_by)],
        ),
    )
