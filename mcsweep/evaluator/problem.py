"""Problem formats the evaluator accepts, normalised to one ``Problem``.

Formats: LiveCodeBench's ``input_output`` JSON string (``inputs``, ``outputs``, optional ``fn_name``),
LiveCodeBench's ``public_test_cases`` / ``private_test_cases`` fields (private ones are base64 of zlib of
a pickled JSON string) with ``metadata.func_name``, and a plain ``tests`` dict or list. A malformed
problem raises ``ProblemFormatError`` naming the field: it is a data bug, never a failing solution.
"""

from __future__ import annotations

import base64
import io
import json
import keyword
import pickle
import unicodedata
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_DECOMPRESSED_BYTES = 1 << 30
# What json.loads raises on text it refuses: JSONDecodeError, but also a bare ValueError (an integer longer
# than CPython's 4,300-digit limit for int/str conversion) and RecursionError (nesting deeper than the
# interpreter's recursion limit). Either escaped parse_problem as itself, not as ProblemFormatError, and the
# data pipeline, which drops a problem only on ProblemFormatError, stopped on it.
_JSON_ERRORS = (ValueError, RecursionError)


class ProblemFormatError(ValueError):
    """A problem record the evaluator cannot grade against; ``field`` names the culprit."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(frozen=True)
class TestCase:
    """One test: the whole stdin (or one JSON argument per line) and the expected output text."""

    input: str
    output: str

    __test__ = False  # not a pytest class


@dataclass(frozen=True)
class Problem:
    """Tests plus how to run them: ``fn_name`` set means call-based (LeetCode ``class Solution``)."""

    tests: tuple[TestCase, ...]
    fn_name: str | None = None
    order_irrelevant: bool = False

    @property
    def call_based(self) -> bool:
        return self.fn_name is not None


class _StringOnlyUnpickler(pickle.Unpickler):
    """Refuses every global, so only primitive opcodes (str, bytes, containers) can load."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"global {module}.{name} is not allowed in test data")


def decode_private_tests(blob: str) -> Any:
    """Decode LiveCodeBench's private tests: base64 -> zlib -> pickle (of a JSON str) -> JSON."""
    field = "private_test_cases"
    try:
        packed = base64.b64decode(blob.encode("ascii"), validate=True)
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_DECOMPRESSED_BYTES)
        if inflater.unconsumed_tail:
            raise ProblemFormatError(field, f"decompresses to more than {MAX_DECOMPRESSED_BYTES} bytes")
        # A damaged pickle raises far more than UnpicklingError (ValueError, UnicodeDecodeError,
        # OverflowError, TypeError, AttributeError, MemoryError: 20,000 one-byte corruptions of a pickled
        # string): all of it is a malformed record.
        text = _StringOnlyUnpickler(io.BytesIO(raw)).load()
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="strict")
    except ProblemFormatError:
        raise
    except Exception as err:
        message = f"not base64/zlib/pickle data: {type(err).__name__}: {str(err)[:200]}"
        raise ProblemFormatError(field, message) from err
    if not isinstance(text, str):
        raise ProblemFormatError(field, f"pickle holds {type(text).__name__}, expected a JSON string")
    return _json(field, text)


