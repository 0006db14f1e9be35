"""Why a verdict is inconclusive, in a few groups a reader can act on (run more seeds, run longer,
run the missing sweep, add the measurement), read from the reason each check states."""

from __future__ import annotations

import re

GROUPS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("sweep not run", "the sweep this claim needs is missing", re.compile(r"^sweep missing|carry no .* axis value")),
    (
        "arm not run",
        "the sweep lacks an arm the claim compares",
        re.compile(r"^arm missing|^fewer than \d+ (fixed|batch|masking)|^need |no extension arm|need 2 "),
    ),
    (
        "too few seeds",
        "no noise estimate (fewer than 2 seeds per arm and no seeds sweep), or one run where runs must agree",
        re.compile(r"fewer than 2 seeds per arm|noise is unknown|^fewer than \d+ runs to agree"),
    ),
    (
        "too short",
        "too few evaluations or steps for the summary the claim needs",
        re.compile(r"not computable|evaluations per run|needs >= \d+ evaluation|evaluation steps"),
    ),
    (
        "not measurable here",
        "the runs lack the measurement (an evaluation, a judge, samples) or the world shows no such event",
        re.compile(
            r"^no evaluation at|^no test pass@1 graded|^no evaluate-at-temperatures|^no run whose|^no runs with"
            r"|^no temperature starts|unchanged at the grid|^no convergence|^fewer than 2 stable"
        ),
    ),
    ("premise not established", "a claim it presupposes is not established", re.compile(r"^presupposes")),
    ("seeds disagree", "some runs meet the criterion and some do not", re.compile(r"^seeds disagree")),
    (
        "within noise",
        "a compared difference is within the noise threshold",
        re.compile(r"within noise|do not differ beyond noise|not clearly alike|not to within the tolerance"),
    ),
)
OTHER = ("other", "see the reason in the insight's block")


def group_of(reason: str) -> str:
    """The group an inconclusive verdict's reason falls in ('other' when no rule matches)."""
    return next((name for name, _, pattern in GROUPS if pattern.search(reason)), OTHER[0])


def describe(group: str) -> str:
    """What the group means, in one phrase."""
    return next((why for name, why, _ in GROUPS if name == group), OTHER[1])


ORDER: tuple[str, ...] = (*(name for name, _, _ in GROUPS), OTHER[0])
