"""MicroCoder-Evaluator: sandboxed, parallel grading with strict and robust comparators.

Names are imported on first use (PEP 562), so that a sandbox zygote, which imports
``mcsweep.evaluator.sandbox.zygote``, does not load the grader's modules: every module in a zygote's
memory makes each of its forks (one per test) slower.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "VERDICTS": ".api",
    "Evaluator": ".api",
    "GradeRequest": ".api",
    "GradeResult": ".api",
    "COMPARATORS": ".comparators",
    "LiveCodeBench": ".comparators",
    "MicroCoder": ".comparators",
    "make_comparator": ".comparators",
    "extract_code": ".extract",
    "TestResult": ".pool",
    "Problem": ".problem",
    "ProblemFormatError": ".problem",
    "TestCase": ".problem",
    "parse_problem": ".problem",
    "Isolation": ".sandbox.limits",
    "Limits": ".sandbox.limits",
    "SandboxError": ".sandbox.limits",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name], __name__), name)
