"""The 25 typed operations that micro-world problems chain together.

Each op has several phrasings and several equivalent code forms, so that statements read like
prose and the warm-started policy has more than one way to solve a problem (diversity matters for
the temperature axis). Types: "L" is a list of ints, "I" is an int.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Op:
    """One typed operation with its ground truth, phrasings and code forms.

    Code forms are templates over `{v}` (the variable holding the input), `{o}` (the variable that
    receives the result) and `{k}` (the constant, when the op takes one).
    """

    name: str
    in_type: str
    out_type: str
    fn: Callable[..., object]
    phrasings: tuple[str, ...]
    code: tuple[str, ...]
    consts: tuple[int, ...] = ()

    def apply(self, value: object, k: int | None) -> object:
        return self.fn(value, k) if self.consts else self.fn(value)


def _dedupe(xs: list[int]) -> list[int]:
    return list(dict.fromkeys(xs))


def _prefix(xs: list[int]) -> list[int]:
    return list(itertools.accumulate(xs))


def _product(xs: list[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


_LIST_OPS = [
    Op(
        "reverse",
        "L",
        "L",
        lambda a: a[::-1],
        ("reverse the list", "reverse the order of the numbers"),
        ("{o} = {v}[::-1]", "{o} = list(reversed({v}))"),
    ),
    Op(
        "sort",
        "L",
        "L",
        sorted,
        ("sort the numbers in increasing order", "sort the list ascending"),
        ("{o} = sorted({v})", "{o} = list(sorted({v}))"),
    ),
    Op(
        "sort_desc",
        "L",
        "L",
        lambda a: sorted(a, reverse=True),
        ("sort the numbers in decreasing order", "sort the list descending"),
        ("{o} = sorted({v}, reverse=True)", "{o} = sorted({v})[::-1]"),
    ),
    Op(
        "add",
        "L",
        "L",
        lambda a, k: [x + k for x in a],
        ("add {k} to every element", "increase each number by {k}"),
        ("{o} = [x + {k} for x in {v}]", "{o} = [{k} + x for x in {v}]", "{o} = list(map(lambda x: x + {k}, {v}))"),
        (1, 2, 3, 5, 7),
    ),
    Op(
        "mul",
        "L",
        "L",
        lambda a, k: [x * k for x in a],
        ("multiply every element by {k}", "scale each number by {k}"),
        ("{o} = [x * {k} for x in {v}]", "{o} = [{k} * x for x in {v}]", "{o} = list(map(lambda x: x * {k}, {v}))"),
        (2, 3, 4),
    ),
    Op(
        "sub",
        "L",
        "L",
        lambda a, k: [x - k for x in a],
        ("subtract {k} from every element", "decrease each number by {k}"),
        ("{o} = [x - {k} for x in {v}]", "{o} = list(map(lambda x: x - {k}, {v}))"),
        (1, 2, 4, 6),
    ),
    Op(
        "square",
        "L",
        "L",
        lambda a: [x * x for x in a],
        ("square every element", "replace each number by its square"),
        ("{o} = [x * x for x in {v}]", "{o} = [x ** 2 for x in {v}]"),
    ),
    Op(
        "negate",
        "L",
        "L",
        lambda a: [-x for x in a],
        ("negate every element", "flip the sign of each number"),
        ("{o} = [-x for x in {v}]", "{o} = [0 - x for x in {v}]"),
    ),
    Op(
        "abs",
        "L",
        "L",
        lambda a: [abs(x) for x in a],
        ("take the absolute value of every element", "replace each number by its absolute value"),
        ("{o} = [abs(x) for x in {v}]", "{o} = list(map(abs, {v}))"),
    ),
    Op(
        "keep_even",
        "L",
        "L",
        lambda a: [x for x in a if x % 2 == 0],
        ("keep only the even numbers", "remove the odd numbers"),
        ("{o} = [x for x in {v} if x % 2 == 0]", "{o} = list(filter(lambda x: x % 2 == 0, {v}))"),
    ),
    Op(
        "keep_odd",
        "L",
        "L",
        lambda a: [x for x in a if x % 2 != 0],
        ("keep only the odd numbers", "remove the even numbers"),
        ("{o} = [x for x in {v} if x % 2 != 0]", "{o} = list(filter(lambda x: x % 2 == 1, {v}))"),
    ),
    Op(
        "keep_positive",
        "L",
        "L",
        lambda a: [x for x in a if x > 0],
        ("keep only the positive numbers", "remove every number that is not positive"),
        ("{o} = [x for x in {v} if x > 0]", "{o} = list(filter(lambda x: x > 0, {v}))"),
    ),
    Op(
        "drop_first",
        "L",
        "L",
        lambda a: a[1:],
        ("drop the first element", "remove the first number"),
        ("{o} = {v}[1:]", "{o} = list({v}[1:])"),
    ),
    Op(
        "prefix_sum",
        "L",
        "L",
        _prefix,
        ("replace the list by its prefix sums", "compute the running totals"),
        (
            "{o} = list(itertools.accumulate({v}))",
            "acc = []\ns = 0\nfor x in {v}:\n    s += x\n    acc.append(s)\n{o} = acc",
        ),
    ),
    Op(
        "dedupe",
        "L",
        "L",
        _dedupe,
        ("remove repeated numbers, keeping first occurrences", "drop duplicates but keep the order"),
        (
            "{o} = list(dict.fromkeys({v}))",
            "seen = set()\nkept = []\nfor x in {v}:\n    if x not in seen:\n        seen.add(x)\n"
            "        kept.append(x)\n{o} = kept",
        ),
    ),
    Op(
        "mod",
        "L",
        "L",
        lambda a, k: [x % k for x in a],
        ("replace every element by its remainder modulo {k}", "take each number modulo {k}"),
        ("{o} = [x % {k} for x in {v}]", "{o} = list(map(lambda x: x % {k}, {v}))"),
        (2, 3, 5, 7),
    ),
]

_REDUCE_OPS = [
    Op(
        "sum",
        "L",
        "I",
        sum,
        ("output the sum", "add all the numbers together"),
        ("{o} = sum({v})", "{o} = 0\nfor x in {v}:\n    {o} += x"),
    ),
    Op(
        "max",
        "L",
        "I",
        lambda a: max(a, default=0),
        ("output the largest number (0 if none are left)", "take the maximum, or 0 for an empty list"),
        ("{o} = max({v}, default=0)", "{o} = max({v}) if {v} else 0"),
    ),
    Op(
        "min",
        "L",
        "I",
        lambda a: min(a, default=0),
        ("output the smallest number (0 if none are left)", "take the minimum, or 0 for an empty list"),
        ("{o} = min({v}, default=0)", "{o} = min({v}) if {v} else 0"),
    ),
    Op(
        "count",
        "L",
        "I",
        len,
        ("count the numbers", "output how many numbers remain"),
        ("{o} = len({v})", "{o} = sum(1 for _ in {v})"),
    ),
    Op(
        "product",
        "L",
        "I",
        _product,
        ("output the product of the numbers", "multiply all the numbers together"),
        ("{o} = math.prod({v})", "{o} = 1\nfor x in {v}:\n    {o} *= x"),
    ),
]

_INT_OPS = [
    Op(
        "int_add",
        "I",
        "I",
        lambda r, k: r + k,
        ("add {k} to the result", "increase the result by {k}"),
        ("{o} = {v} + {k}", "{o} = {k} + {v}"),
        (1, 3, 10),
    ),
    Op(
        "int_mul",
        "I",
        "I",
        lambda r, k: r * k,
        ("multiply the result by {k}", "scale the result by {k}"),
        ("{o} = {v} * {k}", "{o} = {k} * {v}"),
        (2, 3),
    ),
    Op(
        "int_abs",
        "I",
        "I",
        abs,
        ("take the absolute value of the result", "drop the sign of the result"),
        ("{o} = abs({v})", "{o} = {v} if {v} >= 0 else -{v}"),
    ),
    Op(
        "int_mod",
        "I",
        "I",
        lambda r, k: r % k,
        ("take the result modulo {k}", "reduce the result modulo {k}"),
        ("{o} = {v} % {k}", "{o} = {v} - ({v} // {k}) * {k}"),
        (7, 10),
    ),
]

OPS: dict[str, Op] = {op.name: op for op in [*_LIST_OPS, *_REDUCE_OPS, *_INT_OPS]}
assert len(OPS) == 25, "the micro world is specified with 25 ops"


class Typed(Protocol):
    """What chaining needs of an op (an `Op`, or a world-2 answer op)."""

    @property
    def in_type(self) -> str: ...
    @property
    def out_type(self) -> str: ...


def can_follow(prev: Typed | None, nxt: Typed) -> bool:
    """Chains start from a list and must type-check from one op to the next."""
    return nxt.in_type == ("L" if prev is None else prev.out_type)


def adjacent_pairs(ops: Mapping[str, Typed] = OPS) -> list[tuple[str, str]]:
    """Every type-correct ordered pair of distinct ops, in a stable order."""
    return [(a, b) for a, x in ops.items() for b, y in ops.items() if x is not y and can_follow(x, y)]
