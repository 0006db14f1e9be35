"""Arms as typed records: what each run of a sweep varied, read once by the loader, used by the checks.

The trainer writes each axis's config option name into run_card.json ``axes`` and the resolved config
into config.yaml. ``arm_of`` turns (axis, option, config section) into an ``Arm``: its ``kind`` (a role
such as the comparator, or fixed/staged/ramp), its number (temperature, length, train batch, mask
rate) and its ``Schedule``. Sources without the config section (W&B, whose client unwraps nested
dicts with a ``value`` key; simulated stores) fall back to ``_from_name``, the one place option names
are read. ``Arm.label`` is the name the frame, figures and reports show: ``0.6``, ``0.6->1.8@140``,
``0.6~1.8``, ``112->224@20``, ``8``, or the option name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

AXIS_OF_SWEEP: dict[str, str] = {
    "evaluator": "evaluator",
    "temperature": "temperature",
    "temperature_schedules": "temperature",
    "data": "data",
    "context": "context",
    "masking": "masking",
    "batch": "batch",
    "kl_clip": "kl_clip",
}
"""The axis each analysis sweep varies (table1 and seeds vary none)."""
NUMERIC_AXES = ("temperature", "context", "batch")
DEFAULT_RHO = 0.3
"""The conditional mask's rate in MicroCoder-GRPO."""

FIXED, STAGED, RAMP = "fixed", "staged", "ramp"
ROLE_OF_NAME: dict[str, dict[str, str]] = {
    "evaluator": {"microcoder": "microcoder", "livecodebench": "livecodebench"},
    "data": {"hard": "hard", "micro_hard": "hard", "microcoder": "hard", "easy": "easy", "deepcoder": "easy"},
    "kl_clip": {"kl": "kl", "no_kl_clip_high": "clip_high", "clip_high": "clip_high"},
}
"""Option names (mcsweep's, and the study's dataset names in simulated stores) -> the arm's role."""
MASK_OF_NAME: dict[str, tuple[str, float | None]] = {
    "none": ("none", 0.0),
    "all": ("all", 1.0),
    "all_failed": ("all_failed", None),
    "conditional": ("conditional", None),
}
"""Masking option -> (mode, share of truncated responses masked). The plain ``conditional`` option is
MicroCoder-GRPO's mask, not a point of the rate grid (``conditional_0.1``... or the study's ``10%``)."""


NUMBER_WORD = {"temperature": "t =", "context": "L_max", "batch": "train batch"}
ROLE_WORD: dict[tuple[str, str | None], str] = {
    ("masking", "none"): "No mask",
    ("masking", "all"): "Mask all",
    ("masking", "conditional"): "Conditional",
    ("masking", "all_failed"): "Mask all failed",
    ("kl_clip", "kl"): "KL loss",
    ("kl_clip", "clip_high"): "No KL + clip-high",
    ("evaluator", "microcoder"): "Robust (MicroCoder)",
    ("evaluator", "livecodebench"): "LiveCodeBench",
}
"""The study's names of arms (its figures' legends), by (axis, kind)."""


@dataclass(frozen=True)
class Schedule:
    """A value that changes during training: a discrete switch (staged) at ``at``, or a ramp."""

    kind: str
    start: float
    end: float
    at: int | None = None


@dataclass(frozen=True)
class Arm:
    """One arm of a sweep: the axis, the config option, its role or shape, its number and schedule."""

    axis: str
    option: str
    kind: str | None = None
    value: float | None = None
    schedule: Schedule | None = None

    @property
    def label(self) -> str:
        if self.schedule is not None:
            s = self.schedule
            if s.kind == RAMP:
                return f"{_g(s.start)}~{_g(s.end)}"
            return f"{_g(s.start)}->{_g(s.end)}" + (f"@{s.at}" if s.at is not None else "")
        if self.axis in NUMERIC_AXES and self.kind == FIXED and self.value is not None:
            return _g(self.value)
        return self.option

    @property
    def display(self) -> str:
        """The arm in the study's words, for legends and tables: ``t = 0.6``, ``0.6 -> 1.8 @ 20``,
        ``Mask 10%``, ``No KL + clip-high``; the option name where the study has no word for it."""
        if self.schedule is not None:
            s = self.schedule
            if s.kind == RAMP:
                return f"{_g(s.start)} ~ {_g(s.end)} (ramp)"
            return f"{_g(s.start)} -> {_g(s.end)}" + (f" @ {s.at}" if s.at is not None else "")
        if self.axis in NUMERIC_AXES and self.kind == FIXED and self.value is not None:
            return f"{NUMBER_WORD[self.axis]} {_g(self.value)}"
        if self.axis == "masking" and self.kind == "conditional" and self.value is not None:
            return f"Mask {self.value * 100:g}%"
        return ROLE_WORD.get((self.axis, self.kind), self.option)

    def __str__(self) -> str:
        return self.label


