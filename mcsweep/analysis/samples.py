"""Per-checkpoint pass@1 and diversity against evaluation temperature, from stored samples.

This is what the temperature-robustness panels of figure 7_2 plot and T1 reads. Rows come from
``eval_samples.jsonl`` rows written by the trainer's evaluate-at-temperatures command (each row's
``temperature`` is the sampling temperature; ``load_samples`` names it ``eval_temperature`` and marks
the rows ``evaluation == 'temperatures'``; diversity needs each sample's token ``ids``). The trainer's
regular evaluation (one temperature, other lengths, other sample counts) is left out, and the table
keeps each evaluation length and sample count apart: pooling them mixes different measurements.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mcsweep.algo.diversity import group_diversities

NGRAM = 4
COLUMNS = [
    "run_id",
    "step",
    "max_length",
    "samples_per_problem",
    "eval_temperature",
    "pass@1",
    "diversity",
    "n_problems",
]


def _diversity(s: pd.DataFrame, group: np.ndarray) -> np.ndarray:
    """The trainer's D (``mcsweep.algo.diversity``) of each group (``ngroup`` numbers of a grouping whose
    first key is ``run_id``); one run at a time, which bounds the memory its n-grams take."""
    out = np.zeros(group.max() + 1 if len(group) else 0)
    for rows in s.groupby("run_id").indices.values():  # a run's groups are a contiguous range
        lo, hi = group[rows].min(), group[rows].max() + 1
        ids = [x if isinstance(x, list | tuple) else () for x in s["ids"].iloc[rows]]
        out[lo:hi] = group_diversities(ids, group[rows] - lo, NGRAM)
    return out


def temperature_samples(samples: pd.DataFrame) -> pd.DataFrame:
    """The evaluate-at-temperatures rows (all rows with a temperature for frames without ``evaluation``)."""
    if samples.empty or "eval_temperature" not in samples:
        return samples.iloc[:0]
    s = samples[samples["eval_temperature"].notna()]
    return s[s["evaluation"] == "temperatures"] if "evaluation" in s else s


def temperature_table(samples: pd.DataFrame) -> pd.DataFrame:
    """pass@1, diversity, n_problems per (run, checkpoint, evaluation length, samples per problem, temperature)."""
    s = temperature_samples(samples)
    if s.empty:
        return pd.DataFrame(columns=COLUMNS)
    s = s.assign(max_length=s["max_length"].fillna(-1) if "max_length" in s else -1)
    per_eval = s.groupby(["run_id", "step", "max_length", "eval_temperature", "problem_id"])["passed"].transform("size")
    s = s.assign(samples_per_problem=per_eval)
    keys = ["run_id", "step", "max_length", "samples_per_problem", "eval_temperature"]
    has_ids = "ids" in s and s["ids"].notna().any()
    grouped = s.groupby([*keys, "problem_id"])
    per_problem = grouped.agg(passed=("passed", "mean")).reset_index()
    per_problem["diversity"] = _diversity(s, grouped.ngroup().to_numpy()) if has_ids else float("nan")
    out = per_problem.groupby(keys).agg(
        **{
            "pass@1": ("passed", "mean"),
            "diversity": ("diversity", "mean"),
            "n_problems": ("problem_id", "nunique"),
        }
    )
    return out.reset_index()[COLUMNS]
