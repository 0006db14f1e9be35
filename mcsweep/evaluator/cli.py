"""Command line: ``grade`` a JSONL file of solutions, or print the corpus ``accuracy`` matrices.

    python -m mcsweep.evaluator grade INPUT.jsonl --comparator {livecodebench,microcoder} --out OUT.jsonl
        [--workers N] [--timeout S] [--shadow NAME] [--run-all]
    python -m mcsweep.evaluator accuracy [--corpus FILE] [--workers N]

Each input line is ``{"id", "code" or "completion", "input_output"}``. A line that cannot be parsed (bad
JSON, missing fields, malformed problem) is reported on stderr and counted; the other lines still run.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any, BinaryIO

from mcsweep.io.jsonl import JsonlError, decode_line

from .api import Evaluator, GradeRequest, request_problem
from .comparators import COMPARATORS
from .problem import ProblemFormatError


def parse_line(line: str | bytes, lineno: int) -> GradeRequest:
    """One input line as a request; ValueError names the line and what is wrong."""
    try:
        record = decode_line(line, "input", lineno, objects=False)
    except JsonlError as err:
        raise ValueError(f"line {lineno}: {err.reason}") from err
    if not isinstance(record, dict):
        raise ValueError(f"line {lineno}: expected a JSON object")
    code, completion = record.get("code"), record.get("completion")
    if not isinstance(code, str) and not isinstance(completion, str):
        raise ValueError(f"line {lineno}: needs a string 'code' or 'completion'")
    request = GradeRequest(
        id=str(record.get("id", f"line-{lineno}")),
        code=code if isinstance(code, str) else None,
        completion=completion if isinstance(completion, str) else None,
        input_output=record.get("input_output"),
        problem=None if "input_output" in record else record,
    )
    try:
        request_problem(request)
    except ProblemFormatError as err:
        raise ValueError(f"line {lineno}: {err}") from err
    return request


def read_requests(stream: BinaryIO) -> tuple[list[GradeRequest], list[str]]:
    """Every parseable line's request, and what is wrong with each other line (not UTF-8 included)."""
    requests, errors = [], []
    for lineno, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            requests.append(parse_line(line, lineno))
        except ValueError as err:
            errors.append(str(err))
    return requests, errors


def _progress(total: int) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="sol", disable=not sys.stderr.isatty())


def cmd_grade(args: argparse.Namespace) -> int:
    with open(args.input, "rb") as stream:
        requests, errors = read_requests(stream)
    for err in errors:
        print(f"skipped {err}", file=sys.stderr)
    verdicts: Counter[str] = Counter()
    shadows = [args.shadow] if args.shadow else []
    with (
        Evaluator(args.comparator, args.workers, args.timeout, shadows, run_all=args.run_all) as ev,
        open(args.out, "w", encoding="utf-8") as out,
        _progress(len(requests)) as bar,
    ):
        for result in ev.grade_iter(requests):
            out.write(json.dumps(result.to_json()) + "\n")
            verdicts[result.verdict] += 1
            bar.update()
    passed = verdicts["accepted"]
    summary = ", ".join(f"{k}={v}" for k, v in sorted(verdicts.items()))
    print(
        f"graded {len(requests)}: passed {passed}; {summary}; unparseable lines {len(errors)}",
        file=sys.stderr,
    )
    return 1 if errors else 0


def cmd_accuracy(args: argparse.Namespace) -> int:
    from .accuracy import format_report, measure

    print(format_report(measure(args.corpus, workers=args.workers)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m mcsweep.evaluator", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    grade = sub.add_parser("grade", help="grade a JSONL file of solutions")
    grade.add_argument("input")
    grade.add_argument("--comparator", choices=COMPARATORS, default="microcoder")
    grade.add_argument("--out", required=True)
    grade.add_argument("--workers", type=int, default=None)
    grade.add_argument("--timeout", type=float, default=6.0, help="CPU seconds per test (wall: 3x)")
    grade.add_argument("--shadow", choices=COMPARATORS, default=None, help="also judge with this comparator")
    grade.add_argument(
        "--run-all", action="store_true", help="run every test (default: stop once every comparator has failed one)"
    )
    grade.set_defaults(func=cmd_grade)
    acc = sub.add_parser("accuracy", help="confusion matrices of both comparators on the labelled corpus")
    acc.add_argument("--corpus", default=None, help="labelled JSONL (default: the shipped corpus)")
    acc.add_argument("--workers", type=int, default=None)
    acc.set_defaults(func=cmd_accuracy)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))
