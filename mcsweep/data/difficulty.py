"""Difficulty prediction: a weighted 5-dimension rubric scored several times per problem.

The study names only "Algorithmic Thinking" and "Implementation" and says the weights come from
Bloom's taxonomy, McCabe and Halstead, stressing reasoning and implementation over reading and
recall. `DEFAULT_RUBRIC` is mcsweep's reading of that: three more dimensions for the lower Bloom
levels (understand, remember) and for evaluation (edge cases), with most weight on the two named
ones. Dimensions and weights are configurable.

Two scorers share one interface: `LLMJudgeScorer` (an OpenAI-compatible endpoint) and
`OfflineScorer` (deterministic features, for tests and the micro world).
"""

from __future__ import annotations

import ast
import hashlib
import math
import random
import re
import statistics
from dataclasses import dataclass
from typing import Any, Protocol

from mcsweep.data.judge_client import ChatClient, ReplyParseError, parse_json_object
from mcsweep.data.schema import Problem
from mcsweep.data.text import words

SCALE = (1.0, 10.0)


@dataclass(frozen=True)
class Dimension:
    key: str
    name: str
    weight: float
    description: str


DEFAULT_RUBRIC: tuple[Dimension, ...] = (
    Dimension(
        "reading",
        "Reading comprehension",
        0.10,
        "Effort to understand what is asked: length, notation, story (Bloom: understand).",
    ),
    Dimension(
        "knowledge",
        "Knowledge recall",
        0.10,
        "How specialised the algorithms, data structures or maths to know are (Bloom: remember).",
    ),
    Dimension(
        "algorithmic_thinking",
        "Algorithmic Thinking",
        0.35,
        "Insight and analysis needed to find a correct, efficient approach (Bloom: analyse, create).",
    ),
    Dimension(
        "implementation",
        "Implementation",
        0.30,
        "Length and intricacy of a correct program: branching (McCabe), volume (Halstead).",
    ),
    Dimension(
        "edge_cases",
        "Edge cases and rigour",
        0.15,
        "Corner cases, limits and exactness the solution must handle (Bloom: evaluate).",
    ),
)


def rubric_from_config(dims: list[dict[str, Any]] | None) -> tuple[Dimension, ...]:
    if not dims:
        return DEFAULT_RUBRIC
    rubric = tuple(
        Dimension(d["key"], d.get("name", d["key"]), float(d["weight"]), d.get("description", "")) for d in dims
    )
    if sum(d.weight for d in rubric) <= 0 or any(d.weight < 0 for d in rubric):
        raise ValueError("rubric weights must be non-negative with a positive sum")
    return rubric


def weighted(scores: dict[str, float], rubric: tuple[Dimension, ...]) -> float:
    total = sum(d.weight for d in rubric)
    return sum(d.weight * scores[d.key] for d in rubric) / total


class Scorer(Protocol):
    def score(self, problem: Problem, repeat: int) -> dict[str, float]: ...


# ------------------------------------------------------------------ offline, deterministic scorer

_SEQUENCE = re.compile(r",?\s*\b(?:then|and finally|finally|after that|afterwards|next)\b", re.IGNORECASE)
_POWER = re.compile(r"10\s*\^\s*\{?\s*(\d+)\s*\}?|1e(\d+)")
_NUMBER = re.compile(r"\b\d{2,}\b")
_ALGO_MODULES = ("heapq", "bisect", "collections", "functools", "itertools", "math", "sortedcontainers")


def _scale(x: float, lo: float, hi: float) -> float:
    """Linear map of [lo, hi] onto the 1-10 scale, clipped."""
    t = 0.0 if hi == lo else (x - lo) / (hi - lo)
    return SCALE[0] + (SCALE[1] - SCALE[0]) * min(max(t, 0.0), 1.0)


def statement_features(text: str) -> dict[str, float]:
    exps = [int(a or b) for a, b in _POWER.findall(text)]
    exps += [len(n) - 1 for n in _NUMBER.findall(text)]
    return {
        "words": float(len(words(text))),
        "constraint_exp": float(max(exps, default=0)),
        "constraints": float(len(re.findall(r"\\le|<=|≤|\\leq", text))),
        "operations": float(1 + len(_SEQUENCE.findall(text))),
    }


def _loop_depth(node: ast.AST, depth: int = 0) -> int:
    here = depth + isinstance(node, ast.For | ast.While | ast.comprehension)
    return max([here, *(_loop_depth(c, here) for c in ast.iter_child_nodes(node))])


