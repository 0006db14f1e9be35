"""CLI: ``python -m mcsweep.analysis report RUNS... --out reports/<name>/``."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from mcsweep.analysis.criteria import DEFAULT_JUDGE, JUDGES
from mcsweep.analysis.report import report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mcsweep.analysis", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="verdicts on the 34 insights, figures, Table 1 and pass@k as Markdown")
    rep.add_argument(
        "runs",
        nargs="+",
        help="run folders, run roots, report data folders (<report>/data), or wandb:ENTITY/PROJECT[/GROUP]",
    )
    rep.add_argument(
        "--out", type=Path, required=True, help="output folder (report.md, figures/, data/: the frames as Parquet)"
    )
    rep.add_argument("--title", default="mcsweep report")
    rep.add_argument("--notes", type=Path, help="a Markdown file saying how the runs were made, put under the title")
    rep.add_argument(
        "--judge",
        choices=JUDGES,
        default=DEFAULT_JUDGE,
        help="comparator whose grading of every arm's test samples the evaluator insights (E3, E5, E6) compare "
        "(default: livecodebench, the study's test accuracy)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    notes = args.notes.read_text() if args.notes else ""
    path = report(args.runs, args.out, args.title, notes, args.judge)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
