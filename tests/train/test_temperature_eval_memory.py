"""`temperature_eval` holds one checkpoint's weights at a time and loads each checkpoint once.

It loaded a checkpoint per (checkpoint, temperature) pair, and the next one while the previous was
still referenced: the base policy plus two checkpoints on the GPU at once (DS 8B in float32: 3 x 33 GB,
out of memory on an 80 GB GPU at the second pair), and each checkpoint read from disk once per temperature."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from omegaconf import OmegaConf

from mcsweep.train import temperature_eval as te


class FakePolicy:
    """A policy whose lifetime the test follows (weights on the device while it lives)."""

    device = "cpu"

    def to(self, device) -> FakePolicy:
        return self


def test_each_checkpoint_is_loaded_once_and_alone(tiny_run, tmp_path, monkeypatch):
    _, raw = tiny_run(["tracker=none"])
    run_dir = tmp_path / "run"
    for step in (1, 2):
        (run_dir / "checkpoints" / f"checkpoint-{step}").mkdir(parents=True)
    OmegaConf.save(raw, run_dir / "config.yaml")

    loaded: list[weakref.ref] = []
    peak = {"policies": 0}

    def alive() -> int:
        gc.collect()
        return sum(ref() is not None for ref in loaded)

    def new_policy() -> FakePolicy:
        peak["policies"] = max(peak["policies"], alive() + 1)
        policy = FakePolicy()
        loaded.append(weakref.ref(policy))
        return policy

    def load_checkpoint(cfg, path: Path, device):
        return new_policy()

    def evaluate_split(policy, tokenizer, acc, problems, evaluator, s, step, **_):
        peak["policies"] = max(peak["policies"], alive())
        return [{"step": step, "pass@1": 0.0}], []

    monkeypatch.setattr(te, "load_policy", lambda cfg: (new_policy(), None))
    monkeypatch.setattr(te, "test_problems", lambda data, world: [])
    monkeypatch.setattr(te, "chat_format", lambda cfg, tokenizer: None)
    monkeypatch.setattr(te, "load_checkpoint", load_checkpoint)
    monkeypatch.setattr(te, "evaluate_split", evaluate_split)

    assert te.evaluate_at_temperatures(run_dir, [0.5, 1.0, 2.0], steps=None) == 9
    assert len(loaded) == 3  # the base policy, then one load per checkpoint whatever the temperatures
    assert peak["policies"] == 1
    done = sorted((r["step"], r["temperature"]) for r in te.RunStore(run_dir).rows("temperature_evals"))
    assert done == [(s, t) for s in (0, 1, 2) for t in (0.5, 1.0, 2.0)]
