"""Loaders for public code-RL sets, through HF `datasets`, into `Problem` records.

Hub access is not assumed: each loader reads the files of a local snapshot (the same layout as the
Hub repository) with the `json` or `parquet` builder. Column checks run before conversion so a
schema drift upstream fails with the name of the missing or mistyped field.
"""

from __future__ import annotations

import base64
import datetime as dt
import glob
import io
import json
import pickle
import re
import zlib
from pathlib import Path
from typing import Any

from mcsweep.data.schema import Problem, SchemaError, make_io

LCB_FILES = ("test.jsonl", "test2.jsonl", "test3.jsonl", "test4.jsonl", "test5.jsonl", "test6.jsonl")
LCB_COLUMNS = (
    "question_title",
    "question_content",
    "platform",
    "question_id",
    "contest_id",
    "contest_date",
    "starter_code",
    "difficulty",
    "public_test_cases",
    "private_test_cases",
    "metadata",
)
DEEPCODER_SUBSETS = ("lcbv5", "primeintellect", "taco", "codeforces")


def check_columns(columns: list[str], required: tuple[str, ...], source: str) -> None:
    missing = [c for c in required if c not in columns]
    if missing:
        raise SchemaError(f"{source}: missing field '{missing[0]}' (columns: {sorted(columns)})")


