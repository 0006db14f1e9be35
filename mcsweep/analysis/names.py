"""One map between mcsweep/TRL metric names and verl's, so runs from either trainer load alike.

mcsweep's names are TRL's where TRL has them (see docs/ARCHITECTURE.md). TRL's W&B logging prefixes
training metrics with ``train/``; verl logs its own names. Names that no rule covers keep their
name, and the loader reports them, so nothing is renamed or dropped silently.
"""

from __future__ import annotations

import re

VERL_TO_MCSWEEP: dict[str, str] = {
    "critic/score/mean": "reward",
    "response_length/mean": "completions/mean_length",
    "response_length/max": "completions/max_length",
    "response_length/clip_ratio": "completions/clipped_ratio",
    "actor/entropy": "entropy",
    "actor/kl_loss": "kl",
    "actor/pg_clipfrac": "clip_ratio/region_mean",
    "timing_s/gen": "time/generation_s",
    "timing_s/reward": "time/reward_s",
    "timing_s/update_actor": "time/update_s",
    "perf/max_memory_allocated_gb": "memory/max_allocated_gb",
}
"""verl name -> mcsweep name. verl's ``pg_clipfrac`` counts tokens clipped on either side, as TRL's
``clip_ratio/region_mean`` does."""

MCSWEEP_TO_VERL: dict[str, str] = {v: k for k, v in VERL_TO_MCSWEEP.items()}

_VERL_VAL = re.compile(r"^val(?:-core)?/[^/]+/(?:reward|acc|score)/mean@\d+$")
"""verl's validation accuracy (``val-core/<data_source>/acc/mean@4``) is test pass@1."""

EVAL_VIEWS: dict[str, str] = {"train_length": "evals@train/", "common_length": "evals@common/"}
"""evals.jsonl flags -> the metric prefix their row is also given: the run's current training length
(after any extension) and the sweep-wide common evaluation length, so checks compare arms on one length.
W&B gets these keys too, so a dashboard can plot them."""

STEP_KEYS: tuple[str, ...] = ("step", "train/global_step", "training/global_step", "trainer/global_step")
"""Where the trainer step lives, in order of preference. W&B's ``_step`` counts log calls instead."""

_WANDB_INTERNAL = re.compile(r"^_|^system/|^(?:train/|training/)?(?:global_step|epoch)$")


def canonical(name: str) -> str:
    """The mcsweep name for a metric name written by mcsweep, TRL (W&B or not) or verl."""
    if name in VERL_TO_MCSWEEP:
        return VERL_TO_MCSWEEP[name]
    if _VERL_VAL.match(name):
        return "eval/pass@1"
    if name.startswith("train/"):
        return name.removeprefix("train/")
    return name


def to_verl(name: str) -> str:
    """verl's name for an mcsweep metric, or the name itself where verl has none."""
    return MCSWEEP_TO_VERL.get(name, name)


def is_bookkeeping(name: str) -> bool:
    """True for W&B/trainer bookkeeping keys (``_step``, ``_runtime``, global step) that are not metrics."""
    return bool(_WANDB_INTERNAL.match(name)) or name in STEP_KEYS


KNOWN_METRICS: frozenset[str] = frozenset(
    {
        "reward",
        "completions/mean_length",
        "completions/max_length",
        "completions/clipped_ratio",
        "entropy",
        "kl",
        "clip_ratio/low_mean",
        "clip_ratio/high_mean",
        "clip_ratio/region_mean",
        "frac_reward_zero_std",
        "diversity/group_4gram",
        "diversity/per_sample_4gram",
        "diversity/within_distinct2",
        "temperature",
        "time/generation_s",
        "time/reward_s",
        "time/update_s",
        "time/logprob_s",
        "mask/truncated",
        "mask/non_incorrect",
        "mask/repetitive",
        "mask/masked",
        "mask/masked_frac",
        "mask/masked_token_frac",
        "mask/repetitive_literal",
        "mask/repetitive_any_period",
        "overlong/penalised_frac",
        "reward/duplicate_share",
        "eval/pass@1",
        "eval/pass@1_ext",
        "eval/pass@1_common",
        "memory/max_allocated_gb",
        "eval/diversity",
        "time/step_s",
        "rollout/updates_per_rollout",
    }
)
"""Metric names documented in docs/ARCHITECTURE.md, plus the memory metric figure 6_4 needs."""


def is_known(name: str) -> bool:
    """True when ``name`` (already canonical) is a documented mcsweep metric."""
    prefixes = ("reward/shadow_", "reward/disagreement_", "evals/", "evals@", "eval/pass@1_len")
    return name in KNOWN_METRICS or name.startswith(prefixes)
