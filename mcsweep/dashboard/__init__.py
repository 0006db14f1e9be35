"""Dashboards as code: one W&B workspace per sweep whose panels mirror the study's figure."""

from mcsweep.dashboard.spec import DashboardSpec, Panel, build_spec, sweep_names

__all__ = ["DashboardSpec", "Panel", "build_spec", "sweep_names"]