def _field(row: dict[str, Any], name: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = row.get(name)
    if not isinstance(value, kind):
        raise SchemaError(f"{where}: field '{name}' has type {type(value).__name__}")
    return value


def _json_field(row: dict[str, Any], name: str, where: str) -> Any:
    """Columns that the Hub stores either as JSON strings or as structs, depending on the revision."""
    value = row.get(name)
    if isinstance(value, str):
        try:
            return json.loads(value) if value.strip() else {}
        except json.JSONDecodeError as exc:
            raise SchemaError(f"{where}: field '{name}' is not valid JSON ({exc})") from exc
    if value is None:
        return {}
    return value


# ---------------------------------------------------------------- LiveCodeBench code_generation_lite


def lcb_release_files(release_version: str) -> list[str]:
    """The test files the `code_generation_lite` builder reads for a release name.

    `release_vN` is cumulative (v1..vN), `vN` is one increment, `vA_vB` a range, `release_latest` all.
    """
    if release_version == "release_latest":
        return list(LCB_FILES)
    if (m := re.fullmatch(r"release_v(\d)", release_version)) and 1 <= int(m.group(1)) <= len(LCB_FILES):
        return list(LCB_FILES[: int(m.group(1))])
    if m := re.fullmatch(r"v(\d)(?:_v(\d))?", release_version):
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if 1 <= lo <= hi <= len(LCB_FILES):
            return list(LCB_FILES[lo - 1 : hi])
    raise ValueError(f"unknown LiveCodeBench release_version {release_version!r}")


class _StrOnlyUnpickler(pickle.Unpickler):
    """LCB pickles a plain str; refusing every global keeps a hostile file from running code."""

    def find_class(self, module: str, name: str) -> Any:
        raise SchemaError(f"private_test_cases: pickle refers to {module}.{name}; only a string is allowed")


def decode_lcb_private(blob: str, where: str) -> list[dict[str, Any]]:
    """Private tests are a JSON list, or base64(zlib(pickle(JSON string))) in newer releases."""
    try:
        return json.loads(blob)
    except json.JSONDecodeError:
        pass
    try:
        raw = zlib.decompress(base64.b64decode(blob.encode("utf-8")))
        text = _StrOnlyUnpickler(io.BytesIO(raw)).load()
        return json.loads(text)
    except (ValueError, zlib.error, pickle.UnpicklingError, EOFError, TypeError) as exc:
        raise SchemaError(f"{where}: field 'private_test_cases' cannot be decoded ({exc})") from exc


def encode_lcb_private(tests: list[dict[str, Any]]) -> str:
    """The inverse of `decode_lcb_private` (used to write fixtures in the exact upstream form)."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode("utf-8")


def _lcb_tests(cases: list[dict[str, Any]], where: str) -> tuple[list[str], list[str]]:
    for i, case in enumerate(cases):
        for key in ("input", "output", "testtype"):
            if key not in case:
                raise SchemaError(f"{where}: test {i} missing field '{key}'")
    return [c["input"] for c in cases], [c["output"] for c in cases]


def _lcb_row(row: dict[str, Any], where: str, file: str) -> Problem:
    meta = _json_field(row, "metadata", where)
    fn_name = meta.get("func_name")
    public = json.loads(_field(row, "public_test_cases", str, where))
    private = decode_lcb_private(_field(row, "private_test_cases", str, where), where)
    pub_in, pub_out = _lcb_tests(public, f"{where}: public_test_cases")
    prv_in, prv_out = _lcb_tests(private, f"{where}: private_test_cases")
    date = _field(row, "contest_date", (str, dt.datetime), where)  # the json builder may parse it
    date = dt.datetime.fromisoformat(date) if isinstance(date, str) else date
    return Problem(
        id=f"lcb-{_field(row, 'question_id', str, where)}",
        question=_field(row, "question_content", str, where),
        input_output=make_io(pub_in + prv_in, pub_out + prv_out, fn_name),
        public_input_output=make_io(pub_in, pub_out, fn_name),
        starter_code=_field(row, "starter_code", str, where),
        platform=_field(row, "platform", str, where),
        difficulty=_field(row, "difficulty", str, where),
        contest_date=date.date().isoformat(),
        source="livecodebench",
        meta={"question_title": row["question_title"], "contest_id": row["contest_id"], "file": file},
    )


def load_livecodebench(
    root: str | Path, release_version: str = "release_v6", start_date: str | None = None, end_date: str | None = None
) -> list[Problem]:
    """`livecodebench/code_generation_lite` from a snapshot folder holding its test*.jsonl files.

    Dates are inclusive ISO dates on `contest_date` (LCB's own windowing rule).
    """
    out: list[Problem] = []
    lo = dt.date.fromisoformat(start_date) if start_date else dt.date.min
    hi = dt.date.fromisoformat(end_date) if end_date else dt.date.max
    for file in lcb_release_files(release_version):
        path = Path(root) / file
        if not path.exists():
            raise FileNotFoundError(f"{path} (needed by release_version={release_version})")
        if path.stat().st_size == 0:  # the json builder cannot read an empty file; it has no rows
            continue
        ds = _load_files(str(path))
        check_columns(ds.column_names, LCB_COLUMNS, str(path))
        for i, row in enumerate(ds):
            problem = _lcb_row(row, f"{path}:row {i}", file)
            if lo <= dt.date.fromisoformat(problem.contest_date) <= hi:
                out.append(problem)
    return out


# ---------------------------------------------------------------- DeepCoder preview


def _args_lines(value: Any) -> str:
    """An argument list (APPS/TACO/PrimeIntellect) in LCB form: one JSON argument per line."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return value
    args = value if isinstance(value, list) else [value]
    return "\n".join(json.dumps(a) for a in args)


def _call_output(value: Any) -> str:
    """APPS/TACO wrap a returned value in a one-element list; unwrap it to LCB's plain JSON value."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return json.dumps(value)
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    return json.dumps(value)


def _as_text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(map(str, value))
    return value if isinstance(value, str) else str(value)


def tests_from_cases(cases: Any, fn_name: str | None, where: str) -> tuple[list[str], list[str], str | None]:
    """Normalise the test shapes of DeepCoder/PrimeIntellect/TACO into (inputs, outputs, fn_name).

    Call-based inputs that are already strings with a test type of "functional" (or none) are in
    LCB form and kept; "function_call" tests and non-string inputs are argument lists.
    """
    if isinstance(cases, dict):
        if "inputs" not in cases or "outputs" not in cases:
            raise SchemaError(f"{where}: tests object lacks field 'inputs' or 'outputs'")
        ins, outs = cases["inputs"], cases["outputs"]
        if not isinstance(ins, list) or not isinstance(outs, list) or len(ins) != len(outs):
            raise SchemaError(f"{where}: tests 'inputs' and 'outputs' must be lists of equal length")
        fn_name = cases.get("fn_name") or fn_name
        cases = [{"input": i, "output": o} for i, o in zip(ins, outs, strict=True)]
    if not isinstance(cases, list):
        raise SchemaError(f"{where}: field 'tests' must be a list or an object")
    inputs, outputs = [], []
    for i, case in enumerate(cases):
        if not isinstance(case, dict) or "input" not in case or "output" not in case:
            raise SchemaError(f"{where}: test {i} missing field 'input' or 'output'")
        kind = case.get("testtype") or case.get("type") or ""
        fn_name = case.get("fn_name") or fn_name
        lcb_call = kind == "functional" or (kind == "" and isinstance(case["input"], str))
        if fn_name and kind != "stdin_stdout" and not lcb_call:
            inputs.append(_args_lines(case["input"]))
            outputs.append(_call_output(case["output"]))
        else:
            inputs.append(_as_text(case["input"]))
            outputs.append(_as_text(case["output"]))
    return inputs, outputs, fn_name or None


def _load_files(pattern: str) -> Any:
    """A `datasets.Dataset` over the matching files (imported here: it is slow to import)."""
    import datasets

    files = sorted(glob.glob(pattern))
    if not files:
        raise FileNotFoundError(pattern)
    builder = "parquet" if files[0].endswith(".parquet") else "json"
    return datasets.load_dataset(builder, data_files=files, split="train")


def load_deepcoder(root: str | Path, subset: str = "primeintellect", split: str = "train") -> list[Problem]:
    """`agentica-org/DeepCoder-Preview-Dataset` from a snapshot (`<subset>/<split>-*.parquet`)."""
    if subset not in DEEPCODER_SUBSETS:
        raise ValueError(f"unknown DeepCoder subset {subset!r}; one of {DEEPCODER_SUBSETS}")
    ds = _load_files(str(Path(root) / subset / f"{split}-*"))
    check_columns(ds.column_names, ("problem", "tests"), f"deepcoder/{subset}")
    out = []
    for i, row in enumerate(ds):
        where = f"deepcoder/{subset}/{split}:row {i}"
        meta = _json_field(row, "metadata", where)
        tests = json.loads(_field(row, "tests", str, where))
        inputs, outputs, fn_name = tests_from_cases(tests, meta.get("func_name"), where)
        solutions = [s for s in row.get("solutions") or [] if isinstance(s, str) and s.strip()]
        out.append(
            Problem(
                id=f"deepcoder-{subset}-{split}-{i:06d}",
                question=_field(row, "problem", str, where),
                input_output=make_io(inputs, outputs, fn_name),
                starter_code=row.get("starter_code") or "",
                reference=solutions[0] if solutions else "",
                source=f"deepcoder/{subset}",
                meta={"references": solutions[1:], "source_metadata": meta},
            )
        )
    return out


# ---------------------------------------------------------------- open-r1

_FENCE = re.compile(r"```(?:python|py|python3)?\s*\n(.*?)```", re.DOTALL)


def strip_fence(text: str) -> str:
    blocks = _FENCE.findall(text or "")
    return blocks[-1] if blocks else (text or "")


def load_open_r1_verifiable(root: str | Path, split: str = "train") -> list[Problem]:
    """`open-r1/verifiable-coding-problems-python` (`data/<split>-*.parquet`).

    Older revisions call the statement `problem`, newer ones `problem_statement`; both are read.
    """
    ds = _load_files(str(Path(root) / "data" / f"{split}-*"))
    stmt = "problem_statement" if "problem_statement" in ds.column_names else "problem"
    check_columns(
        ds.column_names,
        ("source", "in_source_id", stmt, "gold_standard_solution", "verification_info", "metadata", "problem_id"),
        "open-r1/verifiable",
    )
    out = []
    for i, row in enumerate(ds):
        where = f"open-r1/verifiable/{split}:row {i}"
        info = _json_field(row, "verification_info", where)
        if "test_cases" not in info:
            raise SchemaError(f"{where}: verification_info lacks field 'test_cases'")
        inputs, outputs, fn_name = tests_from_cases(info["test_cases"], None, where)
        meta = _json_field(row, "metadata", where)
        out.append(
            Problem(
                id=f"openr1-{_field(row, 'problem_id', str, where)}",
                question=_field(row, stmt, str, where),
                input_output=make_io(inputs, outputs, fn_name),
                difficulty=str(meta.get("difficulty") or ""),
                platform=str(row["source"]),
                reference=strip_fence(_field(row, "gold_standard_solution", str, where)),
                source="open-r1/verifiable-coding-problems-python",
                meta={"in_source_id": row["in_source_id"], "source_metadata": meta},
            )
        )
    return out


CODEFORCES_COLUMNS = (
    "id",
    "title",
    "description",
    "input_format",
    "output_format",
    "examples",
    "official_tests",
    "rating",
    "contest_start",
    "interaction_format",
)


def codeforces_difficulty(rating: float | None) -> str:
    """A rating bucket (<=1200 easy, <=1900 medium), so the set can be compared with LCB's labels."""
    if rating is None:
        return ""
    return "easy" if rating <= 1200 else "medium" if rating <= 1900 else "hard"


def _cf_statement(row: dict[str, Any]) -> str:
    parts = [row["description"] or ""]
    for title, key in (("Input", "input_format"), ("Output", "output_format"), ("Note", "note")):
        if row.get(key):
            parts.append(f"{title}\n{row[key]}")
    for ex in row["examples"] or []:
        parts.append(f"Example input\n{ex['input']}\nExample output\n{ex['output']}")
    return "\n\n".join(parts)


def load_open_r1_codeforces(root: str | Path, split: str = "train") -> list[Problem]:
    """`open-r1/codeforces` (default config, `data/<split>-*.parquet`); it ships no solutions."""
    ds = _load_files(str(Path(root) / "data" / f"{split}-*"))
    check_columns(ds.column_names, CODEFORCES_COLUMNS, "open-r1/codeforces")
    out = []
    for i, row in enumerate(ds):
        where = f"open-r1/codeforces/{split}:row {i}"
        examples = _field(row, "examples", list, where)
        official = row.get("official_tests") or examples
        inputs, outputs, _ = tests_from_cases(official, None, where)
        ex_in, ex_out, _ = tests_from_cases(examples, None, where)
        start = row.get("contest_start")
        out.append(
            Problem(
                id=f"cf-{_field(row, 'id', str, where)}",
                question=_cf_statement(row),
                input_output=make_io(inputs, outputs),
                public_input_output=make_io(ex_in, ex_out),
                platform="codeforces",
                difficulty=codeforces_difficulty(row.get("rating")),
                contest_date=dt.datetime.fromtimestamp(start, dt.UTC).date().isoformat() if start else "",
                source="open-r1/codeforces",
                meta={
                    "title": row["title"],
                    "rating": row.get("rating"),
                    "interactive": bool(row.get("interaction_format")),
                    "official_tests_complete": row.get("official_tests_complete"),
                },
            )
        )
    return out
