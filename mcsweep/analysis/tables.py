"""The report's tables: Markdown rendering, the sweeps summary, Table 1 with CIs and pass@k per run.

Each table has a frame function (for notebooks) and a Markdown function (the report's text, which a
notebook can render too, so both show the same numbers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from mcsweep.analysis.arms import AXIS_OF_SWEEP, Arm, arm_of
from mcsweep.analysis.figures import ALGO_WORD
from mcsweep.analysis.passk import pass_at_k_table

TABLE1_COLUMNS = (
    ("All", "pass@1"),
    ("AtCoder (stdin)", "pass@1/stdin"),
    ("LeetCode (call)", "pass@1/call"),
    ("Easy", "pass@1/easy"),
    ("Medium", "pass@1/medium"),
    ("Hard", "pass@1/hard"),
)
UNTRAINED = "untrained (step 0)"
LEVEL = 0.95


def md_table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    """A GitHub Markdown table; pipes in cells are escaped."""

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.4g}"
        return str(v).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return "\n".join(lines + ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows])


def t_interval(values: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """Student-t interval of the mean over seeds; (nan, nan) with fewer than 2 seeds."""
    if len(values) < 2:
        return (math.nan, math.nan)
    half = float(stats.t.ppf(0.5 + level / 2, len(values) - 1)) * float(np.std(values, ddof=1)) / math.sqrt(len(values))
    m = float(np.mean(values))
    return (m - half, m + half)


def sweep_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per sweep: its arms, runs, seeds per arm and the steps the runs reached (what the verdicts stand on)."""
    if frame.empty:
        return pd.DataFrame()
    rows = []
    for sweep, g in frame.groupby("sweep"):
        axis = AXIS_OF_SWEEP.get(sweep, "algo")
        runs = g.groupby("run_id").agg(arm=(axis, "first"), seed=("seed", "first"), last=("step", "max"))
        seeds = runs.groupby("arm", dropna=False)["seed"].nunique()
        rows.append(
            {
                "sweep": sweep,
                "arms": ", ".join(map(str, seeds.index)),
                "runs": len(runs),
                "seeds per arm": f"{seeds.min()}-{seeds.max()}" if seeds.min() != seeds.max() else str(seeds.min()),
                "last step": f"{runs['last'].min()}-{runs['last'].max()}",
            }
        )
    return pd.DataFrame(rows)


def unused_arms(frame: pd.DataFrame) -> dict[str, list[str]]:
    """Per sweep, the arms with no role in any insight (an option the checks do not know, e.g. the data
    sweep's ``micro_pipeline``): no check reads them, so the report names them rather than drop them
    silently. Frames without the loader's ``arm`` column read the arm from the axis column."""
    out: dict[str, list[str]] = {}
    for sweep, g in frame.drop_duplicates("run_id").groupby("sweep"):
        axis = AXIS_OF_SWEEP.get(str(sweep))
        if axis is None or axis not in g:
            continue
        arms = g["arm"] if "arm" in g else [None if v is None else arm_of(axis, str(v)) for v in g[axis]]
        labels = sorted({str(v) for v, a in zip(g[axis], arms, strict=True) if isinstance(a, Arm) and a.kind is None})
        if labels:
            out[str(sweep)] = labels
    return out


def unused_arms_markdown(frame: pd.DataFrame) -> str:
    """The sentence under the sweeps table naming the arms no insight reads; '' when there are none."""
    unused = unused_arms(frame)
    if not unused:
        return ""
    named = "; ".join(f"{sweep}: {', '.join(labels)}" for sweep, labels in unused.items())
    return f"Arms no insight reads (no role in any claim; run, shown in the figures and pass@k, not judged): {named}."


