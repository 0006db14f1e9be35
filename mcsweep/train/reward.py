"""The training reward: run the extracted code against the problem's hidden tests (binary).

A TRL reward function (a callable taking completions and dataset columns). It never executes code
itself: the sandboxed evaluator does. It keeps the last rollout's verdicts so the truncation mask
and the run store can read them, and logs the shadow comparator's verdicts when asked (the
`evaluator` axis: disagreement between comparators becomes a metric).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from trl.rewards import get_soft_overlong_punishment

from mcsweep.evaluator import Evaluator, GradeRequest
from mcsweep.train.chat_format import PLAIN, ChatFormat


@dataclass
class RewardRecord:
    ids: list[str]
    verdicts: list[str]
    rewards: list[float]
    shadow: dict[str, list[bool]] = field(default_factory=dict)
    seconds: float = 0.0
    duplicates: int = 0  # completions whose code repeated another's (graded once: evaluator.dedupe)


def completion_text(completion) -> str:
    """TRL passes conversational completions as message lists, plain ones as strings."""
    return completion[0]["content"] if isinstance(completion, list) else completion


class ExecutionReward:
    """Binary pass-all-tests reward through the sandboxed evaluator."""

    __name__ = "execution"

    def __init__(self, evaluator: Evaluator, chat: ChatFormat = PLAIN) -> None:
        self.evaluator = evaluator
        self.chat = chat  # how the prompts left the reasoning: a completion may start inside it
        self.last: RewardRecord | None = None
        self.total_seconds = 0.0

    def __call__(self, prompts, completions, input_output, problem_id, trainer_state=None, **_) -> list[float]:
        start = time.perf_counter()
        ids = [f"{pid}#{i}" for i, pid in enumerate(problem_id)]
        requests = [
            GradeRequest(id=i, completion=self.chat.graded_text(completion_text(c)), input_output=io)
            for i, c, io in zip(ids, completions, input_output, strict=True)
        ]
        duplicates = self.evaluator.duplicates
        results = self.evaluator.grade_many(requests)
        duplicates = self.evaluator.duplicates - duplicates
        rewards = [1.0 if r.passed else 0.0 for r in results]
        names = sorted({k for r in results for k in (r.shadow or {})})
        shadow = {n: [bool((r.shadow or {}).get(n, False)) for r in results] for n in names}
        seconds = time.perf_counter() - start
        self.total_seconds += seconds
        self.last = RewardRecord(ids, [r.verdict for r in results], rewards, shadow, seconds, duplicates)
        return rewards

    def judge_metrics(self) -> dict[str, float]:
        """For the last rollout: each shadow's pass rate and how often it disagrees with the primary
        verdict, and the share of completions graded by an identical one's run."""
        if self.last is None:
            return {}
        out = {"reward/duplicate_share": self.last.duplicates / max(1, len(self.last.rewards))}
        for name, passed in self.last.shadow.items():
            n = len(passed)
            out[f"reward/shadow_{name}"] = sum(passed) / n
            out[f"reward/disagreement_{name}"] = (
                sum(p != (r > 0) for p, r in zip(passed, self.last.rewards, strict=True)) / n
            )
        return out


class ScaledOverlongPunishment:
    """DAPO's soft overlong punishment (TRL's formula) with its buffer a fraction of the max length.

    DAPO uses 4096 of 20480 tokens (0.2); a fixed token count does not carry over between scales.
    The trainer sets `max_completion_len` on context extension, and the buffer follows it."""

    __name__ = "soft_overlong_punishment_reward"

    def __init__(self, max_completion_len: int, buffer_frac: float) -> None:
        self.max_completion_len, self.buffer_frac = max_completion_len, buffer_frac

    @property
    def buffer(self) -> int:
        return max(1, round(self.buffer_frac * self.max_completion_len))

    @property
    def penalty_start(self) -> int:
        """Responses longer than this many tokens are penalised."""
        return self.max_completion_len - self.buffer

    def __call__(self, completion_ids: list[list[int]], **kwargs) -> list[float]:
        return get_soft_overlong_punishment(self.max_completion_len, self.buffer)(completion_ids)


def check_natural_length(lengths: list[int], shaping: ScaledOverlongPunishment, threshold: float = 0.5) -> str | None:
    """A message when more than `threshold` of a rollout's responses already sit in the penalty zone.

    Run on the first rollout: the shaping should only punish overlong answers, not shorten the
    policy's natural ones (at micro scale a 32-token buffer did, and length and pass@1 collapsed)."""
    inside = sum(n > shaping.penalty_start for n in lengths) / max(len(lengths), 1)
    if inside <= threshold:
        return None
    return (
        f"DAPO overlong shaping: {inside:.0%} of the first rollout's responses are longer than the penalty's "
        f"start ({shaping.penalty_start} of {shaping.max_completion_len} tokens, buffer {shaping.buffer}); "
        "the shaping would shorten the policy's natural answers. Raise context.max_completion_length or "
        "lower algo.overlong_buffer_frac (algo.overlong_start_check=warn|off to go on anyway)"
    )
