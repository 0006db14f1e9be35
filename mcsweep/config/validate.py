"""Turn a composed Hydra config into a checked RunConfig, before anything is launched."""

from __future__ import annotations

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from mcsweep.config.schema import ConfigError, RunConfig, check

# Top-level keys that belong to Hydra, sweepers or the git-ignored site config, not to the run.
NON_RUN_KEYS = ("hydra", "optimized_metric", "dry_run", "local")


def validate_config(cfg: DictConfig) -> RunConfig:
    """The run's config as dataclasses; raises ConfigError naming the key on any problem."""
    plain = OmegaConf.to_container(cfg, resolve=True)
    for key in NON_RUN_KEYS:
        plain.pop(key, None)
    try:
        merged = OmegaConf.merge(OmegaConf.structured(RunConfig), plain)
        run = OmegaConf.to_object(merged)
    except OmegaConfBaseException as err:
        key = getattr(err, "full_key", None) or "config"
        message = str(getattr(err, "msg", err)).splitlines()[0]  # the rest repeats the key and the schema
        raise ConfigError(f"{key}: {message}") from None
    check_schedule(run)
    check_sampler(run)
    return run


def check_schedule(cfg: RunConfig) -> None:
    """A context extension that never fires within `train.steps` is a run that silently tests
    nothing (the late extension at step 520 of a 300-step paper run)."""
    at = cfg.context.extend_at_step
    check(
        at is None or at < cfg.train.steps,
        "context.extend_at_step",
        f"extension at step {at} never happens: train.steps={cfg.train.steps} (raise train.steps or extend earlier)",
    )


def shards_weights(accelerate: dict) -> str | None:
    """The name of the accelerate setting that shards each process's weights (ZeRO-3, FSDP), or None."""
    if accelerate.get("distributed_type") == "FSDP":
        return "FSDP"
    if (
        accelerate.get("distributed_type") == "DEEPSPEED"
        and (accelerate.get("deepspeed_config") or {}).get("zero_stage") == 3
    ):
        return "DeepSpeed ZeRO-3"
    return None


def check_sampler(cfg: RunConfig) -> None:
    """The fast sampler reads whole weights outside each layer's forward: refused before launch where the
    point's processes shard them (the trainer refuses it too, for a manual `accelerate launch`)."""
    sharding = shards_weights(cfg.launcher.accelerate) if cfg.launcher.processes > 1 else None
    check(
        cfg.rollout.sampler != "fast" or sharding is None,
        "rollout.sampler",
        f"fast needs each process to hold whole weights, which {sharding} shards: use rollout.sampler=hf_generate",
    )