def code_features(code: str) -> dict[str, float]:
    """McCabe-style branching, a Halstead volume and loop nesting of a reference solution."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {"cyclomatic": 0.0, "halstead": 0.0, "loop_depth": 0.0, "algo_imports": 0.0, "lines": 0.0}
    nodes = list(ast.walk(tree))
    branch = (ast.If, ast.For, ast.While, ast.IfExp, ast.BoolOp, ast.ExceptHandler, ast.comprehension)
    op_kinds = ast.operator | ast.cmpop | ast.Call | ast.Subscript | ast.Assign | ast.AugAssign
    operators = [type(n).__name__ for n in nodes if isinstance(n, op_kinds)]
    operands = [ast.dump(n) for n in nodes if isinstance(n, ast.Name | ast.Constant)]
    vocab = len(set(operators)) + len(set(operands))
    imports = {a.name.split(".")[0] for n in nodes if isinstance(n, ast.Import) for a in n.names}
    imports |= {n.module.split(".")[0] for n in nodes if isinstance(n, ast.ImportFrom) and n.module}
    return {
        "cyclomatic": 1.0 + sum(isinstance(n, branch) for n in nodes),
        "halstead": (len(operators) + len(operands)) * math.log2(max(vocab, 2)),
        "loop_depth": float(_loop_depth(tree)),
        "algo_imports": float(len(imports & set(_ALGO_MODULES))),
        "lines": float(sum(1 for ln in code.splitlines() if ln.strip())),
    }


def features(problem: Problem) -> dict[str, float]:
    return {**statement_features(problem.question), **code_features(problem.reference)}


@dataclass(frozen=True)
class OfflineScorer:
    """Maps features to the default rubric's dimensions; `noise` adds seeded per-repeat jitter
    (standard deviation on the 1-10 scale) so the three repeats behave like a sampled judge."""

    noise: float = 0.0
    seed: int = 0

    def dims(self, f: dict[str, float]) -> dict[str, float]:
        return {
            "reading": _scale(math.log2(1 + f["words"]), math.log2(20), math.log2(800)),
            "knowledge": _scale(f["algo_imports"] + f["loop_depth"] / 2, 0, 4),
            "algorithmic_thinking": 0.6 * _scale(f["operations"], 1, 5)
            + 0.25 * _scale(f["constraint_exp"], 0, 18)
            + 0.15 * _scale(f["loop_depth"], 0, 3),
            "implementation": 0.5 * _scale(math.log2(1 + f["halstead"]), 4, 11) + 0.5 * _scale(f["cyclomatic"], 1, 12),
            "edge_cases": _scale(f["constraints"] + f["cyclomatic"] / 2, 0, 10),
        }

    def score(self, problem: Problem, repeat: int) -> dict[str, float]:
        out = self.dims(features(problem))
        if self.noise > 0:
            digest = hashlib.sha256(f"{self.seed}:{problem.id}:{repeat}".encode()).hexdigest()
            rng = random.Random(int(digest[:16], 16))
            out = {k: min(max(v + rng.gauss(0, self.noise), SCALE[0]), SCALE[1]) for k, v in out.items()}
        return out


# ------------------------------------------------------------------ LLM judge

JUDGE_SYSTEM = (
    "You rate the difficulty of competitive programming problems for a strong Python "
    "programmer. Be consistent across problems."
)


def judge_prompt(problem: Problem, rubric: tuple[Dimension, ...], max_chars: int = 6000) -> str:
    dims = "\n".join(f"- {d.key} ({d.name}): {d.description}" for d in rubric)
    keys = ", ".join(f'"{d.key}": <1-10>' for d in rubric)
    ref = ""
    if problem.reference:
        ref = f"\n\nReference solution:\n```python\n{problem.reference[:max_chars]}\n```"
    return (
        f"Problem:\n{problem.question[:max_chars]}{ref}\n\nRate each dimension from 1 (trivial) "
        f"to 10 (hardest contest level):\n{dims}\n\nAnswer with only a JSON object: {{{keys}}}"
    )


def parse_scores(text: str, rubric: tuple[Dimension, ...]) -> dict[str, float]:
    obj = parse_json_object(text)
    out = {}
    for d in rubric:
        value = obj.get(d.key)
        if not isinstance(value, int | float) or not SCALE[0] <= value <= SCALE[1]:
            raise ReplyParseError(f"dimension '{d.key}' missing or outside 1-10: {value!r}")
        out[d.key] = float(value)
    return out


@dataclass
class LLMJudgeScorer:
    client: ChatClient
    rubric: tuple[Dimension, ...] = DEFAULT_RUBRIC

    def score(self, problem: Problem, repeat: int) -> dict[str, float]:
        messages = [
            {"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": judge_prompt(problem, self.rubric)},
        ]
        return self.client.call(messages, lambda texts: parse_scores(texts[0], self.rubric))


def score_problem(problem: Problem, scorer: Scorer, rubric: tuple[Dimension, ...], repeats: int = 3) -> dict[str, Any]:
    """The record kept as difficulty evidence: every sample, and the mean of the weighted scores."""
    samples = [scorer.score(problem, r) for r in range(repeats)]
    totals = [weighted(s, rubric) for s in samples]
    return {
        "id": problem.id,
        "samples": samples,
        "weighted": totals,
        "score": statistics.fmean(totals),
        "std": statistics.pstdev(totals) if len(totals) > 1 else 0.0,
    }
