"""Why a verdict is inconclusive, in a few groups a reader can act on (run more seeds, run longer,
run the missing sweep, add the measurement), read from the reason each check states, and what more
would decide a verdict in each group (issue 19: the report says it for every inconclusive insight)."""

from __future__ import annotations

import re
from typing import NamedTuple


class Group(NamedTuple):
    name: str
    why: str
    pattern: re.Pattern[str]
    decides: str
    """What more would decide a verdict of this group."""


GROUPS: tuple[Group, ...] = (
    Group(
        "sweep not run",
        "the sweep this claim needs is missing",
        re.compile(r"^sweep missing|carry no .* axis value"),
        "running the sweep (its command is in the verdict), at 3 seeds per arm",
    ),
    Group(
        "arm not run",
        "the sweep lacks an arm the claim compares",
        re.compile(r"^arm missing|^fewer than \d+ (fixed|batch|masking)|^need |no extension arm|need 2 "),
        "running the sweep's missing arms (the verdict names them), at 3 seeds per arm",
    ),
    Group(
        "too few seeds",
        "no noise estimate (fewer than 2 seeds per arm and no seeds sweep), or one run where runs must agree",
        re.compile(r"fewer than 2 seeds per arm|noise is unknown|^fewer than \d+ runs to agree"),
        "more seeds: at least 2 per arm, 3 for the campaign (`seed=0,1,2` on the sweep's command)",
    ),
    Group(
        "too short",
        "too few evaluations or steps for the summary the claim needs",
        re.compile(r"not computable|evaluations per run|needs >= \d+ evaluation|evaluation steps"),
        "longer runs or more evaluations per run (`train.steps`, `train.eval_every`)",
    ),
    Group(
        "not measurable here",
        "the runs lack the measurement (an evaluation, a judge, samples) or the world shows no such event",
        re.compile(
            r"^no evaluation at|^no test pass@1 graded|^no evaluate-at-temperatures|^no run whose|^no runs with"
            r"|^no temperature starts|unchanged at the grid|^fewer than 2 stable"
        ),
        "the measurement the verdict names, or runs in which the event it is about happens (a longer run, "
        "a finer grid, another world)",
    ),
    Group(
        "premise not established",
        "a claim it presupposes is not established",
        re.compile(r"^presupposes|^no convergence diversity"),  # T4, T8 presuppose T7's convergence
        "deciding the claim it presupposes first (named in the verdict)",
    ),
    Group(
        "seeds disagree",
        "some runs meet the criterion and some do not",
        re.compile(r"^seeds disagree"),
        "not more seeds alone: a per-run claim needs every run to agree; a setting in which the effect is "
        "reliable (longer runs, a stronger arm) would",
    ),
    Group(
        "within noise",
        "a compared difference is within the noise threshold",
        re.compile(r"within noise|do not differ beyond noise|not clearly alike|not to within the tolerance"),
        "more seeds where a difference exceeds the minimum effect, a larger effect where it does not",
    ),
)
OTHER = Group("other", "see the reason in the insight's block", re.compile(r"$^"), "see the verdict's reason")


def _group(name: str) -> Group:
    return next((g for g in GROUPS if g.name == name), OTHER)


def group_of(reason: str) -> str:
    """The group an inconclusive verdict's reason falls in ('other' when no rule matches)."""
    return next((g.name for g in GROUPS if g.pattern.search(reason)), OTHER.name)


def describe(group: str) -> str:
    """What the group means, in one phrase."""
    return _group(group).why


def decides(group: str) -> str:
    """What more would decide a verdict of the group, in one phrase."""
    return _group(group).decides


ORDER: tuple[str, ...] = (*(g.name for g in GROUPS), OTHER.name)
