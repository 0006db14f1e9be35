"""ZeRO-3's `zero3_init_flag` only works when the model is loaded while the trainer config lives.

transformers builds a model sharded (deepspeed.zero.Init) only when `is_deepspeed_zero3_enabled()`,
which reads a weak reference that TrainingArguments registers when `accelerate launch` runs it
under DeepSpeed. `train` must therefore build its GRPOConfig before `load_policy`, and keep it.
DeepSpeed itself is in the [gpu] extra, not here, so this checks that order on the real `train`.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from trl import GRPOConfig

from mcsweep.config.validate import validate_config
from mcsweep.train import run

CONF = str(Path(__file__).resolve().parents[2] / "conf")


class Loaded(Exception):
    """Stops `train` once the model would load; the check has what it needs by then."""


def test_the_trainer_config_is_alive_when_the_model_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with initialize_config_dir(CONF, version_base="1.3"):
        raw = compose("config", overrides=["model=micro_tiny", "tracker=none", f"runs_root={tmp_path}"])
    cfg = validate_config(raw)
    alive: list[str] = []

    def load_policy(_cfg):
        alive.extend(o.output_dir for o in gc.get_objects() if type(o) is GRPOConfig)
        raise Loaded

    monkeypatch.setattr(run, "load_policy", load_policy)
    with pytest.raises(Loaded):
        run.train(cfg, raw)
    assert any(d.startswith(str(tmp_path)) and d.endswith("checkpoints") for d in alive), alive