def table1_long(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 1's cells, one row each: (row, length, column, mean, ci_low, ci_high, seeds).

    Reads ``evals/*`` of the table1 sweep at each run's last evaluation (one value per seed); the
    untrained row is step 0, one value per seed (each seed's own sampling of the same start policy).
    The interval is a t-interval over seeds, the spread the verdicts are judged against.
    """
    ev = frame[(frame["sweep"] == "table1") & (frame["file"] == "evals")]
    if ev.empty:
        return pd.DataFrame(columns=["row", "length", "column", "mean", "ci_low", "ci_high", "seeds"])
    # The rows flagged as the training length (evals@train/*); stores older than the flag: the shortest.
    flagged = set(ev.loc[ev["metric"].str.startswith("evals@train/"), "max_length"].dropna())
    train = flagged or {min(ev["max_length"].dropna(), default=None)}
    algo = ev["algo"].astype(str).map(lambda a: ALGO_WORD.get(a, a))
    last = ev[ev["step"] == ev.groupby("run_id")["step"].transform("max")].assign(row=algo)
    first = ev[ev["step"] == 0].assign(row=UNTRAINED).drop_duplicates(["seed", "max_length", "metric"])
    cols = {f"evals/{metric}": name for name, metric in TABLE1_COLUMNS}
    both = pd.concat([first, last])
    both = both[both["metric"].isin(cols)]
    rows = []
    for (row, length, metric), g in both.groupby(["row", "max_length", "metric"]):
        per_seed = g.groupby("seed")["value"].mean().to_numpy()
        lo, hi = t_interval(per_seed)
        rows.append(
            {
                "row": row,
                "length": f"train {length:g}" if length in train else f"extended {length:g}",
                "column": cols[metric],
                "mean": float(np.mean(per_seed)),
                "ci_low": lo,
                "ci_high": hi,
                "seeds": len(per_seed),
            }
        )
    return pd.DataFrame(rows)


def _row_order(rows: Sequence[str]) -> list[str]:
    """The untrained row first, then the algorithms in the study's order, then any other."""
    order = [UNTRAINED, *ALGO_WORD.values()]
    return sorted(set(rows), key=lambda r: (order.index(r) if r in order else len(order), r))


def table1(frame: pd.DataFrame) -> pd.DataFrame:
    """pass@1 by source and difficulty (mean over seeds), per (row, tested-at length), untrained first."""
    long = table1_long(frame)
    if long.empty:
        return pd.DataFrame()
    pivot = long.pivot_table(index=["row", "length"], columns="column", values="mean", aggfunc="first")
    seeds = long.groupby(["row", "length"])["seeds"].max()
    pivot = pivot.reindex(columns=[name for name, _ in TABLE1_COLUMNS]).join(seeds)
    order = _row_order(list(pivot.index.get_level_values(0)))
    return pivot.reindex(sorted(pivot.index, key=lambda i: (order.index(i[0]), _length_order(i[1]))))


def _length_order(length: str) -> tuple[bool, float]:
    """'train 256' before 'extended 512'; then by length."""
    kind, value = length.split(" ")
    return (kind != "train", float(value))


def _cell(mean: float, lo: float, hi: float) -> str:
    return f"{mean:.3f}" if math.isnan(lo) else f"{mean:.3f} [{lo:.3f}, {hi:.3f}]"


def table1_markdown(frame: pd.DataFrame) -> str:
    """Table 1 as the report prints it: each cell the mean over seeds with its 95% t-interval."""
    long = table1_long(frame)
    if long.empty:
        return ""
    cells = {(r.row, r.length, r.column): _cell(r.mean, r.ci_low, r.ci_high) for r in long.itertuples()}
    seeds = long.groupby(["row", "length"])["seeds"].max()
    order = _row_order(list(seeds.index.get_level_values(0)))
    keys = sorted(seeds.index, key=lambda i: (order.index(i[0]), _length_order(i[1])))
    rows = [
        (row, length, *(cells.get((row, length, c), "") for c, _ in TABLE1_COLUMNS), seeds[(row, length)])
        for row, length in keys
    ]
    note = (
        "pass@1 on the test set, mean over seeds [95% t-interval over seeds; none with one seed], at each run's "
        "last evaluation; the untrained row is step 0."
    )
    return note + "\n\n" + md_table(rows, ("algorithm", "tested at", *(c for c, _ in TABLE1_COLUMNS), "seeds"))


def arm_name(run: pd.Series) -> str:
    """The run's arm in the study's words: its swept axis's arm, or its algorithm (table1, seeds)."""
    arm = run.get("arm")
    if isinstance(arm, Arm):
        return arm.display
    return ALGO_WORD.get(str(run.get("algo")), str(run.get("algo")))


def one_run_per_config(samples: pd.DataFrame) -> pd.DataFrame:
    """Runs of one config launched in several sweeps (same ``config_key``) kept once: the run of the first
    sweep in name order, with every sweep listed in ``sweeps``. Runs without a config key stand alone."""
    runs = samples.drop_duplicates("run_id").copy()
    key = runs["config_key"] if "config_key" in runs else pd.Series(None, index=runs.index, dtype=object)
    runs["key"] = key.where(key.notna(), runs["run_id"])
    runs = runs.sort_values(["sweep", "run_id"])
    sweeps = runs.groupby("key")["sweep"].agg(lambda s: ", ".join(sorted(set(map(str, s)))))
    kept = runs.drop_duplicates("key")
    return kept.assign(sweeps=kept["key"].map(sweeps), arm_name=kept.apply(arm_name, axis=1))[
        ["run_id", "sweeps", "arm_name"]
    ]


def passk_rows(samples: pd.DataFrame) -> pd.DataFrame:
    """pass@k per run at its last checkpoint (each evaluation length and temperature apart), feasible k
    only, with its sweeps and arm; one config run in several sweeps appears once."""
    if samples.empty:
        return pd.DataFrame()
    last = samples[samples["step"] == samples.groupby("run_id")["step"].transform("max")]
    runs = one_run_per_config(last)
    t = pass_at_k_table(last[last["run_id"].isin(runs["run_id"])], ks=(1, 2, 4, 8, 16))
    t = t.merge(runs, on="run_id").sort_values(["sweeps", "arm_name", "seed", "max_length", "k"])
    return t.reset_index(drop=True)


NOT_FEASIBLE = "—"


def passk_markdown(samples: pd.DataFrame) -> str:
    """pass@k per run, one row per (run, length, temperature), one column per k."""
    t = passk_rows(samples)
    if t.empty:
        return "No stored samples (eval_samples.jsonl)."
    optional = [c for c in ("max_length", "eval_temperature") if c in t]
    keys = ["sweeps", "arm_name", "seed", "step", *optional]
    ks = sorted(t["k"].unique())
    rows = []
    for key, g in t.groupby(keys, sort=False, dropna=False):
        by_k = {r["k"]: r for r in g.to_dict("records")}
        cells = [_passk_cell(by_k[k]) if k in by_k else NOT_FEASIBLE for k in ks]
        rows.append((*key, int(g["n_problems"].max()), *cells))
    headers = ("sweeps", "arm", "seed", "step", *(c.replace("eval_", "") for c in optional), "problems")
    note = (
        "Unbiased pass@k per run at its last checkpoint [95% bootstrap CI over problems]; "
        f"{NOT_FEASIBLE} where k is above the samples each problem has. A config launched in several sweeps "
        "is one run here, its sweeps listed."
    )
    return note + "\n\n" + md_table(rows, (*headers, *(f"pass@{k}" for k in ks)))


def _passk_cell(r: dict) -> str:
    ci = "" if math.isnan(r["ci_low"]) else f" [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
    return f"{r['pass@k']:.3f}{ci}"
