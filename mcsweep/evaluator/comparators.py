"""Output comparators: ``livecodebench`` (strict, LCB's exact rules) and ``microcoder`` (robust chain).

Both compare data in the grader, never objects the solution made. A stdin comparison gets the captured
stdout text and the expected text. A call-based comparison gets the result decoded from the tagged JSON
the sandbox sends (tuples and sets are tagged so their types survive) and the JSON-decoded expected
value. Each returns the name of the method that accepted, or None.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

_FLOAT_LITERAL = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+(?=[eE]))([eE][+-]?\d+)?")
# A number as a program prints one: ASCII digits, no leading zeros, '+', '_' or bare '.5' (float() takes
# all of those, fullwidth and Arabic-Indic digits too; no judge does).
_PRINTED_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


_NONBLANK = re.compile(r"[^\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+")  # splitlines' line bodies
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@dataclass(frozen=True, eq=False)
class ReturnedSet:
    """A set the solution returned: its items as they arrived, never hashed. They are values the solution
    chose, and a frozenset of colliding hashes (every multiple of 2**61 - 1 hashes to 0 in CPython) is
    built in quadratic time: 8 s of the grader's time, every thread of it stalled, for one result of
    24,000 items, within the result caps. No expected value is a set (JSON has none), so it equals
    nothing; an order-irrelevant problem compares its items as a multiset."""

    items: tuple[Any, ...]


def _decode_tag(obj: dict[str, Any]) -> Any:
    if len(obj) == 1:
        [(key, items)] = obj.items()
        if isinstance(items, list):
            if key == "$tuple":
                return tuple(items)
            if key == "$set":
                return ReturnedSet(tuple(items))
            if key == "$dict" and all(type(p) is list and len(p) == 2 and type(p[0]) is str for p in items):
                return dict(items)
    raise ValueError(f"not a tagged container: {str(obj)[:80]}")


def decode_tagged(text: str) -> Any:
    """Decode the sandbox's tagged JSON: lists are arrays and every other container is tagged,
    {"$tuple": [...]} -> tuple, {"$set": [...]} -> ReturnedSet, {"$dict": [[key, value], ...]} -> dict; an
    untagged object cannot come from a returned value (a dict shaped like a tag arrives as "$dict")."""
    return json.loads(text, object_hook=_decode_tag)


def same_token_count(output: str, expected: str) -> bool:
    """Every comparison method of both comparators needs as many tokens as expected. Splitting stops one
    past the expected count, so a flood of output costs one scan at C speed (a regex scan took 13x as
    long over 32 MiB of whitespace) and at most one copy of it, never a list of its tokens."""
    n = len(expected.split())
    return len(output.split(None, n)) == n


def _lines(text: str) -> int:
    """len(text.splitlines()) for a stripped text, counted without splitting it."""
    return sum(text.count(c) for c in _LINE_BREAKS) - text.count("\r\n") + 1 if text else 0


# ---------------------------------------------------------------- livecodebench (strict) ---------


def _lcb_lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def _lcb_same_line_count(output: str, expected: str) -> bool:
    return output.strip().count("\n") == expected.strip().count("\n")


def _lcb_decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(token) for token in line.split()]
    except (InvalidOperation, ValueError):
        return None


@dataclass(frozen=True)
class LiveCodeBench:
    """LiveCodeBench's grader rules: stripped lines equal, else per-line Decimal token lists equal;
    call-based: a top-level tuple becomes a list, then Python ``==`` (so True == 1 and 2 == 2.0)."""

    name: str = "livecodebench"
    methods: tuple[str, ...] = ("equal", "exact_lines", "decimal")

    def stdin(self, output: str, expected: str, order_irrelevant: bool = False) -> str | None:
        if not (same_token_count(output, expected) and _lcb_same_line_count(output, expected)):
            return None
        got, want = _lcb_lines(output), _lcb_lines(expected)
        if len(got) != len(want):
            return None
        method = "exact_lines"
        for g, w in zip(got, want, strict=True):
            if g == w:
                continue
            gd, wd = _lcb_decimals(g), _lcb_decimals(w)
            try:
                if gd is None or wd is None or gd != wd:
                    return None
            except ArithmeticError:  # comparing a signalling NaN ("sNaN") raises
                return None
            method = "decimal"
        return method

    def call(self, result: Any, expected: Any, order_irrelevant: bool = False) -> str | None:
        if isinstance(result, tuple):
            result = list(result)
        try:
            return "equal" if result == expected else None
        except TypeError:
            return None


# ---------------------------------------------------------------- microcoder (robust) ------------


def _is_float_literal(token: str) -> bool:
    return _FLOAT_LITERAL.fullmatch(token) is not None and ("." in token or "e" in token.lower())


def _close(got: float, want: float, rtol: float, atol: float) -> bool:
    return math.isclose(got, want, rel_tol=rtol, abs_tol=atol)


def _strict_equal(got: Any, want: Any, tol: tuple[float, float] | None = None) -> bool:
    """Equality that keeps types apart: True is not 1, 2 is not 2.0, "[1]" is not [1], tuple is not list.

    With ``tol``, a float expected value accepts an int or float within (rtol, atol).
    """
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if isinstance(want, float):
        if tol is not None and type(got) in (int, float):
            return _close(float(got), want, *tol)
        return type(got) is float and got == want
    if isinstance(want, (int, str)) or want is None:
        return type(got) is type(want) and got == want
    if isinstance(want, (list, tuple)):
        return (
            type(got) is type(want)
            and len(got) == len(want)
            and all(_strict_equal(g, w, tol) for g, w in zip(got, want, strict=True))
        )
    if isinstance(want, dict):
        return (
            type(got) is dict and got.keys() == want.keys() and all(_strict_equal(got[k], want[k], tol) for k in want)
        )
    return False


def _lists(value: Any) -> Any:
    """Tuples (at any depth) become lists; sets stay sets."""
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    return value


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


# stdin methods: (output, expected, comparator) -> bool


def exact(got: str, want: str, cmp: MicroCoder) -> bool:
    return got == want


def trailing_whitespace(got: str, want: str, cmp: MicroCoder) -> bool:
    """Trailing spaces on a line and trailing newlines are invisible to every contest judge."""
    got, want = got.rstrip(), want.rstrip()
    if got.count("\n") != want.count("\n"):  # checked first: splitting a flood of lines costs memory
        return False
    return [ln.rstrip() for ln in got.split("\n")] == [ln.rstrip() for ln in want.split("\n")]


def whitespace_tokens(got: str, want: str, cmp: MicroCoder) -> bool:
    """Same tokens on the same lines, whatever the spacing between them."""
    got, want = got.strip(), want.strip()
    if _lines(got) != _lines(want):
        return False
    return [ln.split() for ln in got.splitlines()] == [ln.split() for ln in want.splitlines()]


def token_stream(got: str, want: str, cmp: MicroCoder) -> bool:
    """Same token sequence, line breaks counted as whitespace (the token checkers of AtCoder/Codeforces)."""
    return got.split() == want.split()


def _token_close(got: str, want: str, cmp: MicroCoder) -> bool:
    if got == want:
        return True
    if not _is_float_literal(want) or _PRINTED_NUMBER.fullmatch(got) is None:
        return False
    try:
        value = float(got)
    except ValueError:
        return False
    return math.isfinite(value) and _close(value, float(want), cmp.rtol, cmp.atol)


def float_tolerance(got: str, want: str, cmp: MicroCoder) -> bool:
    """Tokens equal, except where the expected token is a float literal: then within tolerance."""
    g, w = got.split(), want.split()
    return len(g) == len(w) and all(_token_close(a, b, cmp) for a, b in zip(g, w, strict=True))


def _nonblank_lines(text: str, limit: int) -> list[list[str]] | None:
    """The token lists of text's non-blank lines (as splitlines() cuts them), or None past ``limit``."""
    lines = []
    for match in _NONBLANK.finditer(text):
        if tokens := match.group().split():
            lines.append(tokens)
            if len(lines) > limit:
                return None
    return lines


