"""benchmarks/device_check.py: its CPU dry run, its refusal without a GPU, and its arithmetic."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import torch

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "device_check.py"


def load_script():
    spec = importlib.util.spec_from_file_location("device_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module through sys.modules
    spec.loader.exec_module(module)
    return module


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)


def test_dry_run_builds_and_trains_on_cpu():
    proc = run("--dry-run")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    assert out.count("config ok: scale=paper") == 9
    assert "config ok: device plan rollout=vllm_colocate (vllm colocate mode)" in out
    if importlib.util.find_spec("vllm") is None:
        assert "rollout=vllm_colocate needs vLLM, which is not installed" in out
    assert "[hf]" in out and "2 steps in" in out
    assert "tokens/s" in out and "generation" in out and "reward" in out and "update" in out
    assert "memory:" in out and "estimate:" in out


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is visible")
def test_refuses_without_a_gpu():
    proc = run()
    assert proc.returncode == 2
    assert "no CUDA GPU is visible" in proc.stderr and "--dry-run" in proc.stderr


def test_report_arithmetic():
    dc = load_script()
    step = {
        "time/step_s": 4.0,
        "time/generation_s": 2.0,
        "time/reward_s": 0.5,
        "time/update_s": 1.0,
        "completions/mean_length": 100.0,
    }
    warmup = {**step, "time/step_s": 60.0, "time/generation_s": 50.0}
    result = {
        "rollout": "hf",
        "wall_s": 70.0,
        "steps": [warmup, step, step],
        "completions_per_step": 64,
        "memory": {"gpu_peak_allocated_gib": 10.0},
        "n_params": 1_409_000_000,
        "estimate_gib": 12.0,
        "estimate": "...",
    }
    mean = dc.summarise(result)
    assert mean["tokens_per_s"] == 100 * 64 / 2.0  # the warm-up step is left out
    faster = {
        **result,
        "rollout": "vllm_colocate",
        "steps": [warmup, {**step, "time/generation_s": 0.5, "time/step_s": 2.5}],
    }
    text = dc.report([faster, result])
    assert "generation: 12800 tokens/s" in text and "vllm_colocate / hf: generation tokens/s x4.00" in text
