"""Per-checkpoint pass@1 and diversity against evaluation temperature, from stored samples.

This is what the temperature-robustness panels of figure 7_2 plot. Rows come from
``eval_samples.jsonl`` rows written by the trainer's evaluate-at-temperatures command (each row's
``temperature`` is the sampling temperature; ``load_samples`` names it ``eval_temperature``;
diversity needs each sample's token ``ids``).
"""

from __future__ import annotations

import pandas as pd

from mcsweep.algo.diversity import group_diversity

NGRAM = 4


def _diversity(ids: pd.Series) -> float:
    """The trainer's D (``mcsweep.algo.diversity``) over one problem's samples at one temperature."""
    return group_diversity([list(x) for x in ids if isinstance(x, list | tuple)], NGRAM)


def temperature_table(samples: pd.DataFrame) -> pd.DataFrame:
    """run_id, step, eval_temperature, pass@1, diversity, n_problems per (run, checkpoint, temperature)."""
    cols = ["run_id", "step", "eval_temperature", "pass@1", "diversity", "n_problems"]
    if samples.empty or "eval_temperature" not in samples or samples["eval_temperature"].isna().all():
        return pd.DataFrame(columns=cols)
    s = samples[samples["eval_temperature"].notna()]
    keys = ["run_id", "step", "eval_temperature"]
    has_ids = "ids" in s and s["ids"].notna().any()
    aggs = {"passed": ("passed", "mean")} | ({"diversity": ("ids", _diversity)} if has_ids else {})
    per_problem = s.groupby([*keys, "problem_id"]).agg(**aggs).reset_index()
    if not has_ids:
        per_problem["diversity"] = float("nan")
    out = per_problem.groupby(keys).agg(
        **{
            "pass@1": ("passed", "mean"),
            "diversity": ("diversity", "mean"),
            "n_problems": ("problem_id", "nunique"),
        }
    )
    return out.reset_index()[cols]