def unordered_lines(got: str, want: str, cmp: MicroCoder) -> bool:
    """Only for problems declaring order irrelevant: the same multiset of lines (duplicates count)."""
    expected = [ln.split() for ln in want.splitlines() if ln.strip()]
    lines = _nonblank_lines(got, len(expected))
    return lines is not None and sorted(lines) == sorted(expected)


# call-based methods: (result, expected, comparator) -> bool


def exact_data(got: Any, want: Any, cmp: MicroCoder) -> bool:
    return _strict_equal(got, want)


def containers(got: Any, want: Any, cmp: MicroCoder) -> bool:
    """A tuple (at any depth) stands for a list, as LeetCode serialises both to a JSON array."""
    return _strict_equal(_lists(got), _lists(want))


def float_values(got: Any, want: Any, cmp: MicroCoder) -> bool:
    """Float tolerance only where the expected value is a float; ints, bools and strings stay exact."""
    return _strict_equal(_lists(got), _lists(want), (cmp.rtol, cmp.atol))


def unordered_items(got: Any, want: Any, cmp: MicroCoder) -> bool:
    """Only for problems declaring order irrelevant: the top-level items as a multiset (a set result too)."""
    if isinstance(got, ReturnedSet):
        got = got.items
    if not isinstance(want, list) or not isinstance(got, (list, tuple, frozenset)):
        return False
    items = list(got)
    return len(items) == len(want) and sorted(map(_canonical, _lists(items))) == sorted(map(_canonical, _lists(want)))


