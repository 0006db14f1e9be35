"""Analysis: load runs, check the 34 MicroCoder insights, draw the study's figures, write reports."""

from mcsweep.analysis.insights import INSIGHTS, Insight, Verdict, check_all
from mcsweep.analysis.load import LoadReport, load, load_report, load_samples
from mcsweep.analysis.passk import pass_at_k, pass_at_k_table

__all__ = [
    "INSIGHTS",
    "Insight",
    "LoadReport",
    "Verdict",
    "check_all",
    "load",
    "load_report",
    "load_samples",
    "pass_at_k",
    "pass_at_k_table",
]
