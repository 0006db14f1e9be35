"""Problem records round-trip through JSONL and parquet; malformed input fails with its location."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcsweep.data.schema import (
    Problem,
    SchemaError,
    make_io,
    read_jsonl,
    read_parquet,
    write_jsonl,
    write_parquet,
)


def _problem(pid: str = "p1") -> Problem:
    return Problem(
        id=pid,
        question="Add.",
        input_output=make_io(["[1]"], ["1"], "solve"),
        platform="leetcode",
        meta={"chain": [["sum", None]]},
    )


def test_jsonl_and_parquet_round_trip(tmp_path: Path) -> None:
    problems = [_problem("a"), _problem("b")]
    write_jsonl(problems, tmp_path / "x.jsonl")
    write_parquet(problems, tmp_path / "x.parquet")
    assert read_jsonl(tmp_path / "x.jsonl") == problems == read_parquet(tmp_path / "x.parquet")
    assert problems[0].fmt == "call" and problems[0].n_tests == 1


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(_problem().to_dict()) + "\n{not json\n")
    with pytest.raises(SchemaError, match=r"bad.jsonl:2: malformed JSON"):
        read_jsonl(path)


def test_missing_and_mistyped_fields_are_named(tmp_path: Path) -> None:
    row = _problem().to_dict()
    with pytest.raises(SchemaError, match="'input_output'"):
        Problem.from_dict({k: v for k, v in row.items() if k != "input_output"})
    with pytest.raises(SchemaError, match="'question' must be a string"):
        Problem.from_dict({**row, "question": 3})
    with pytest.raises(SchemaError, match="2 inputs but 1 outputs"):
        Problem.from_dict({**row, "input_output": json.dumps({"inputs": ["1", "2"], "outputs": ["1"]})})


def test_unknown_fields_are_kept_in_meta() -> None:
    p = Problem.from_dict({**_problem().to_dict(), "question_title": "T"})
    assert p.meta["extra"] == {"question_title": "T"}
