"""Run identity: a short hash of what a run computes, so that re-running a sweep finds its runs.

As Dora's signature does, the hash covers the resolved config minus the keys that only say where or
how a run is launched and logged; changing the launcher, the tracker or the run store's location
keeps the id (and so the run folder and the W&B run id), changing any training knob changes it.
`sweep_name` is kept: the same point in two sweeps gets two run folders, so it needs two ids; the
config key (`config_key`) leaves it out, so those two folders share one key.
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

# The one declared list of keys that only say where or how a run executes, is launched or is logged:
# none of them changes what the run computes, so none is hashed. Dotted paths reach into groups.
EXCLUDED_KEYS: tuple[str, ...] = (
    "hydra",  # Hydra's own node (present in a sweeper's composed config)
    "launcher",  # where and with how many threads the run executes
    "tracker",  # W&B project, mode
    "logging",
    "runs_root",  # where the run store lives
    "local",  # machine-specific settings (conf/local/, git-ignored): partition, account
    "dry_run",  # a sweeper flag
    "optimized_metric",  # what an Optuna sweep reads back, not what the run does
    "rollout.server_host",  # where the vLLM server runs (a requeued job may land on another node)
    "rollout.server_port",
    "rollout.gpu_memory_utilization",  # vLLM's memory fraction
    "rollout.tensor_parallel_size",  # how many GPUs one vLLM replica spans
    "evaluator.workers",  # sandbox worker processes
    "train.micro_batch",  # sequences per forward; the update's batch is the batch axis
    "train.gradient_checkpointing",  # recomputes activations, same gradients
    "model.attn_implementation",  # sdpa / flash_attention_2: same attention
)
# Knobs added after runs existed, with the value every earlier run had without the key: hashed only
# when set otherwise, so that adding a knob does not change the id (and lose the runs) of every run.
ADDED_KEYS: dict[str, object] = {
    "train.cpu_bf16_update": False,
}
ID_LENGTH = 12


def run_id(cfg: DictConfig, excluded: Iterable[str] = EXCLUDED_KEYS) -> str:
    """12 hex characters of the SHA-1 of the resolved config without the `excluded` keys.

    Raises omegaconf's MissingMandatoryValue (naming the key) if a kept value is still `???`."""
    top = {key for key in excluded if "." not in key}
    nested = [key.split(".") for key in excluded if "." in key]
    # Key by key, against the full config: interpolations into excluded keys still resolve, and
    # Hydra-only resolvers in excluded keys (`${now:}` in hydra.run.dir) are never evaluated.
    resolved = {str(k): _resolve(cfg, str(k), nested) for k in cfg if k not in top}
    for key, earlier in ADDED_KEYS.items():
        if OmegaConf.select(cfg, key) == earlier:
            _drop(resolved, key.split("."))
    if isinstance(resolved.get("model"), dict) and resolved["model"].get("kind") == "micro":
        resolved["micro_policy_build"] = BUILD_VERSION
    text = json.dumps(resolved, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:ID_LENGTH]


def config_key(cfg: DictConfig) -> str:
    """What a run computes, whatever sweep launched it: the run id's hash without `sweep_name`."""
    return run_id(cfg, excluded=(*EXCLUDED_KEYS, "sweep_name"))


def _resolve(cfg: DictConfig, key: str, nested: list[list[str]]) -> object:
    """`cfg[key]` resolved to plain values, less the excluded paths under it."""
    value = cfg[key]
    if not OmegaConf.is_config(value):
        return value
    plain = OmegaConf.to_container(value, resolve=True, throw_on_missing=True, enum_to_str=True)
    for path in nested:
        if path[0] == key:
            _drop(plain, path[1:])
    return plain


def _drop(node: object, path: list[str]) -> None:
    for part in path[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(path[-1], None)


def run_dir(cfg: DictConfig) -> Path:
    """`<runs_root>/<sweep_name>/<run_id>`: the run store's folder for this config."""
    return Path(str(cfg.runs_root)) / str(cfg.sweep_name) / run_id(cfg)
