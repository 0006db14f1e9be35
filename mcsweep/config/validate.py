"""Turn a composed Hydra config into a checked RunConfig, before anything is launched."""

from __future__ import annotations

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from mcsweep.config.schema import ConfigError, RunConfig

# Top-level keys that belong to Hydra, sweepers or the git-ignored site config, not to the run.
NON_RUN_KEYS = ("hydra", "optimized_metric", "dry_run", "local")


def validate_config(cfg: DictConfig) -> RunConfig:
    """The run's config as dataclasses; raises ConfigError naming the key on any problem."""
    plain = OmegaConf.to_container(cfg, resolve=True)
    for key in NON_RUN_KEYS:
        plain.pop(key, None)
    try:
        merged = OmegaConf.merge(OmegaConf.structured(RunConfig), plain)
        return OmegaConf.to_object(merged)
    except OmegaConfBaseException as err:
        key = getattr(err, "full_key", None) or "config"
        raise ConfigError(f"{key}: {err.msg if hasattr(err, 'msg') else err}") from None
