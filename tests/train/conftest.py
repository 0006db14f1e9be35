"""Fixtures that build real trainers on the tiny micro policy (seconds to build on 2 cores)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir

from mcsweep.config.validate import validate_config

CONF = str(Path(__file__).resolve().parents[2] / "conf")
TINY = [
    "model=micro_tiny",
    "tracker=none",
    "launcher.torch_threads=1",
    "data.n_test=4",
    "train.eval_samples=2",
    "data.n_train=32",
    # The former micro lengths: the machinery under test is the same at any length, and shorter is faster.
    "sizes.ctx_short=112",
    "sizes.ctx_mid=160",
    "sizes.ctx_long=224",
    "sizes.ctx_eval=256",
]


def compose_run(tmp_path: Path, overrides: list[str]):
    """(validated RunConfig, raw DictConfig) for a tiny run under tmp_path."""
    torch.set_num_threads(1)
    with initialize_config_dir(CONF, version_base="1.3"):
        raw = compose("config", overrides=[*TINY, f"runs_root={tmp_path}", *overrides])
    return validate_config(raw), raw


@pytest.fixture
def tiny_run(tmp_path):
    return lambda overrides=(): compose_run(tmp_path, list(overrides))
