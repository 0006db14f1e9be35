"""Truncation masking of GRPO advantages (the `masking` axis).

Definitions used throughout mcsweep:
- truncated: the response reached the max completion length without an EOS token, measured in
  tokens (the last completion token is neither EOS nor pad), identically on the HF and vLLM paths.
- repeat(o, m) (`repeat_detector: literal`, the paper's): the last m tokens of o equal the m tokens
  before them. It sees only loops whose period divides m.
- `any_period` (default): the last 2m tokens are periodic with some period p <= m (token i equals
  token i + p throughout), so a loop of any period up to m is seen; for p = m it is repeat(o, m).
  Both are logged (`mask/repetitive_literal`, `mask/repetitive_any_period`), the chosen one decides.
- non-incorrect (the sources leave it undefined; selectable):
  - `no_answer` (default): the evaluator found no gradable answer before the cut (verdict `no_code`:
    the code block never closed), so the response was not shown to be wrong.
  - `unparsable`: `no_code` or `compile_error`: nothing that ran.
  - `not_wrong_answer`: any verdict but `wrong_answer` (timeouts and crashes count as non-incorrect).

Modes: `none`; `all` (DeepCoder: every truncated response gets advantage 0); `all_failed` (rllm's
`mask_truncated_samples`: truncated responses that scored 0); `conditional` (MicroCoder):
A_i *= 1 - 1[truncated AND non-incorrect AND NOT repeat AND U < rho].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

NON_INCORRECT_VERDICTS = {
    "no_answer": frozenset({"no_code"}),
    "unparsable": frozenset({"no_code", "compile_error"}),
    "not_wrong_answer": frozenset(
        {"accepted", "no_code", "compile_error", "runtime_error", "time_limit", "memory_limit"}
    ),
}


@dataclass(frozen=True)
class MaskDecision:
    """Per-response flags, kept so that every decision can be logged and replayed."""

    truncated: np.ndarray
    non_incorrect: np.ndarray
    repetitive: np.ndarray  # by the chosen detector
    masked: np.ndarray
    repetitive_literal: np.ndarray | None = None
    repetitive_any_period: np.ndarray | None = None


def is_truncated(ids: Sequence[int], stop_ids: Sequence[int]) -> bool:
    return len(ids) > 0 and ids[-1] not in stop_ids


def is_repeat(ids: Sequence[int], m: int) -> bool:
    return len(ids) >= 2 * m and list(ids[-m:]) == list(ids[-2 * m : -m])


def is_periodic_tail(ids: Sequence[int], m: int) -> bool:
    """The last 2m tokens have some period p in [1, m]: a loop of any period up to m at the cut."""
    if len(ids) < 2 * m:
        return False
    tail = np.asarray(ids[-2 * m :])
    return any(np.array_equal(tail[p:], tail[:-p]) for p in range(1, m + 1))


REPEAT_DETECTORS = {"literal": is_repeat, "any_period": is_periodic_tail}


def mask_draws(seed: int, step: int, process: int, n: int) -> np.ndarray:
    """U(0,1) draws keyed by (seed, step of the rollout, process), so a resumed or replayed run masks the
    same responses and GPU processes draw independently."""
    return np.random.default_rng([seed, step, process]).random(n)


def decide(
    completion_ids: Sequence[Sequence[int]],
    verdicts: Sequence[str],
    rewards: Sequence[float],
    *,
    mode: str,
    rho: float,
    non_incorrect: str,
    repeat_window: int,
    stop_ids: Sequence[int],
    draws: np.ndarray,
    repeat_detector: str = "any_period",
) -> MaskDecision:
    """Which responses get their advantage zeroed under `mode`."""
    truncated = np.array([is_truncated(ids, stop_ids) for ids in completion_ids], dtype=bool)
    allowed = NON_INCORRECT_VERDICTS[non_incorrect]
    non_inc = np.array([v in allowed for v in verdicts], dtype=bool)
    found = {
        name: np.array([detect(ids, repeat_window) for ids in completion_ids], dtype=bool)
        for name, detect in REPEAT_DETECTORS.items()
    }
    if repeat_detector not in found:
        raise ValueError(f"unknown repeat detector {repeat_detector!r}; one of {sorted(found)}")
    rep = found[repeat_detector]
    if mode == "none":
        masked = np.zeros_like(truncated)
    elif mode == "all":
        masked = truncated.copy()
    elif mode == "all_failed":
        masked = truncated & (np.asarray(rewards) <= 0)
    elif mode == "conditional":
        masked = truncated & non_inc & ~rep & (np.asarray(draws) < rho)
    else:
        raise ValueError(f"unknown masking mode {mode!r}")
    return MaskDecision(truncated, non_inc, rep, masked, found["literal"], found["any_period"])


def apply(advantages: torch.Tensor, decision: MaskDecision) -> torch.Tensor:
    """A_i * (1 - mask_i); a new tensor, the input is left untouched."""
    keep = torch.as_tensor(~decision.masked, dtype=advantages.dtype, device=advantages.device)
    return advantages * keep


def group_stats(decision: MaskDecision, group_size: int) -> dict[str, float]:
    """Per-prompt-group counts averaged over the groups of one rollout, plus the masked fraction."""

    def per_group(x: np.ndarray) -> float:
        return float(x.reshape(-1, group_size).sum(axis=1).mean())

    return {
        "mask/truncated": per_group(decision.truncated),
        "mask/non_incorrect": per_group(decision.truncated & decision.non_incorrect),
        "mask/repetitive": per_group(decision.truncated & decision.repetitive),
        **{
            f"mask/repetitive_{name}": per_group(decision.truncated & flags)
            for name, flags in (
                ("literal", decision.repetitive_literal),
                ("any_period", decision.repetitive_any_period),
            )
            if flags is not None
        },
        "mask/masked": per_group(decision.masked),
        "mask/masked_frac": float(decision.masked.mean()),
    }
