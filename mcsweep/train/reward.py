"""The training reward: run the extracted code against the problem's hidden tests (binary).

A TRL reward function (a callable taking completions and dataset columns). It never executes code
itself: the sandboxed evaluator does. It keeps the last rollout's verdicts so the truncation mask
and the run store can read them, and logs the shadow comparator's verdicts when asked (the
`evaluator` axis: disagreement between comparators becomes a metric).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from mcsweep.evaluator import Evaluator, GradeRequest


@dataclass
class RewardRecord:
    ids: list[str]
    verdicts: list[str]
    rewards: list[float]
    shadow: dict[str, list[bool]] = field(default_factory=dict)
    seconds: float = 0.0


def completion_text(completion) -> str:
    """TRL passes conversational completions as message lists, plain ones as strings."""
    return completion[0]["content"] if isinstance(completion, list) else completion


class ExecutionReward:
    """Binary pass-all-tests reward through the sandboxed evaluator."""

    __name__ = "execution"

    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator
        self.last: RewardRecord | None = None
        self.total_seconds = 0.0

    def __call__(self, prompts, completions, input_output, problem_id, trainer_state=None, **_) -> list[float]:
        start = time.perf_counter()
        ids = [f"{pid}#{i}" for i, pid in enumerate(problem_id)]
        requests = [
            GradeRequest(id=i, completion=completion_text(c), input_output=io)
            for i, c, io in zip(ids, completions, input_output, strict=True)
        ]
        results = self.evaluator.grade_many(requests)
        rewards = [1.0 if r.passed else 0.0 for r in results]
        names = sorted({k for r in results for k in (r.shadow or {})})
        shadow = {n: [bool((r.shadow or {}).get(n, False)) for r in results] for n in names}
        seconds = time.perf_counter() - start
        self.total_seconds += seconds
        self.last = RewardRecord(ids, [r.verdict for r in results], rewards, shadow, seconds)
        return rewards

    def shadow_metrics(self) -> dict[str, float]:
        """Shadow pass rate and how often it disagrees with the primary verdict, for the last rollout."""
        out: dict[str, float] = {}
        if self.last is None:
            return out
        for name, passed in self.last.shadow.items():
            n = len(passed)
            out[f"reward/shadow_{name}"] = sum(passed) / n
            out[f"reward/disagreement_{name}"] = (
                sum(p != (r > 0) for p, r in zip(passed, self.last.rewards, strict=True)) / n
            )
        return out
