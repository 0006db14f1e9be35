"""The shared JSONL reader: records with their line numbers, and no bad line passes unnoticed."""

from pathlib import Path

import pytest

from mcsweep.io.jsonl import JsonlError, iter_jsonl, parse_lines, read_jsonl


def test_records_come_with_their_line_numbers_and_blank_lines_are_not_records(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n\n  \n{"a": 2}\n')
    assert list(iter_jsonl(path)) == [(1, {"a": 1}), (4, {"a": 2})]
    assert read_jsonl(path) == [{"a": 1}, {"a": 2}]


def test_a_bad_line_raises_naming_path_and_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n{"a": \n{"a": 3}\n')
    with pytest.raises(JsonlError, match=r"rows\.jsonl:2: not JSON") as info:
        read_jsonl(path)
    assert (info.value.line_no, info.value.where) == (2, f"{path}:2")


def test_collected_errors_keep_every_bad_line_and_the_good_records() -> None:
    errors: list[JsonlError] = []
    lines = ['{"a": 1}', "not json", "[1, 2]", '{"a": 4}', '{"a"']
    records = list(parse_lines(lines, "mem", errors))
    assert records == [(1, {"a": 1}), (4, {"a": 4})]
    assert [(e.where, e.reason.split(" (")[0]) for e in errors] == [
        ("mem:2", "not JSON"),
        ("mem:3", "not a JSON object"),
        ("mem:5", "not JSON"),
    ]


def test_non_objects_are_records_when_the_caller_allows_them() -> None:
    assert list(parse_lines(["[1, 2]", "3"], "mem", objects=False)) == [(1, [1, 2]), (2, 3)]


def test_a_line_that_is_not_utf8_is_one_bad_line_not_the_end_of_the_file(tmp_path: Path) -> None:
    """Read as text, one such byte raised UnicodeDecodeError from the file: no line named, nothing after
    it read (a grading CLI wrote no results at all)."""
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": "\xff"}\n{"a": "\xc3\xa9"}\n')
    errors: list[JsonlError] = []
    assert list(iter_jsonl(path, errors)) == [(1, {"a": 1}), (3, {"a": "\u00e9"})]
    assert [(e.where, e.reason) for e in errors] == [(f"{path}:2", "not UTF-8 (invalid start byte at byte 7)")]
