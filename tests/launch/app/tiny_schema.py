"""The tiny app's validator: like mcsweep.config.validate, it raises naming the key."""

from __future__ import annotations

from omegaconf import DictConfig


def validate(cfg: DictConfig) -> None:
    if cfg.temperature.value <= 0:
        raise ValueError(f"temperature.value: must be > 0 (got {cfg.temperature.value})")
