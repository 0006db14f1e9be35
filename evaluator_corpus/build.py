"""Build the evaluator's labelled corpus, ``mcsweep/evaluator/corpus/labelled.jsonl``, from the case files here.

    python evaluator_corpus/build.py

The layout and the labelling rules are in ``README.md`` beside this script. The JSONL file is
committed and shipped as package data; ``tests/evaluator/test_corpus_rebuild.py`` checks that this
script rebuilds it byte for byte.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
OUT = ROOT.parent / "mcsweep" / "evaluator" / "corpus" / "labelled.jsonl"

# The verdict a contest judge gives each category: only correct answers and harmless format
# differences are accepted.
LABELS = {
    "correct": "correct",
    "format": "correct",
    "incorrect": "incorrect",
    "lenient_trap": "incorrect",
    "runtime": "incorrect",
    "reward_hack": "incorrect",
}
# What each kind of case file holds, and how its first line marks the note.
KINDS = {".py": ("code", "#", ""), ".md": ("completion", "<!--", "-->")}
METHOD_PLACEHOLDER = "FN_NAME"  # a call-based hack's method, renamed to each problem's fn_name
CASE_NAME = re.compile(r"(?P<suffix>[a-z0-9-]+)_(?P<category>[a-z_]+)")


class CorpusError(ValueError):
    """A case file or folder that does not follow the layout in README.md."""


def read_case(path: Path) -> tuple[str, str]:
    """The note (the first line's comment) and the body below it, bytes kept exactly."""
    _, opening, closing = KINDS[path.suffix]
    first, newline, body = path.read_bytes().decode("utf-8").partition("\n")
    if not (newline and first.startswith(opening) and first.endswith(closing)):
        raise CorpusError(f"{path}: the first line must be the note as a comment: {opening} note {closing}".strip())
    return first[len(opening) : len(first) - len(closing)].strip(), body


def case_record(problem: str, suffix: str, category: str, path: Path, input_output: str) -> dict[str, Any]:
    if category not in LABELS:
        raise CorpusError(f"{path}: unknown category {category!r} (one of {', '.join(LABELS)})")
    note, body = read_case(path)
    field = KINDS[path.suffix][0]
    return {
        "id": f"{problem}-{suffix}",
        "category": category,
        "label": LABELS[category],
        field: body,
        "note": note,
        "input_output": input_output,
    }


def read_problem(folder: Path) -> dict[str, Any]:
    """The problem's tests (``input_output`` in problem.json); any file that is not a case is an error."""
    unexpected = [p.name for p in folder.iterdir() if p.name != "problem.json" and p.suffix not in KINDS]
    if unexpected:
        raise CorpusError(f"{folder}: not a case file or problem.json: {', '.join(sorted(unexpected))}")
    try:
        return json.loads((folder / "problem.json").read_text(encoding="utf-8"))["input_output"]
    except (OSError, ValueError, KeyError) as err:
        raise CorpusError(f"{folder}/problem.json: needs an 'input_output' object ({err})") from err


def numbered_cases(folder: Path, tests: str) -> list[dict[str, Any]]:
    records = []
    for path in sorted(folder.glob("*.py")):
        match = CASE_NAME.fullmatch(path.stem)
        if not match or match["suffix"] != f"{len(records):02d}":
            raise CorpusError(f"{path}: name it {len(records):02d}_<category>.py (cases are numbered without gaps)")
        records.append(case_record(folder.name, match["suffix"], match["category"], path, tests))
    return records


def hack_cases(problem: str, paths: list[Path], first: int, tests: str, fn_name: str | None) -> list[dict[str, Any]]:
    """The shared hacks, numbered on from ``first``; a call-based hack's method takes the problem's name."""
    records = []
    for number, path in enumerate(paths, start=first):
        record = case_record(problem, f"{number:02d}", "reward_hack", path, tests)
        if fn_name:
            if METHOD_PLACEHOLDER not in record["code"]:
                raise CorpusError(f"{path}: a call-based hack must define its method as {METHOD_PLACEHOLDER}")
            record["code"] = record["code"].replace(METHOD_PLACEHOLDER, fn_name)
        records.append(record)
    return records


def completion_cases(folder: Path, tests: str) -> list[dict[str, Any]]:
    records = []
    for path in sorted(folder.glob("*.md")):
        match = CASE_NAME.fullmatch(path.stem)
        if not match or match["suffix"].isdigit():
            raise CorpusError(f"{path}: name it <name>_<category>.md with a name that is not a number")
        records.append(case_record(folder.name, match["suffix"], match["category"], path, tests))
    return records


def problem_cases(folder: Path, hacks: dict[str, list[Path]]) -> list[dict[str, Any]]:
    """A problem's own cases numbered 00, 01, ..., then the hacks of its kind, then its completions."""
    input_output = read_problem(folder)
    fn_name = input_output.get("fn_name")
    tests = json.dumps(input_output)
    records = numbered_cases(folder, tests)
    records += hack_cases(folder.name, hacks["call" if fn_name else "stdin"], len(records), tests, fn_name)
    return records + completion_cases(folder, tests)


def load_cases(root: Path = ROOT) -> list[dict[str, Any]]:
    """Every case, problem by problem in name order."""
    hacks = {kind: sorted((root / "hacks" / kind).glob("*.py")) for kind in ("stdin", "call")}
    if not all(hacks.values()):
        raise CorpusError(f"{root / 'hacks'}: needs hack files in both stdin/ and call/")
    problems = sorted(p for p in (root / "problems").iterdir() if p.is_dir())
    if not problems:
        raise CorpusError(f"{root / 'problems'}: no problem folders")
    return [case for folder in problems for case in problem_cases(folder, hacks)]


def render(cases: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(case) + "\n" for case in cases)


def main() -> None:
    cases = load_cases()
    OUT.write_text(render(cases), encoding="utf-8")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