def _g(x: float) -> str:
    return f"{float(x):g}"


def arm_of(axis: str, option: str, section: Any = None) -> Arm:
    """The arm from the axis's resolved config section, or from the option name when there is none."""
    sec = section if isinstance(section, dict) else {}
    try:
        arm = _from_config(axis, option, sec) if sec else None
    except (KeyError, TypeError, ValueError, IndexError):
        arm = None
    return arm or _from_name(axis, option)


def _from_config(axis: str, option: str, sec: dict[str, Any]) -> Arm | None:
    if axis == "temperature" and sec.get("kind") in (FIXED, STAGED, RAMP):
        if sec["kind"] == FIXED:
            return Arm(axis, option, FIXED, float(sec["value"]))
        step, last = sec["stages"][-1]
        at = None if sec["kind"] == RAMP else int(step)
        return Arm(
            axis, option, sec["kind"], float(sec["value"]), Schedule(sec["kind"], float(sec["value"]), float(last), at)
        )
    if axis == "context" and sec.get("max_completion_length"):
        start = float(sec["max_completion_length"])
        if sec.get("extend_to"):
            return Arm(
                axis,
                option,
                STAGED,
                start,
                Schedule(STAGED, start, float(sec["extend_to"]), int(sec["extend_at_step"])),
            )
        return Arm(axis, option, FIXED, start)
    if axis == "batch" and sec.get("train_batch"):
        return Arm(axis, option, FIXED, float(sec["train_batch"]))
    if axis == "masking" and sec.get("mode"):
        mode = str(sec["mode"])
        amount = {"none": 0.0, "all": 1.0}.get(mode)
        if mode == "conditional" and option != "conditional":
            amount = float(sec["rho"])
        return Arm(axis, option, mode, amount)
    if axis == "evaluator" and sec.get("comparator"):
        return Arm(axis, option, str(sec["comparator"]))
    if axis == "kl_clip" and "beta" in sec:
        return Arm(axis, option, "kl" if float(sec["beta"]) > 0 else "clip_high")
    return None


_NUM = r"(\d+(?:\.\d+)?k?)"
_NAME_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"^(?:fixed_)?{_NUM}$", re.IGNORECASE), FIXED),
    (re.compile(rf"^micro_tb{_NUM}$"), FIXED),
    (re.compile(rf"^(?:staged_)?{_NUM}(?:->|_){_NUM}(?:@(\d+))?$", re.IGNORECASE), STAGED),
    (re.compile(rf"^(?:ramp_){_NUM}_{_NUM}$|^{_NUM}~{_NUM}$", re.IGNORECASE), RAMP),
)
_RATE = re.compile(r"^(?:conditional_)?(\d+(?:\.\d+)?)(%?)$")


def number(text: str) -> float:
    """'0.6' -> 0.6, '8k' -> 8192, '256' -> 256."""
    return float(text[:-1]) * 1024 if text.lower().endswith("k") else float(text)


def _from_name(axis: str, option: str) -> Arm:
    """The arm read from its option name (``fixed_0.6``, ``staged_0.6_1.8``, ``0.6->1.8@30``, ``micro_tb4``,
    ``conditional_0.1``, ``10%``); an arm with no kind when the name says nothing known."""
    name = option.strip()
    if axis in ROLE_OF_NAME:
        return Arm(axis, option, ROLE_OF_NAME[axis].get(name.lower()))
    if axis == "masking":
        return _mask_from_name(option, name.lower())
    if axis in NUMERIC_AXES:
        for pattern, kind in _NAME_PATTERNS:
            if m := pattern.match(name):
                nums = [g for g in m.groups() if g is not None]
                if kind == FIXED:
                    return Arm(axis, option, FIXED, number(nums[0]))
                at = int(nums[2]) if kind == STAGED and len(nums) > 2 else None
                return Arm(axis, option, kind, number(nums[0]), Schedule(kind, number(nums[0]), number(nums[1]), at))
    return Arm(axis, option)


def _mask_from_name(option: str, name: str) -> Arm:
    if name in MASK_OF_NAME:
        mode, amount = MASK_OF_NAME[name]
        return Arm("masking", option, mode, amount)
    if m := _RATE.match(name.replace("mask", "").replace(" ", "")):
        value = float(m.group(1))
        return Arm("masking", option, "conditional", value / 100 if m.group(2) or value > 1 else value)
    return Arm("masking", option)
