"""Config validation: every group composes, and bad values fail at once naming the key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from mcsweep.config.schema import ConfigError
from mcsweep.config.validate import validate_config

CONF = str(Path(__file__).resolve().parents[2] / "conf")


def _compose(overrides: list[str]):
    with initialize_config_dir(CONF, version_base="1.3"):
        return compose("config", overrides=overrides)


def test_default_config_is_valid():
    cfg = validate_config(_compose([]))
    assert cfg.algo.name == "microcoder_grpo" and cfg.temperature.name == "staged_0.6_1.8"
    assert cfg.masking.mode == "conditional" and cfg.masking.rho == 0.3
    assert cfg.kl_clip.beta == 0.0 and cfg.kl_clip.epsilon_high == 0.28


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        (["temperature.value=-1"], "temperature.value"),
        (["masking.rho=1.5"], "masking.rho"),
        (["masking.rho=-0.1"], "masking.rho"),
        (["batch.mini_batch=16"], "batch.mini_batch"),
        (["batch.mini_batch=3"], "batch.mini_batch"),
        (["kl_clip.epsilon_high=0.1"], "kl_clip.epsilon_high"),
        (["+temperature.colour=red"], "temperature.colour"),
        (["train.steps=abc"], "train.steps"),
        (["evaluator.comparator=fuzzy"], "evaluator.comparator"),
        (["context.max_completion_length=512", "context.common_eval_length=null"], "context.eval_lengths"),
        (["context=short_to_long", "context.common_eval_length=160"], "context.common_eval_length"),
        (["context.max_completion_length=400"], "context.common_eval_length"),  # above the common 320
        (["masking.non_incorrect=maybe"], "masking.non_incorrect"),
        (["temperature.kind=staged", "temperature.stages=[]"], "temperature.stages"),
        (["temperature=fixed_1.2", "temperature.stages=[[10,1.8]]"], "temperature.stages"),
        (["temperature.candidates=[0.6,1.2]"], "temperature.candidates"),
        (["+model.micro.sft_micro_batch=5"], "model.micro.sft_micro_batch"),
    ],
)
def test_bad_values_name_the_key(overrides, key):
    with pytest.raises(ConfigError, match="^" + re.escape(key) + ":"):
        validate_config(_compose(overrides))


def test_algo_presets_compose_axes_and_cli_overrides_win():
    grpo = validate_config(_compose(["algo=grpo"]))
    assert (grpo.masking.mode, grpo.kl_clip.beta, grpo.algo.loss_type) == ("none", 0.04, "grpo")
    dapo = validate_config(_compose(["algo=dapo"]))
    assert dapo.algo.overlong_shaping and dapo.kl_clip.epsilon_high == 0.28
    mixed = validate_config(_compose(["algo=grpo", "masking=all"]))
    assert mixed.masking.mode == "all" and mixed.kl_clip.beta == 0.04


@pytest.mark.parametrize(
    "group",
    [
        "evaluator",
        "temperature",
        "data",
        "context",
        "masking",
        "batch",
        "kl_clip",
        "algo",
        "model",
        "rollout",
        "tracker",
    ],
)
def test_every_option_of_every_group_validates(group):
    options = sorted(p.stem for p in (Path(CONF) / group).glob("*.yaml"))
    assert options, f"group {group} has no options"
    for option in options:
        validate_config(_compose([f"{group}={option}"]))


@pytest.mark.parametrize("scale", ["micro", "paper"])
def test_every_context_arm_shares_one_common_evaluation_length(scale):
    """The sweep's longest training/extension length, the same for every arm of the context sweep."""
    options = sorted(p.stem for p in (Path(CONF) / "context").glob("*.yaml"))
    commons = set()
    for option in options:
        # As the context sweep runs them: long enough for the late extension (sizes.context_steps).
        overrides = [f"scale={scale}", f"context={option}", "train.steps=${sizes.context_steps}"]
        cfg = validate_config(_compose(overrides))
        commons.add(cfg.context.common_length)
        assert cfg.context.common_length >= cfg.context.longest_training_length
    assert commons == {cfg.sizes.ctx_long}


def _sweep_points(sweep: str) -> list[list[str]]:
    """Every point of a sweep as override lists (the basic sweeper's cartesian product)."""
    import itertools

    with initialize_config_dir(CONF, version_base="1.3"):
        cfg = compose("config", overrides=[f"+sweep={sweep}"], return_hydra_config=True)
    params = {k: str(v).split(",") for k, v in cfg.hydra.sweeper.params.items()}
    return [[f"{k}={v}" for k, v in zip(params, combo, strict=True)] for combo in itertools.product(*params.values())]


SWEEPS = sorted(p.stem for p in (Path(CONF).parent / "sweeps").glob("*.yaml"))


@pytest.mark.parametrize("sweep", SWEEPS)
def test_axis_sweeps_run_on_the_analysis_base_and_table1_on_the_presets(sweep):
    """The study's analysis runs: DAPO with several PPO updates per rollout; Table 1 keeps its presets."""
    for point in _sweep_points(sweep):
        cfg = validate_config(_compose([f"+sweep={sweep}", *point]))
        if sweep == "table1":
            assert cfg.algo.name in ("grpo", "dapo", "microcoder_grpo")
            if cfg.algo.name == "microcoder_grpo":  # with its temperature component
                assert cfg.temperature.kind == "staged" and cfg.masking.mode == "conditional"
            continue
        assert cfg.algo.name == "analysis_base" and cfg.algo.loss_type == "dapo" and cfg.algo.overlong_shaping
        assert cfg.batch.mini_batch == cfg.sizes.mini_batch, point
        if "kl_clip=" not in " ".join(point):
            assert cfg.kl_clip.beta == 0 and cfg.kl_clip.epsilon_high > cfg.kl_clip.epsilon
        if sweep != "batch":  # the batch axis varies the train batch around the fixed mini-batch
            assert cfg.batch.train_batch > cfg.batch.mini_batch, point
        if "masking=" not in " ".join(point):
            assert cfg.masking.mode == "none"
