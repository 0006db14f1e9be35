"""Run identity: a short hash of what a run computes, so that re-running a sweep finds its runs.

As Dora's signature does, the hash covers the resolved config minus the keys that only say where or
how a run is launched and logged; changing the launcher, the tracker or the run store's location
keeps the id (and so the run folder and the W&B run id), changing any training knob changes it.
`sweep_name` is kept: the same point in two sweeps gets two run folders, so it needs two ids.
A micro-world run also hashes the micro policy's build version: a new build recipe is a new starting
policy, and its runs must not find the old policy's finished runs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from mcsweep.micro.policy import BUILD_VERSION

# Top-level keys that do not change what a run computes.
EXCLUDED_KEYS: tuple[str, ...] = (
    "hydra",  # Hydra's own node (present in a sweeper's composed config)
    "launcher",  # where and with how many threads the run executes
    "tracker",  # W&B project, mode
    "logging",
    "runs_root",  # where the run store lives
    "local",  # machine-specific settings (conf/local/, git-ignored): partition, account
    "dry_run",  # a sweeper flag
    "optimized_metric",  # what an Optuna sweep reads back, not what the run does
)
ID_LENGTH = 12


def run_id(cfg: DictConfig, excluded: Iterable[str] = EXCLUDED_KEYS) -> str:
    """12 hex characters of the SHA-1 of the resolved config without `excluded` top-level keys.

    Raises omegaconf's MissingMandatoryValue (naming the key) if a kept value is still `???`."""
    skip = set(excluded)
    # Key by key, against the full config: interpolations into excluded keys still resolve, and
    # Hydra-only resolvers in excluded keys (`${now:}` in hydra.run.dir) are never evaluated.
    resolved = {str(k): _resolve(cfg, str(k)) for k in cfg if k not in skip}
    if isinstance(resolved.get("model"), dict) and resolved["model"].get("kind") == "micro":
        resolved["micro_policy_build"] = BUILD_VERSION
    text = json.dumps(resolved, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:ID_LENGTH]


def _resolve(cfg: DictConfig, key: str) -> object:
    value = cfg[key]
    if OmegaConf.is_config(value):
        return OmegaConf.to_container(value, resolve=True, throw_on_missing=True, enum_to_str=True)
    return value


def run_dir(cfg: DictConfig) -> Path:
    """`<runs_root>/<sweep_name>/<run_id>`: the run store's folder for this config."""
    return Path(str(cfg.runs_root)) / str(cfg.sweep_name) / run_id(cfg)
