"""The Markdown report: load issues, missing sweeps (with commands), verdicts, figures, Table 1, pass@k."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from mcsweep.analysis import criteria as cr
from mcsweep.analysis import false_verdicts, figures, style
from mcsweep.analysis.insights import AXIS_OF_SWEEP, SWEEPS, check_all, sweep_command
from mcsweep.analysis.load import LoadReport, load, load_report, load_samples
from mcsweep.analysis.passk import pass_at_k_table

TABLE1_COLUMNS = (
    ("All", "pass@1"),
    ("AtCoder (stdin)", "pass@1/stdin"),
    ("LeetCode (call)", "pass@1/call"),
    ("Easy", "pass@1/easy"),
    ("Medium", "pass@1/medium"),
    ("Hard", "pass@1/hard"),
)


def md_table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    """A GitHub Markdown table; pipes in cells are escaped."""

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.4g}"
        return str(v).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return "\n".join(lines + ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows])


def _load_section(rep: LoadReport) -> str:
    partial = rep.partial_runs()
    out = [
        f"Runs loaded: {len(rep.runs)}. Partial or failed runs (kept, marked): "
        f"{', '.join(partial) if partial else 'none'}."
    ]
    if rep.issues:
        out.append(md_table([(i.run_id, i.where, i.problem) for i in rep.issues], ("run", "where", "issue")))
    if rep.unknown_metrics:
        out.append(
            "Metrics outside docs/ARCHITECTURE.md (kept under their names): "
            + ", ".join(f"`{m}`" for m in sorted(rep.unknown_metrics))
        )
    return "\n\n".join(out)


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


def _sweeps_section(frame: pd.DataFrame) -> str:
    t = sweep_summary(frame)
    return md_table(t.to_numpy().tolist(), list(t.columns)) if not t.empty else "No runs."


def _missing_section(frame: pd.DataFrame) -> str:
    have = set(frame["sweep"].dropna()) if not frame.empty else set()
    missing = [s for s in SWEEPS if s not in have]
    if not missing:
        return "All sweeps present."
    return "\n".join(f"- `{s}`: `{sweep_command(s)}`" for s in missing)


def _verdict_section(verdicts: pd.DataFrame, links: dict[str, str]) -> str:
    counts = verdicts[verdicts["status"] != "definition"]["status"].value_counts()
    head = ", ".join(f"{k} {counts.get(k, 0)}" for k in ("holds", "contradicted", "inconclusive"))
    rows = [
        (
            r.id,
            r.aspect,
            r.claim,
            f"**{r.status}**",
            r.reason,
            "; ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.numbers.items()),
            _test_cell(r.test, r.id),
            links.get(r.figure, "") if r.figure else "",
        )
        for r in verdicts.itertuples()
    ]
    return f"Over the 34 insights: {head}.\n\n" + md_table(
        rows, ("id", "aspect", "claim", "verdict", "reason", "numbers", "test (false-verdict rate)", "figure")
    )


def _test_cell(test: str, iid: str) -> str:
    rate = false_verdicts.describe(iid)
    return f"{test} ({rate})" if test and rate else test or rate


NOISE_RULE = (
    "A difference counts when it exceeds the minimum effect (0.01 for rates; 3% of the length's level for "
    "lengths and length gains) and a t-test over seeds rejects 'no difference' at two-sided alpha {alpha:g} "
    "(pooled two-sample test between arms, one-sample test against 0 for one arm; with one seed per arm, "
    "the seeds sweep's SD and degrees of freedom). A claim of several parts holds only when every part "
    "does; it is contradicted only when a part reverses at alpha / k (k parts). Measured on SIMULATED "
    "no-effect worlds (`python benchmarks/bench_verdicts.py`): {overall} of verdicts were false."
)


def _criteria_section(verdicts: pd.DataFrame) -> str:
    m = false_verdicts.measured()
    overall = f"{m['overall']:.1%} over {m['draws']} worlds" if m else "not measured"
    rows = [
        (r.id, r.sweep, r.criterion, false_verdicts.describe(r.id))
        for r in verdicts.itertuples()
        if r.status != "definition"
    ]
    rule = NOISE_RULE.format(alpha=cr.ALPHA, overall=overall)
    return rule + "\n\n" + md_table(rows, ("id", "sweep", "criterion", "false-verdict rate"))


def table1(frame: pd.DataFrame) -> pd.DataFrame:
    """pass@1 by source and difficulty per algorithm, at the train and extended lengths (mean over seeds).

    Reads ``evals/*`` of the table1 sweep at each run's last evaluation; the untrained row is step 0.
    """
    ev = frame[(frame["sweep"] == "table1") & (frame["file"] == "evals")]
    if ev.empty:
        return pd.DataFrame()
    # The rows flagged as the training length (evals@train/*); stores older than the flag: the shortest.
    flagged = set(ev.loc[ev["metric"].str.startswith("evals@train/"), "max_length"].dropna())
    train = flagged or {min(ev["max_length"].dropna(), default=None)}
    last = ev[ev["step"] == ev.groupby("run_id")["step"].transform("max")].assign(row=ev["algo"].astype(str))
    first = ev[ev["step"] == 0].assign(row="untrained (step 0)")
    both = pd.concat([first.drop_duplicates(["seed", "max_length", "metric"]), last])
    both = both.assign(length=both["max_length"].map(lambda v: f"train {v:g}" if v in train else f"extended {v:g}"))
    pivot = both.pivot_table(index=["row", "length"], columns="metric", values="value", aggfunc="mean")
    seeds = both.groupby(["row", "length"])["seed"].nunique().rename("seeds")
    cols = {metric: name for name, metric in TABLE1_COLUMNS}
    return (
        pivot.reindex(columns=[f"evals/{m}" for m in cols])
        .rename(columns=lambda c: cols[c.removeprefix("evals/")])
        .join(seeds)
    )


def _table1_section(frame: pd.DataFrame) -> str:
    t = table1(frame)
    if t.empty:
        return f"No table1 sweep with evals.jsonl. Produce it with `{sweep_command('table1')}`."
    rows = [(algo, length, *vals) for (algo, length), vals in zip(t.index, t.to_numpy().tolist(), strict=True)]
    return md_table(rows, ("algorithm", "tested at", *t.columns))


def _passk_section(samples: pd.DataFrame) -> str:
    if samples.empty:
        return "No stored samples (eval_samples.jsonl)."
    last = samples[samples["step"] == samples.groupby("run_id")["step"].transform("max")]
    t = pass_at_k_table(last)
    keep = [c for c in ("run_id", "algo", "seed", "step", "max_length", "eval_temperature") if c in t]
    rows = [
        (
            *(r[c] for c in keep),
            r["k"],
            r["n_problems"],
            r["pass@k"],
            f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
        )
        for r in t.to_dict("records")
    ]
    return "Unbiased pass@k per run at its last checkpoint, 95% bootstrap CI over problems.\n\n" + md_table(
        rows, (*keep, "k", "problems", "pass@k", "95% CI")
    )


def write_report(
    frame: pd.DataFrame,
    samples: pd.DataFrame,
    out: Path,
    title: str = "mcsweep report",
    notes: str = "",
    judge: str = cr.DEFAULT_JUDGE,
) -> Path:
    """Write ``out``/report.md and ``out``/figures/*.{png,pdf}; returns the report's path. ``notes``
    (Markdown: how the runs were made) goes under the title; ``judge`` is the comparator whose grading of
    every arm's test samples the E insights compare."""
    out.mkdir(parents=True, exist_ok=True)
    written = figures.draw_all(frame, samples, out / "figures")
    links = {fid: f"[fig {fid}](figures/{paths[0].name})" for fid, paths in written.items() if paths}
    verdicts = check_all(frame, samples, judge)
    fig_lines = "\n".join(
        f"- {links[f]}" if f in links else f"- fig {f}: sweep `{figures.SWEEP_OF_FIGURE[f]}` missing"
        for f in figures.FIGURES
    )
    sections = [
        f"# {title}\n\nData: {style.source_label(frame)}. Test accuracy judge for the E insights: `{judge}` "
        "(every arm's test samples graded by this one comparator; `--judge`)."
        + (f"\n\n{notes.strip()}" if notes.strip() else ""),
        "## Runs\n\n" + _load_section(load_report(frame)),
        "## Sweeps\n\n" + _sweeps_section(frame),
        "## Missing sweeps\n\n" + _missing_section(frame),
        "## Insights\n\n" + _verdict_section(verdicts, links),
        "## Criteria\n\n" + _criteria_section(verdicts),
        "## Figures\n\n" + fig_lines,
        "## Table 1\n\n" + _table1_section(frame),
        "## pass@k\n\n" + _passk_section(samples),
    ]
    path = out / "report.md"
    path.write_text("\n\n".join(sections) + "\n")
    return path


def report(
    sources: Sequence[str | Path],
    out: Path,
    title: str = "mcsweep report",
    notes: str = "",
    judge: str = cr.DEFAULT_JUDGE,
) -> Path:
    """Load ``sources`` (run folders, run roots, ``wandb:ENTITY/PROJECT[/GROUP]``) and write the report."""
    return write_report(load(*sources), load_samples(*sources), out, title, notes, judge)
