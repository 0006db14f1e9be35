"""The Markdown report, verdicts first: the counts and one line per claim, then what the runs are,
one block per insight, the study's figures, Table 1 and pass@k; with the data it was built from.

``write_report`` writes ``report.md``, ``figures/`` (the study's figures as PNG + PDF, one PNG per
claim under ``figures/claims/``) and ``data/`` (``report_data``: the frames as Parquet, a source
``load`` reads like a run folder, so the report and the notebooks redraw from it without the runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from mcsweep.analysis import claim_plots, compute, false_verdicts, figures, report_data, style, verdict_text
from mcsweep.analysis import criteria as cr
from mcsweep.analysis.insights import SWEEPS, check_all, sweep_command
from mcsweep.analysis.load import LoadReport, load, load_report, load_samples
from mcsweep.analysis.tables import (
    md_table,
    passk_markdown,
    sweep_summary,
    table1,
    table1_markdown,
    unused_arms_markdown,
)

__all__ = ["report", "sweep_summary", "table1", "write_report"]

NOISE_RULE = (
    "A difference counts when it exceeds the minimum effect (0.01 for rates; 3% of the length's level for "
    "lengths and length gains) and a t-test over seeds rejects 'no difference' at two-sided alpha {alpha:g} "
    "(Welch's two-sample test between arms, one-sample test against 0 for one arm; with one seed per arm, "
    "the seeds sweep's SD and degrees of freedom). A 'no difference' part counts only when its t-interval "
    "lies within the minimum effect (two one-sided tests, each at alpha / 2), a 'not worse' part when the "
    "interval's lower end lies above minus the minimum effect; the best of several arms picked by mean is "
    "tested at alpha / arms. A claim of several parts holds only when every part "
    "does; it is contradicted only when a part reverses at alpha / k (k parts). Measured on SIMULATED "
    "no-effect worlds (`python benchmarks/bench_verdicts.py`): {overall} of verdicts were false."
)
CLAIMS_DIR = "claims"
CLAIM_DPI = 90
"""The per-claim plots are small and many: a lower resolution keeps the report light to commit."""


def _load_section(rep: LoadReport) -> str:
    partial = rep.partial_runs()
    out = [
        f"Runs loaded: {len(rep.runs)}. Partial, failed or unknown runs (plotted and marked; the verdicts leave "
        "out those known not to have finished): "
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


def _compute_section(rep: LoadReport) -> str:
    """The runs' wall time and core-hours (``analysis.compute``), in total and per sweep."""
    total = compute.summary(rep.runs)
    if not total["runs"]:
        return "No runs."
    text = (
        f"From the run cards' cost records: {total['recorded']} runs recorded, {total['estimated']} estimated "
        f"from their start and finish times, {total['unknown']} without either, {total['copy']} copies of a twin "
        f"(no cost of their own). Wall time, runs side by side counted once: {total['busy_wall_h']:.2f} h; "
        f"summed over runs: {total['run_wall_h']:.2f} h; CPU: {total['core_h']:.2f} core-hours."
    )
    if total["estimated_runs"]:
        text += " Estimated (any time they sat interrupted is included): " + ", ".join(total["estimated_runs"]) + "."
    if total["unknown_runs"]:
        text += " Unknown cost: " + ", ".join(total["unknown_runs"]) + "."
    if total["unrecorded_runs"]:
        text += (
            f" Runs with a process killed before it closed (a stopped session), whose time is in no record: "
            f"{len(total['unrecorded_runs'])} (" + ", ".join(total["unrecorded_runs"]) + "), up to "
            f"{total['unrecorded_h']:.2f} h of wall time in all, idle time included."
        )
    by_sweep = sorted({str(r.get("sweep")) for r in rep.runs})
    rows = []
    for sweep in by_sweep:
        part = compute.summary([r for r in rep.runs if str(r.get("sweep")) == sweep])
        hours = (round(part["run_wall_h"], 2), round(part["core_h"], 2))
        rows.append((sweep, part["runs"], part["copy"], part["unknown"], *hours))
    return text + "\n\n" + md_table(rows, ("sweep", "runs", "copies", "cost unknown", "run hours", "core-hours"))


def _sweeps_section(frame: pd.DataFrame) -> str:
    t = sweep_summary(frame)
    if t.empty:
        return "No runs."
    unused = unused_arms_markdown(frame)
    return md_table(t.to_numpy().tolist(), list(t.columns)) + (f"\n\n{unused}" if unused else "")


