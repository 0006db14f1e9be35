"""World 3's reasoning that pays: an op's constant is stated as a sum of small terms to work out.

In the study, longer reasoning is more often right, which is why a short context costs accuracy (the
context axis) and why masking truncated responses lets lengths grow (the masking axis). Worlds 1 and 2
only pad the plan. In world 3 the statement gives each constant as an expression such as `9-4+2`,
and the warm-start data works it out one term at a time (`9-4=5, 5+2=7, so k=7`) or, in a stated
share of completions, writes the value at once (`k = 9-4+2 = 7`). A small model gets the one-term
steps right far more often than the whole expression at once, so a response that reasons is longer
and more often correct, and a context that cuts the reasoning pushes the policy to the shortcut.
"""

from __future__ import annotations

import itertools
import random
import re

TERM_COUNTS = (2, 2, 3, 3, 4, 6, 10, 14, 18)  # terms per expression, drawn uniformly: a long tail
MAX_TERM = 9  # each term is a single digit
MAX_PARTIAL = 10  # every running total stays in 1..10: each step is a one-digit lookup (10 is the largest k)
SHORTCUT_FRAC = 0.35  # share of warm-start responses that write their constants at once, not worked out
CONST_OP_WEIGHT = 4.0  # world 3 draws ops that take a constant this much more often


def expression(k: int, rng: random.Random) -> str:
    """A sum of single-digit terms (`9-4+2`) whose running totals stay in 1..MAX_PARTIAL and end at `k`."""
    n_terms = rng.choice(TERM_COUNTS)
    while True:
        totals = [rng.randint(1, MAX_TERM)] + [rng.randint(1, MAX_PARTIAL) for _ in range(n_terms - 2)] + [k]
        steps = [b - a for a, b in itertools.pairwise(totals)]
        if all(1 <= abs(s) <= MAX_TERM for s in steps):
            return str(totals[0]) + "".join(f"{'+' if s > 0 else '-'}{abs(s)}" for s in steps)


def terms(expr: str) -> list[int]:
    """The signed terms of an expression: `9-4+2` -> [9, -4, 2]."""
    return [int(t) for t in re.findall(r"[+-]?\d+", expr)]


def worked(expr: str) -> str:
    """The expression worked out one term at a time: `9-4=5, 5+2=7, so k=7`."""
    parts, total = [], terms(expr)[0]
    for t in terms(expr)[1:]:
        parts.append(f"{total}{'+' if t > 0 else '-'}{abs(t)}={total + t}")
        total += t
    return ", ".join(parts) + f", so k={total}"


def plan_line(expr: str, shortcut: bool) -> str:
    """The plan's constant line: worked out step by step, or the value at once."""
    return f"   k = {expr} = {sum(terms(expr))}." if shortcut else f"   {worked(expr)}."


FORMS = ("worked", "shortcut", "none")  # how a response states its constants (`reasoning_form`)
WORKED_STEP = re.compile(r"(-?\d+)([+-])(\d+)=(-?\d+)")


def reasoning_form(completion: str) -> str:
    """How a response states its constants: 'worked' (step by step), 'shortcut' (at once), 'none' (no
    constant line), for the datasheet's and the stats command's reasoning table."""
    if WORKED_STEP.search(completion) and ", so k=" in completion:
        return "worked"
    return "shortcut" if re.search(r"k = [\d+-]+ = -?\d+", completion) else "none"


def steps_correct(completion: str) -> bool:
    """Every one-term step the response wrote is right (vacuously so when it wrote none)."""
    for a, sign, b, out in WORKED_STEP.findall(completion):
        if int(a) + (int(b) if sign == "+" else -int(b)) != int(out):
            return False
    return True