Method = Callable[[Any, Any, "MicroCoder"], bool]
STDIN_CHAIN: tuple[Method, ...] = (
    exact,
    trailing_whitespace,
    whitespace_tokens,
    token_stream,
    float_tolerance,
)
CALL_CHAIN: tuple[Method, ...] = (exact_data, containers, float_values)


@dataclass(frozen=True)
class MicroCoder:
    """Ordered fallback chain; lenient only where contest judges are (whitespace, float error)."""

    rtol: float = 1e-6
    atol: float = 1e-6
    name: str = "microcoder"
    methods: tuple[str, ...] = tuple(m.__name__ for m in (*STDIN_CHAIN, unordered_lines, *CALL_CHAIN, unordered_items))

    def _first(self, chain: tuple[Method, ...], got: Any, want: Any) -> str | None:
        for method in chain:
            try:
                if method(got, want, self):
                    return method.__name__
            except (TypeError, ValueError, OverflowError, RecursionError):
                continue
        return None

    def stdin(self, output: str, expected: str, order_irrelevant: bool = False) -> str | None:
        if not same_token_count(output, expected):
            return None
        chain = (*STDIN_CHAIN, unordered_lines) if order_irrelevant else STDIN_CHAIN
        return self._first(chain, output, expected)

    def call(self, result: Any, expected: Any, order_irrelevant: bool = False) -> str | None:
        chain = (*CALL_CHAIN, unordered_items) if order_irrelevant else CALL_CHAIN
        return self._first(chain, result, expected)


Comparator = LiveCodeBench | MicroCoder
COMPARATORS = ("livecodebench", "microcoder")


def make_comparator(name: str, rtol: float = 1e-6, atol: float = 1e-6) -> Comparator:
    """Build a comparator by name; rtol/atol apply to microcoder only (LCB has no tolerance)."""
    if name == "livecodebench":
        return LiveCodeBench()
    if name == "microcoder":
        return MicroCoder(rtol=rtol, atol=atol)
    raise ValueError(f"unknown comparator {name!r}; choose one of {COMPARATORS}")