def _missing_section(frame: pd.DataFrame) -> str:
    have = set(frame["sweep"].dropna()) if not frame.empty else set()
    missing = [s for s in SWEEPS if s not in have]
    if not missing:
        return "All sweeps present."
    return "\n".join(f"- `{s}`: `{sweep_command(s)}`" for s in missing)


def noise_rule() -> str:
    m = false_verdicts.measured()
    overall = f"{m['overall']:.1%} over {m['draws']} worlds" if m else "not measured"
    return NOISE_RULE.format(alpha=cr.ALPHA, overall=overall)


def draw_claims(verdicts: pd.DataFrame, source: str, out_dir: Path) -> dict[str, Path]:
    """One PNG per checked insight with compared numbers (``claim_plots``); id -> path."""
    written = {}
    for r in verdicts.itertuples():
        fig = claim_plots.claim_figure(r.id, r.claim, r.status, r.observed, source)
        if fig is not None:
            written[r.id] = style.finish(fig, out_dir, r.id, pdf=False, dpi=CLAIM_DPI)[0]
            plt.close(fig)
    return written


def _figures_section(study: dict[str, str]) -> str:
    out = []
    for f in figures.FIGURES:
        sweep = figures.SWEEP_OF_FIGURE[f]
        body = f"![fig {f}]({study[f]})" if f in study else f"Sweep `{sweep}` missing: `{sweep_command(sweep)}`."
        out.append(f"### Fig {f}\n\n{body}")
    return "\n\n".join(out)


def _data_section(sizes: dict[str, int]) -> str:
    total = sum(sizes.values())
    files = ", ".join(f"`{name}` {size / 1024:.0f} KiB" for name, size in sizes.items())
    return (
        f"`data/` holds the frames this report was built from ({total / 1024:.0f} KiB: {files}); it loads like a "
        "run folder: `python -m mcsweep.analysis report <report>/data --out DIR` rebuilds this report, and "
        "`analysis/figures.ipynb` and `analysis/insights.ipynb` redraw it (`MCSWEEP_RUNS=<report>/data`)."
    )


def write_report(
    frame: pd.DataFrame,
    samples: pd.DataFrame,
    out: Path,
    title: str = "mcsweep report",
    notes: str = "",
    judge: str = cr.DEFAULT_JUDGE,
) -> Path:
    """Write ``out``/report.md, ``out``/figures/ and ``out``/data/; returns the report's path. ``notes``
    (Markdown: how the runs were made) goes under the verdicts; ``judge`` is the comparator whose grading
    of every arm's test samples the E insights compare."""
    out.mkdir(parents=True, exist_ok=True)
    sizes = report_data.write(frame, samples, out / "data", load_report(frame))
    written = figures.draw_all(frame, samples, out / "figures")
    study = {fid: f"figures/{paths[0].name}" for fid, paths in written.items() if paths}
    verdicts = check_all(frame, samples, judge)
    source = style.source_label(frame)
    claims = draw_claims(verdicts, source, out / "figures" / CLAIMS_DIR)
    plots = {iid: f"figures/{CLAIMS_DIR}/{p.name}" for iid, p in claims.items()}
    sections = [
        f"# {title}\n\nData: {source}. Test accuracy judge for the E insights: `{judge}` "
        "(every arm's test samples graded by this one comparator; `--judge`).",
        "## Verdicts\n\n" + verdict_text.summary_markdown(verdicts, plots, study),
        "## What these runs are\n\n"
        + (f"{notes.strip()}\n\n" if notes.strip() else "")
        + "### Runs\n\n"
        + _load_section(load_report(frame))
        + "\n\n### Sweeps\n\n"
        + _sweeps_section(frame)
        + "\n\n### Missing sweeps\n\n"
        + _missing_section(frame)
        + "\n\n### Compute\n\n"
        + _compute_section(load_report(frame))
        + "\n\n### Data\n\n"
        + _data_section(sizes),
        "## Insights\n\n" + noise_rule() + "\n\n" + verdict_text.blocks_markdown(verdicts, plots, study),
        "## Figures\n\nBands: ±1 SD over seeds; grey bar: the minimum effect (y-axes span at least "
        f"{style.MIN_SPAN_EFFECTS} of it).\n\n" + _figures_section(study),
        "## Table 1\n\n"
        + (table1_markdown(frame) or f"No table1 sweep with evals.jsonl. Produce it with `{sweep_command('table1')}`."),
        "## pass@k\n\n" + passk_markdown(samples),
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
    """Load ``sources`` (run folders, run roots, report data folders, ``wandb:ENTITY/PROJECT[/GROUP]``)
    and write the report."""
    return write_report(load(*sources), load_samples(*sources), out, title, notes, judge)