def _json(field: str, text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except _JSON_ERRORS as err:
        raise ProblemFormatError(field, f"invalid JSON ({type(err).__name__}: {str(err)[:200]})") from err


def _strings(field: str, values: Any) -> list[str]:
    if not isinstance(values, list):
        raise ProblemFormatError(field, f"expected a list, got {type(values).__name__}")
    out = []
    for k, value in enumerate(values):
        if not isinstance(value, str) and isinstance(value, (list, dict, int, float, bool)):
            try:
                value = json.dumps(value)
            except _JSON_ERRORS as err:  # an int past the digit limit, nesting past the recursion limit
                raise ProblemFormatError(f"{field}[{k}]", f"not JSON data: {type(err).__name__}") from err
        if not isinstance(value, str):
            raise ProblemFormatError(f"{field}[{k}]", f"expected a string, got {type(value).__name__}")
        _utf8(f"{field}[{k}]", value)
        out.append(value)
    return out


def _utf8(field: str, text: str) -> None:
    """Test data is text a program reads or writes: a lone surrogate (a JSON ``\\ud800`` escape gives one)
    is in no UTF-8, so no input could be fed and no output matched. Each made every solution a
    sandbox_error (the child's setup or the grader's output cap failed to encode it; round 14)."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ProblemFormatError(field, f"not UTF-8 text: lone surrogate at character {err.start}") from err


def _nfkc(name: str) -> str:
    return unicodedata.normalize("NFKC", name)


def _fn_name(field: str, value: Any) -> str | None:
    if value is None or value == "":
        return None
    # A keyword names no method, and Python stores a name NFKC-normalised ("\ufb01nd" defines "find"): no
    # solution could define either, so every one would be a runtime_error.
    if not isinstance(value, str) or not value.isidentifier() or keyword.iskeyword(value) or _nfkc(value) != value:
        raise ProblemFormatError(field, f"fn_name must be a Python identifier, got {value!r}")
    return value


def parse_input_output(value: str | Mapping[str, Any], field: str = "input_output") -> Problem:
    """Parse the ``{"inputs", "outputs", "fn_name"?}`` shape (JSON string or dict)."""
    data = _json(field, value)
    if not isinstance(data, Mapping):
        raise ProblemFormatError(field, f"expected a JSON object, got {type(data).__name__}")
    for key in ("inputs", "outputs"):
        if key not in data:
            raise ProblemFormatError(f"{field}.{key}", "missing")
    inputs = _strings(f"{field}.inputs", data["inputs"])
    outputs = _strings(f"{field}.outputs", data["outputs"])
    if len(inputs) != len(outputs):
        raise ProblemFormatError(field, f"{len(inputs)} inputs but {len(outputs)} outputs")
    if not inputs:
        raise ProblemFormatError(field, "no tests")
    order = data.get("order_irrelevant", False)
    if not isinstance(order, bool):
        raise ProblemFormatError(f"{field}.order_irrelevant", "must be true or false")
    tests = tuple(TestCase(i, o) for i, o in zip(inputs, outputs, strict=True))
    return _checked(Problem(tests, _fn_name(f"{field}.fn_name", data.get("fn_name")), order), field)


def _checked(problem: Problem, field: str) -> Problem:
    """Call-based data must be JSON (one argument per input line), or the solution would be blamed."""
    if not problem.call_based:
        return problem
    for k, test in enumerate(problem.tests):
        for name, texts in (("inputs", test.input.split("\n")), ("outputs", [test.output])):
            for text in texts:
                if not text.strip() and name == "inputs":
                    continue
                try:
                    json.loads(text)
                except _JSON_ERRORS as err:  # no solution could pass: the child's json refuses it too
                    message = f"not JSON: {type(err).__name__}: {str(err)[:200]}: {text[:80]!r}"
                    raise ProblemFormatError(f"{field}.{name}[{k}]", message) from err
    return problem


def _case_list(field: str, value: Any) -> tuple[list[TestCase], set[str]]:
    cases = _json(field, value)
    if not isinstance(cases, list):
        raise ProblemFormatError(field, f"expected a list of test cases, got {type(cases).__name__}")
    tests, kinds = [], set()
    for k, case in enumerate(cases):
        if not isinstance(case, Mapping) or not {"input", "output"} <= case.keys():
            raise ProblemFormatError(f"{field}[{k}]", "expected an object with 'input' and 'output'")
        inp, out = _strings(f"{field}[{k}]", [case["input"], case["output"]])
        tests.append(TestCase(inp, out))
        kinds.add(str(case.get("testtype", "stdin")))
    return tests, kinds


def parse_lcb_fields(record: Mapping[str, Any]) -> Problem:
    """Parse LiveCodeBench's ``public_test_cases`` + ``private_test_cases`` + ``metadata``."""
    tests, kinds = _case_list("public_test_cases", record.get("public_test_cases") or "[]")
    private = record.get("private_test_cases") or "[]"
    if isinstance(private, str) and not private.lstrip().startswith("["):
        private = decode_private_tests(private)
    more, more_kinds = _case_list("private_test_cases", private)
    tests += more
    kinds |= more_kinds
    if not tests:
        raise ProblemFormatError("public_test_cases", "no tests in public or private test cases")
    if not kinds <= {"stdin", "functional"} or len(kinds) > 1:
        raise ProblemFormatError("testtype", f"expected all 'stdin' or all 'functional', got {sorted(kinds)}")
    metadata = _json("metadata", record.get("metadata") or "{}")
    if not isinstance(metadata, Mapping):
        raise ProblemFormatError("metadata", "expected a JSON object")
    fn_name = _fn_name("metadata.func_name", metadata.get("func_name"))
    if ("functional" in kinds) != (fn_name is not None):
        raise ProblemFormatError("metadata.func_name", "functional tests need func_name, stdin tests must not")
    return _checked(Problem(tuple(tests), fn_name), "test_cases")


def parse_tests(value: Any) -> Problem:
    """Parse a plain ``tests`` value: the input_output dict shape or a list of {input, output}."""
    if isinstance(value, list):
        cases, _ = _case_list("tests", value)
        if not cases:
            raise ProblemFormatError("tests", "no tests")
        return Problem(tuple(cases))
    return parse_input_output(value, "tests")


def parse_problem(record: Mapping[str, Any]) -> Problem:
    """Pick the first test field a record has: ``input_output``, ``tests``, then LiveCodeBench's."""
    if not isinstance(record, Mapping):
        raise ProblemFormatError("problem", f"expected a mapping, got {type(record).__name__}")
    if record.get("input_output") is not None:
        return parse_input_output(record["input_output"])
    if record.get("tests") is not None:
        return parse_tests(record["tests"])
    if record.get("public_test_cases") is not None or record.get("private_test_cases") is not None:
        return parse_lcb_fields(record)
    raise ProblemFormatError("input_output", "no tests: expected input_output, tests or *_test_cases")
