"""Verify: a Markdown spot-check report of a seeded random sample, for a person to read.

Each entry shows what a reviewer needs to accept or reject the problem: the statement, a few tests,
the reference's verdict from validation, and the difficulty evidence (every judge sample, the
calibrated bin and, when measured, the policy's pass rate).
"""

from __future__ import annotations

import random
from typing import Any

from mcsweep.data.schema import Problem

CHECKLIST = (
    "- [ ] statement is readable and complete",
    "- [ ] tests match the statement",
    "- [ ] difficulty label is plausible",
)


def _block(text: str, limit: int) -> str:
    text = text if len(text) <= limit else text[:limit] + "\n... (truncated)"
    return "```\n" + text.replace("```", "'''") + "\n```"


def _tests_md(p: Problem, n: int) -> list[str]:
    io = p.tests
    out = [f"**Tests** ({p.n_tests} hidden, format `{p.fmt}`), first {min(n, p.n_tests)}:"]
    for i, (inp, exp) in enumerate(zip(io["inputs"][:n], io["outputs"][:n], strict=True)):
        out += [f"- test {i} input:", _block(str(inp), 300), "  expected:", _block(str(exp), 300)]
    return out


def _evidence_md(p: Problem) -> list[str]:
    ev: dict[str, Any] = p.meta.get("difficulty_evidence", {})
    if not ev:
        return ["**Difficulty**: no evidence recorded"]
    rows = ["| repeat | " + " | ".join(ev["samples"][0]) + " | weighted |", "|---" * (len(ev["samples"][0]) + 2) + "|"]
    for r, (s, w) in enumerate(zip(ev["samples"], ev["weighted"], strict=True)):
        rows.append(f"| {r} | " + " | ".join(f"{v:.1f}" for v in s.values()) + f" | {w:.2f} |")
    rate = ev.get("pass_rate")
    return [
        f"**Difficulty**: predicted `{ev['predicted']}`, mean score {ev['score']:.2f} "
        f"(sd {ev['std']:.2f}), thresholds {[round(t, 2) for t in ev['thresholds']]}, "
        f"measured pass rate {'not measured' if rate is None else f'{rate:.2f}'}",
        "",
        *rows,
    ]


def entry(p: Problem, n_tests: int) -> str:
    val = p.meta.get("validation", {})
    lines = [
        f"## {p.id}",
        "",
        f"source `{p.source}` · platform `{p.platform}` · label `{p.difficulty}` · "
        f"provenance `{p.meta.get('provenance', {})}`",
        "",
        "**Statement**",
        _block(p.question, 2500),
        "",
        *_tests_md(p, n_tests),
        "",
        "**Reference**",
        _block(p.reference or "(none)", 1500),
        "",
        f"**Reference verdict**: `{val.get('status', 'not validated')}` "
        f"{val.get('verdicts', '')} dropped tests {val.get('dropped_tests', [])}",
        "",
        *_evidence_md(p),
        "",
        "**Reviewer**",
        *CHECKLIST,
        "",
    ]
    return "\n".join(lines)


def spot_check(problems: list[Problem], n: int, seed: int, n_tests: int = 3) -> tuple[str, list[str]]:
    sample = random.Random(seed).sample(problems, min(n, len(problems)))
    head = [f"# Spot check: {len(sample)} of {len(problems)} problems (seed {seed})", ""]
    return "\n".join(head + [entry(p, n_tests) for p in sample]), [p.id for p in sample]
