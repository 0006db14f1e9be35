"""Read a sweep's axis values (the arms) the way the study names them.

The sweeps write each run's option into run_card.json ``axes``; these parsers accept the names the
study uses plus short aliases, so a check can find "the robust evaluator" or "the 30% mask" arm.
Staged schedules are written ``a->b@step`` (switch at ``step``), continuous ramps ``a~b``.
``describe`` turns a run's resolved config section into that grammar, so option names that carry
no numbers (``micro_extend``, ``micro_tb4``) still order and pair correctly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

ALIASES: dict[str, set[str]] = {
    "robust": {"microcoder", "robust", "mc"},
    "lcb": {"livecodebench", "lcb"},
    "hard": {"microcoder", "hard", "microcoder_data", "micro_hard"},
    "easy": {"deepcoder", "easy", "deepcoder_data", "micro_easy"},
    "kl": {"kl", "kl_loss", "grpo_kl"},
    "clip_high": {"clip_high", "clip-high", "no_kl_clip_high", "nokl_cliphigh"},
    "no_mask": {"none", "no_mask", "nomask", "off"},
    "conditional": {"conditional", "cond", "cond_mask"},
    "mask_all": {"all", "mask_all", "maskall"},
}
DEFAULT_RHO = 0.3  # the conditional mask's rate in MicroCoder-GRPO
_NUM = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(k?)\s*$", re.IGNORECASE)
_STAGED = re.compile(r"^(.+?)\s*->\s*(.+?)(?:\s*@\s*(\d+))?$")
_RAMP = re.compile(r"^(?:ramp[:_]?)?(.+?)\s*~\s*(.+?)$")
_RATE = re.compile(r"^(?:rate|mask|conditional)?[_:]?(\d+(?:\.\d+)?)(%?)$", re.IGNORECASE)


def find(arms: list[str], role: str) -> str | None:
    """The arm whose name is one of ``role``'s aliases (case-insensitive)."""
    return next((a for a in arms if a.strip().lower() in ALIASES[role]), None)


def conditional_at_default_rho(arms: list[str]) -> str | None:
    """A sweep of conditional-mask rates ('conditional_0.1'...) holds the conditional mask itself as
    the rate at the study's default rho."""
    return next((a for a in arms if a.lower().startswith("conditional") and mask_amount(a) == DEFAULT_RHO), None)


def number(arm: str) -> float | None:
    """'0.6' -> 0.6, '8k' -> 8192, '256' -> 256; None for anything else."""
    m = _NUM.match(arm)
    if not m:
        return None
    return float(m.group(1)) * (1024 if m.group(2) else 1)


@dataclass(frozen=True)
class Staged:
    start: float
    end: float
    at: int | None


def staged(arm: str) -> Staged | None:
    """'0.6->1.8@140' -> Staged(0.6, 1.8, 140); None when not a staged schedule."""
    m = _STAGED.match(arm)
    if not m or number(m.group(1)) is None or number(m.group(2)) is None:
        return None
    return Staged(number(m.group(1)), number(m.group(2)), int(m.group(3)) if m.group(3) else None)


def is_ramp(arm: str) -> bool:
    return bool(_RAMP.match(arm)) and "->" not in arm


def mask_amount(arm: str) -> float | None:
    """Share of truncated responses masked: no mask 0, 'Mask 30%' 0.3, mask all 1; None for conditional."""
    if find([arm], "no_mask"):
        return 0.0
    if find([arm], "mask_all"):
        return 1.0
    m = _RATE.match(arm.strip().replace(" ", ""))
    if not m or find([arm], "conditional"):
        return None
    value = float(m.group(1))
    return value / 100 if m.group(2) or value > 1 else value


def fixed(arms: list[str]) -> list[tuple[float, str]]:
    """(value, arm) for the arms that are a single number, in increasing order."""
    return sorted((number(a), a) for a in arms if number(a) is not None)


def _g(x: Any) -> str:
    return f"{float(x):g}"


def describe(axis: str, option: str, section: Any) -> str:
    """The arm as the checks read it, from the axis's resolved config section (option name if none).

    temperature: fixed ``0.6``, staged ``0.6->1.8@140``, ramp ``0.6~1.8``; context: ``160`` or
    ``112->224@20``; batch: the train batch ``8``. Other axes keep the option name.
    """
    sec = section if isinstance(section, dict) else {}
    try:
        if axis == "temperature" and sec.get("kind") in ("fixed", "staged", "ramp"):
            return _temperature(sec)
        if axis == "context" and sec.get("max_completion_length"):
            base = str(int(sec["max_completion_length"]))
            return f"{base}->{int(sec['extend_to'])}@{int(sec['extend_at_step'])}" if sec.get("extend_to") else base
        if axis == "batch" and sec.get("train_batch"):
            return str(int(sec["train_batch"]))
    except (KeyError, TypeError, ValueError, IndexError):
        pass
    return _from_name(option)


_NAMED = (
    (re.compile(r"^fixed_(\d+(?:\.\d+)?)$"), "{0}"),
    (re.compile(r"^staged_(\d+(?:\.\d+)?)_(\d+(?:\.\d+)?)$"), "{0}->{1}"),
    (re.compile(r"^ramp_(\d+(?:\.\d+)?)_(\d+(?:\.\d+)?)$"), "{0}~{1}"),
    (re.compile(r"^micro_tb(\d+)$"), "{0}"),
)


def _from_name(option: str) -> str:
    """Numbers read from option names (``fixed_0.6``, ``staged_0.6_1.8``, ``micro_tb4``) when no config
    section has them, e.g. from W&B, whose client unwraps nested dicts that have a ``value`` key."""
    for pattern, fmt in _NAMED:
        if m := pattern.match(option):
            return fmt.format(*m.groups())
    return option


def _temperature(sec: dict[str, Any]) -> str:
    if sec["kind"] == "fixed":
        return _g(sec["value"])
    step, last = sec["stages"][-1]
    if sec["kind"] == "ramp":
        return f"{_g(sec['value'])}~{_g(last)}"
    return f"{_g(sec['value'])}->{_g(last)}@{int(step)}"
