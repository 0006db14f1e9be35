"""benchmarks/device_check.py: its CPU dry run, its refusal without a GPU, and its arithmetic."""

from __future__ import annotations

import importlib.util
import json
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
    assert "model built on the CPU and saved" in out
    # HF first; each step printed as it ends, before the backend's summary
    assert out.index("[hf] step 1:") < out.index("[hf] step 2:") < out.index("[hf] 0.1M params, 2 steps in")
    assert "time/generation_s" in out.split("[hf] step 1:")[1].splitlines()[0]
    assert "tokens/s" in out and "generation" in out and "reward" in out and "update" in out
    assert "memory:" in out and "estimate:" in out
    if importlib.util.find_spec("vllm") is None:
        assert "[vllm_colocate] no result: skipped: vLLM is not installed" in out
        assert out.index("[hf] 0.1M params") < out.index("[vllm_colocate] no result")
    assert "device check: 1 backend(s) measured, 0 failed or timed out" in out


def test_a_backend_timeout_is_caught_and_the_others_still_report():
    proc = run("--dry-run", "--timeout-s", "3")
    out = proc.stdout
    assert "[hf] no result: timed out after 3 s" in out, out[-3000:] + proc.stderr[-3000:]
    assert "[vllm_colocate] no result:" in out  # still reached after the timeout
    assert "device check: 0 backend(s) measured, 1 failed or timed out" in out
    assert proc.returncode == 1


def test_the_global_budget_skips_what_cannot_finish():
    proc = run("--dry-run", "--budget-s", "1")
    out = proc.stdout
    assert "[hf] no result: skipped:" in out and "of the budget left" in out, out[-3000:] + proc.stderr[-3000:]
    assert proc.returncode == 1


def test_micro_batch_is_the_largest_that_fits(tmp_path):
    dc = load_script()
    s = dc.QWEN3_1_7B
    config = {
        "vocab_size": 600,
        "hidden_size": s.hidden,
        "intermediate_size": s.intermediate,
        "num_hidden_layers": s.layers,
        "num_attention_heads": s.heads,
        "num_key_value_heads": s.kv_heads,
        "head_dim": s.head_dim,
        "tie_word_embeddings": True,
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    cfg = dc.compose(dc.overrides(dc.GPU_PLAN, tmp_path, tmp_path / "runs", "vllm_colocate"))
    big, small = dc.fitting_micro_batch(cfg, 141, 128), dc.fitting_micro_batch(cfg, 48, 128)
    per_update = dc.GPU_PLAN.prompts * dc.GPU_PLAN.group
    assert per_update % big == 0 and per_update % small == 0 and big > small >= 1
    from mcsweep.gpu.memory import check_fits

    chosen = check_fits(cfg, 1, 141, micro_batch=big, prompt_tokens=128)
    assert chosen.total_bytes <= dc.HEADROOM * chosen.available_bytes
    if big < per_update:  # the next larger divisor would not have fitted
        larger = min(m for m in range(big + 1, per_update + 1) if per_update % m == 0)
        over = check_fits(cfg, 1, 141, micro_batch=larger, prompt_tokens=128)
        assert over.total_bytes > dc.HEADROOM * over.available_bytes


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
    text = dc.report([result, faster])
    assert "generation: 12800 tokens/s" in text and "vllm_colocate / hf: generation tokens/s x4.00" in text
    timed_out = {"rollout": "vllm_colocate", "error": "timed out after 200 s"}
    assert dc.ratio([result, timed_out]) is None
    assert "[vllm_colocate] no result: timed out" in dc.report([result, timed_out])
