"""Paper-scale schedules fire within the run: an extension step below `train.steps`, and the
context sweep at the study's 560 steps (its extensions come at about 260 and 520)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hydra import compose, initialize_config_dir

from mcsweep.config.schema import ConfigError
from mcsweep.config.validate import validate_config

ROOT = Path(__file__).resolve().parents[2]
CONTEXT_POINTS = yaml.safe_load((ROOT / "sweeps" / "context.yaml").read_text())["hydra"]["sweeper"]["params"]["context"]


def _compose(overrides: list[str]):
    with initialize_config_dir(str(ROOT / "conf"), version_base="1.3"):
        return compose("config", overrides=overrides)


def test_an_extension_after_the_last_step_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"context\.extend_at_step: extension at step 520 .*train\.steps=300"):
        validate_config(_compose(["scale=paper", "context=short_to_long_late"]))


def test_an_extension_at_the_last_step_is_refused_too() -> None:
    with pytest.raises(ConfigError, match=r"context\.extend_at_step"):
        validate_config(_compose(["context=short_to_long", "train.steps=20"]))  # micro extend_early = 20


@pytest.mark.parametrize("scale", ["micro", "paper"])
@pytest.mark.parametrize("point", [*CONTEXT_POINTS.split(","), "short_to_long_late"])
def test_context_sweep_points_validate(scale: str, point: str) -> None:
    cfg = validate_config(_compose(["+sweep=context", f"scale={scale}", f"context={point}"]))
    assert cfg.train.steps == (560 if scale == "paper" else 140)
    assert cfg.context.extend_at_step is None or cfg.context.extend_at_step < cfg.train.steps
