"""The vLLM rollout paths are import-guarded: without vLLM they fail at once with a clear message."""

from __future__ import annotations

import importlib.util

import pytest

from mcsweep.train.run import require_rollout_backend, train


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed here")
@pytest.mark.parametrize("rollout", ["vllm_colocate", "vllm_server"])
def test_vllm_without_vllm_fails_before_building_anything(tiny_run, tmp_path, rollout):
    cfg, raw = tiny_run([f"rollout={rollout}"])
    with pytest.raises(RuntimeError, match=r"needs vLLM.*\[gpu\]"):
        train(cfg, raw)
    assert not any(tmp_path.iterdir()), "nothing may be written before the guard"


def test_hf_rollout_passes_the_guard(tiny_run):
    cfg, _ = tiny_run(["rollout=hf"])
    require_rollout_backend(cfg)
