"""MicroCoder-Evaluator: sandboxed, parallel grading with strict and robust comparators."""

from .api import VERDICTS, Evaluator, GradeRequest, GradeResult
from .comparators import COMPARATORS, LiveCodeBench, MicroCoder, make_comparator
from .extract import extract_code
from .pool import TestResult
from .problem import Problem, ProblemFormatError, TestCase, parse_problem
from .sandbox import Isolation, Limits, SandboxError

__all__ = [
    "COMPARATORS",
    "VERDICTS",
    "Evaluator",
    "GradeRequest",
    "GradeResult",
    "Isolation",
    "Limits",
    "LiveCodeBench",
    "MicroCoder",
    "Problem",
    "ProblemFormatError",
    "SandboxError",
    "TestCase",
    "TestResult",
    "extract_code",
    "make_comparator",
    "parse_problem",
]
