"""The one JSONL reader: (line number, record) pairs, and each bad line named by `path:line`.

Callers differ in what a bad line means (a corrupt run table, a skipped request, a half-written cache
line), so the reader either raises `JsonlError` at the first bad line or, given an `errors` list,
collects them there for the caller to count and report; it never drops a line silently.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any


class JsonlError(ValueError):
    """One malformed line: `where` is `path:line`, `reason` says what is wrong with it."""

    def __init__(self, path: str | Path, line_no: int, reason: str) -> None:
        self.path, self.line_no, self.reason = str(path), line_no, reason
        self.where = f"{path}:{line_no}"
        super().__init__(f"{self.where}: {reason}")


def decode_line(line: str | bytes, path: str | Path, line_no: int, objects: bool = True) -> Any:
    """One line's record; JsonlError if it is not UTF-8 (bytes, as files are read), not JSON (or, with
    `objects`, not a JSON object)."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as err:
            raise JsonlError(path, line_no, f"not UTF-8 ({err.reason} at byte {err.start})") from None
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise JsonlError(path, line_no, f"not JSON ({err.msg} at column {err.colno})") from None
    if objects and not isinstance(record, dict):
        raise JsonlError(path, line_no, f"not a JSON object (a {type(record).__name__})")
    return record


def parse_lines(
    lines: Iterable[str] | Iterable[bytes],
    path: str | Path,
    errors: list[JsonlError] | None = None,
    objects: bool = True,
) -> Iterator[tuple[int, Any]]:
    """(line number, record) for every non-blank line, numbered from 1. A bad line raises JsonlError,
    or, when `errors` is given, is appended to it and left out of the records."""
    for line_no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield line_no, decode_line(line, path, line_no, objects)
        except JsonlError as err:
            if errors is None:
                raise
            errors.append(err)


def iter_jsonl(
    path: str | Path, errors: list[JsonlError] | None = None, objects: bool = True
) -> Iterator[tuple[int, Any]]:
    """`parse_lines` over a file, streamed line by line and decoded per line: a line that is not UTF-8 is
    a bad line like any other, not the end of the file."""
    with open(path, "rb") as stream:
        yield from parse_lines(stream, path, errors, objects)


def read_jsonl(path: str | Path, errors: list[JsonlError] | None = None, objects: bool = True) -> list[Any]:
    """Every record of a file; an absent file is an error (callers that allow it check first)."""
    return [record for _, record in iter_jsonl(path, errors, objects)]
