"""How world-2 answers are written: the forms a real judge accepts and a strict one may not.

The study's robust evaluator matters because correct answers come in more than one form: a float
printed with other digits, a tuple where the expected value holds a list, numbers one per line where
the statement shows them on one line, a set where the order does not matter. World 2 gives its
problems such answers and its warm-start data writes them in stated proportions, so the strict
comparator (`livecodebench`) rejects part of the policy's correct answers while the robust one
(`microcoder`) accepts them. The hidden tests still define correctness exactly: a form is listed
here only when it is correct under the statement (which says when order is free and which float
error is accepted).

Answer ops end a chain (nothing reads their output). Output types: "F" a float, "P" a list of
[number, count] pairs, "S" the distinct numbers in any order. Forms are templates over `{v}`, the
variable holding the list.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

FLOAT_DECIMALS = 6  # the expected output's decimals; the stated tolerance must cover their rounding
FLOAT_TOLERANCE = "1e-6"


@dataclass(frozen=True)
class Form:
    """One correct way to write the answer; `variant` marks the forms a strict judge may reject."""

    code: str
    weight: float
    variant: bool = False


@dataclass(frozen=True)
class AnswerOp:
    """A chain's last op, with its ground truth, phrasings and answer forms per format."""

    name: str
    out_type: str
    fn: Callable[[list[int]], object]
    phrasings: tuple[str, ...]
    forms: dict[str, tuple[Form, ...]]
    in_type: str = "L"
    consts: tuple[int, ...] = ()

    def apply(self, value: object, k: int | None) -> object:
        return self.fn(value)  # type: ignore[arg-type]


def _mean(a: list[int]) -> float:
    return round(sum(a) / len(a), FLOAT_DECIMALS) if a else 0.0


def _counts(a: list[int]) -> list[list[int]]:
    return [[x, a.count(x)] for x in dict.fromkeys(a)]


def _distinct(a: list[int]) -> list[int]:
    return list(dict.fromkeys(a))


# Variant shares (the `variant=True` weights over all weights of an op's forms): about half of
# real solutions print a float as it comes, return Counter items as tuples, or build the distinct
# values from a set. Chosen with the share of answer ops in `problems.ANSWER_OP_FRAC` so that the
# warm-start data's strict-rejected share of correct answers sits near the study's own gap (critic
# reward 0.39 strict vs 0.48 robust at step 100, fig 6_4: a fifth of the robust reward).
ANSWER_OPS: dict[str, AnswerOp] = {
    op.name: op
    for op in (
        AnswerOp(
            "mean",
            "F",
            _mean,
            ("output the average of the numbers (0 if none are left)", "compute the mean, or 0 for an empty list"),
            {
                "stdin": (
                    Form("m = sum({v}) / len({v}) if {v} else 0.0\nprint(f'{{m:.6f}}')", 0.3),
                    Form("m = sum({v}) / len({v}) if {v} else 0.0\nprint('%.6f' % m)", 0.2),
                    Form("m = sum({v}) / len({v}) if {v} else 0.0\nprint(m)", 0.3, True),
                    Form("print(sum({v}) / len({v}) if {v} else 0)", 0.2, True),
                ),
                "call": (
                    Form("return round(sum({v}) / len({v}), 6) if {v} else 0.0", 0.5),
                    Form("return sum({v}) / len({v}) if {v} else 0.0", 0.5, True),
                ),
            },
        ),
        AnswerOp(
            "counts",
            "P",
            _counts,
            ("count how often each number occurs", "tally the occurrences of each number"),
            {
                "stdin": (
                    Form("for x, c in collections.Counter({v}).items():\n    print(x, c)", 0.5),
                    Form("for x in dict.fromkeys({v}):\n    print(x, {v}.count(x))", 0.5),
                ),
                "call": (
                    Form("return [[x, c] for x, c in collections.Counter({v}).items()]", 0.3),
                    Form("return [[x, {v}.count(x)] for x in dict.fromkeys({v})]", 0.2),
                    Form("return list(collections.Counter({v}).items())", 0.35, True),
                    Form("return [(x, {v}.count(x)) for x in dict.fromkeys({v})]", 0.15, True),
                ),
            },
        ),
        AnswerOp(
            "distinct",
            "S",
            _distinct,
            ("collect the distinct numbers", "keep one copy of each number"),
            {
                "stdin": (
                    Form("for x in dict.fromkeys({v}):\n    print(x)", 0.25),
                    Form("print(*dict.fromkeys({v}), sep='\\n')", 0.25),
                    Form("for x in sorted(set({v})):\n    print(x)", 0.3, True),
                    Form("for x in set({v}):\n    print(x)", 0.2, True),
                ),
                "call": (
                    Form("return list(dict.fromkeys({v}))", 0.5),
                    Form("return sorted(set({v}))", 0.25, True),
                    Form("return set({v})", 0.25, True),
                ),
            },
        ),
    )
}

# The final line for a chain that ends in an ordinary op: stdin list outputs may go one per line (a
# token-based judge accepts it, an exact-line one does not); a call may return a tuple for a list.
LIST_OUTPUT_FORMS: dict[str, tuple[Form, ...]] = {
    "stdin": (
        Form("print(*{v})", 0.4),
        Form("print(' '.join(map(str, {v})))", 0.35),
        Form("print(*{v}, sep='\\n')", 0.15, True),
        Form("for x in {v}:\n    print(x)", 0.1, True),
    ),
    "call": (Form("return {v}", 0.9), Form("return tuple({v})", 0.1, True)),
}
INT_OUTPUT_FORMS: dict[str, tuple[Form, ...]] = {
    "stdin": (Form("print({v})", 1.0),),
    "call": (Form("return {v}", 1.0),),
}

RETURN_TYPES = {"L": "List[int]", "I": "int", "F": "float", "P": "List[List[int]]", "S": "List[int]"}


def output_statement(out_type: str, fmt: str) -> str:
    """The statement's output paragraph: it says when order is free and what float error is accepted."""
    tolerance = f"answers within {FLOAT_TOLERANCE} (absolute or relative) of the exact value are accepted"
    if fmt == "stdin":
        return {
            "L": "Output: the resulting numbers on one line, separated by spaces.",
            "I": "Output: the resulting integer.",
            "F": f"Output: the result as a decimal number; {tolerance}.",
            "P": "Output: one line per distinct number, in order of first occurrence: the number and its count.",
            "S": "Output: the distinct numbers, one per line, in any order.",
        }[out_type]
    return (
        "Implement Solution.solve(nums) that returns "
        + {
            "L": "the resulting list.",
            "I": "the resulting integer.",
            "F": f"the result as a float; {tolerance}.",
            "P": "a list of [number, count] pairs in order of first occurrence.",
            "S": "the distinct numbers as a list, in any order.",
        }[out_type]
    )


def expected_stdout(result: object, out_type: str) -> str:
    """The expected stdout in the statement's canonical form (what the reference prints)."""
    if out_type == "F":
        return f"{result:.{FLOAT_DECIMALS}f}\n"
    if out_type == "P":
        return "".join(f"{x} {c}\n" for x, c in result) or "\n"  # type: ignore[attr-defined]
    if out_type == "S":
        return "".join(f"{x}\n" for x in result) or "\n"  # type: ignore[attr-defined]
    if out_type == "L":
        return " ".join(map(str, result)) + "\n"  # type: ignore[call-overload]
    return f"{result}\n"


def expected_json(result: object) -> str:
    return json.dumps(result)
