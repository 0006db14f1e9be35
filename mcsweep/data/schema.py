"""The problem record (docs/ARCHITECTURE.md) as a dataclass, with JSONL and parquet IO.

Every stage of the pipeline reads and writes these records, so a malformed line must stop the run
with its file and line number instead of slipping through as a half-filled problem.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from mcsweep.io.jsonl import JsonlError, iter_jsonl

DIFFICULTIES = ("easy", "medium", "hard")
REQUIRED = ("id", "question", "input_output")


class SchemaError(ValueError):
    """A record or a source row does not have the expected shape; the message names the field."""


@dataclass
class Problem:
    """A superset of LiveCodeBench's evaluation sample plus provenance.

    `input_output` / `public_input_output` are JSON strings ({"inputs", "outputs", optional
    "fn_name"}); `reference` is one trusted solution and `meta["references"]` may hold more.
    """

    id: str
    question: str
    input_output: str
    starter_code: str = ""
    platform: str = ""
    difficulty: str = ""
    contest_date: str = ""
    public_input_output: str = ""
    reference: str = ""
    source: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def tests(self) -> dict[str, Any]:
        return parse_io(self.input_output, f"{self.id}.input_output")

    @property
    def fmt(self) -> str:
        """'call' for LeetCode-style problems (fn_name present), else 'stdin'."""
        return "call" if self.tests.get("fn_name") else "stdin"

    @property
    def n_tests(self) -> int:
        return len(self.tests["inputs"])

    @property
    def references(self) -> list[str]:
        extra = [r for r in self.meta.get("references", []) if r and r != self.reference]
        return ([self.reference] if self.reference else []) + extra

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, row: dict[str, Any], where: str = "record") -> Problem:
        for name in REQUIRED:
            if name not in row:
                raise SchemaError(f"{where}: missing field '{name}'")
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in row.items() if k in known}
        extra = {k: v for k, v in row.items() if k not in known}
        for name in known - {"meta"}:
            if name in kwargs and not isinstance(kwargs[name], str):
                kind = type(kwargs[name]).__name__
                raise SchemaError(f"{where}: field '{name}' must be a string, got {kind}")
        meta = dict(kwargs.pop("meta", None) or {})
        if extra:
            meta.setdefault("extra", {}).update(extra)
        problem = cls(**kwargs, meta=meta)
        parse_io(problem.input_output, f"{where}: field 'input_output'")
        return problem


def parse_io(text: str, where: str) -> dict[str, Any]:
    """Decode and check a tests JSON string; errors name where it came from."""
    try:
        io = json.loads(text)
    except (TypeError, json.JSONDecodeError) as exc:
        raise SchemaError(f"{where}: not valid JSON ({exc})") from exc
    if not isinstance(io, dict) or not isinstance(io.get("inputs"), list) or not isinstance(io.get("outputs"), list):
        raise SchemaError(f"{where}: must be an object with 'inputs' and 'outputs' lists")
    if len(io["inputs"]) != len(io["outputs"]):
        raise SchemaError(f"{where}: {len(io['inputs'])} inputs but {len(io['outputs'])} outputs")
    return io


def make_io(inputs: list[str], outputs: list[str], fn_name: str | None = None) -> str:
    io: dict[str, Any] = {"inputs": inputs, "outputs": outputs}
    if fn_name:
        io["fn_name"] = fn_name
    return json.dumps(io)


def read_jsonl(path: str | Path) -> list[Problem]:
    """Read problems; a malformed line raises with the file and line number."""
    out: list[Problem] = []
    try:
        for lineno, row in iter_jsonl(path):
            out.append(Problem.from_dict(row, f"{path}:{lineno}"))
    except JsonlError as err:
        raise SchemaError(f"{err.where}: malformed JSON line ({err.reason})") from err
    return out


def write_jsonl(problems: list[Problem], path: str | Path) -> None:
    """Write through a temporary file so an interrupted write never leaves a truncated file."""
    write_rows([p.to_dict() for p in problems], path)


def write_rows(rows: list[dict[str, Any]], path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    tmp.replace(path)


def write_parquet(problems: list[Problem], path: str | Path) -> None:
    """Parquet keeps `meta` as a JSON string: its keys differ between sources."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{**p.to_dict(), "meta": json.dumps(p.meta, ensure_ascii=False)} for p in problems]
    names = [f.name for f in fields(Problem)]
    table = pa.table({n: pa.array([r[n] for r in rows], type=pa.string()) for n in names})
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, str(path))


def read_parquet(path: str | Path) -> list[Problem]:
    import pyarrow.parquet as pq

    out = []
    for i, row in enumerate(pq.read_table(str(path)).to_pylist()):
        row["meta"] = json.loads(row.get("meta") or "{}")
        out.append(Problem.from_dict(row, f"{path}:row {i}"))
    return out
