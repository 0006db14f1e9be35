"""scripts/gpu/grpo_vllm_server.sbatch under the real local SLURM, one node, with stand-ins first on
PATH for `trl vllm-serve` (a /health endpoint that answers late, never, or a server that dies) and
`accelerate launch` (records how it was started): tests/gpu/standins/. The script is not edited;
its knobs (PATH, HEALTH_TIMEOUT_S, HEALTH_POLL_S, PYTHON) are what a user sets.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slurm

REPO = Path(__file__).resolve().parents[2]
SBATCH = REPO / "scripts" / "gpu" / "grpo_vllm_server.sbatch"
STANDINS = REPO / "tests" / "gpu" / "standins"
# Qwen3-1.7B, 32 sequences of 2048 tokens an update: fits the estimate's 80 GiB trainer GPUs.
FITS = [
    "scale=paper",
    "model=qwen3_1.7b",
    "context=short",
    "batch=mid",
    "train.micro_batch=null",
    "train.gradient_checkpointing=false",
    "batch.train_batch=8",
    "batch.mini_batch=4",
    "context.max_completion_length=1024",
    "context.max_prompt_length=1024",
]


def _free_port() -> int:
    """A free port below the kernel's ephemeral range: a port the kernel hands out (bind to 0) can be
    handed out again, to srun's own listening sockets, before the stand-in binds it."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    for port in random.sample(range(20000, low), 100):
        with socket.socket() as sock:
            try:
                sock.bind(("0.0.0.0", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in 20000-{low}")


def submit(tmp_path: Path, healthy_after: str, health_timeout_s: int, port: int) -> tuple[int, str, list[dict]]:
    """sbatch --wait the script (one node, no GPUs asked); (exit code, job output, stand-in calls)."""
    log, out = tmp_path / "calls.jsonl", tmp_path / "job.out"
    env = {
        **os.environ,
        "PATH": f"{STANDINS}{os.pathsep}{os.environ['PATH']}",
        "PYTHON": sys.executable,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "STANDIN_LOG": str(log),
        "STANDIN_HEALTHY_AFTER_S": healthy_after,
        "HEALTH_TIMEOUT_S": str(health_timeout_s),
        "HEALTH_POLL_S": "1",
    }
    cmd = ["sbatch", "--wait", "--gres=none", "--cpus-per-task=2", "--time=5", f"--output={out}", str(SBATCH)]
    proc = subprocess.run(
        [*cmd, *FITS, f"rollout.server_port={port}"], env=env, cwd=REPO, capture_output=True, text=True, timeout=240
    )
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return proc.returncode, (out.read_text() if out.exists() else "") + proc.stderr, calls


@pytest.mark.timeout(300)
def test_trainer_starts_once_a_late_server_is_healthy(slurm: Path, tmp_path: Path) -> None:
    port = _free_port()
    rc, out, calls = submit(tmp_path, healthy_after="3", health_timeout_s=60, port=port)
    assert rc == 0, out
    serve, train = calls  # in this order: the trainer waits for the server's health
    assert serve["prog"] == "trl" and train["prog"] == "accelerate"
    args = serve["argv"]
    assert args[args.index("--port") + 1] == str(port)  # rollout.server_port, not a separate knob
    assert args[args.index("--dtype") + 1] == "bfloat16"  # not the model config's float32
    assert args[args.index("--max_model_len") + 1] == "2048"  # context.max_prompt_length + completion
    # Two SLURM steps of one job, each with its CPUs; the trainer knows its address for weight syncs.
    assert serve["env"]["SLURM_JOB_ID"] == train["env"]["SLURM_JOB_ID"]
    assert {serve["env"]["SLURM_STEP_ID"], train["env"]["SLURM_STEP_ID"]} == {"0", "1"}
    assert serve["env"]["SLURM_CPUS_PER_TASK"] == train["env"]["SLURM_CPUS_PER_TASK"] == "1"
    assert train["env"]["VLLM_HOST_IP"] and serve["env"]["VLLM_HOST_IP"] is None
    assert (serve["env"]["CUDA_VISIBLE_DEVICES"], train["env"]["CUDA_VISIBLE_DEVICES"]) == ("0,1,2,3", "4,5,6,7")
    assert out.count("--kill-on-bad-exit=1") == 2 and "vLLM server healthy after" in out


@pytest.mark.timeout(300)
@pytest.mark.parametrize("server", ["never", "hang"])  # hang: each probe gives up after HEALTH_POLL_S
def test_a_server_that_never_answers_fails_the_job_in_time(slurm: Path, tmp_path: Path, server: str) -> None:
    rc, out, calls = submit(tmp_path, healthy_after=server, health_timeout_s=4, port=_free_port())
    assert rc != 0
    assert "vLLM server not healthy after 4 s" in out and "the trainer was not started" in out
    assert [c["prog"] for c in calls] == ["trl"]


@pytest.mark.timeout(300)
def test_a_server_that_dies_fails_the_job(slurm: Path, tmp_path: Path) -> None:
    rc, out, calls = submit(tmp_path, healthy_after="crash", health_timeout_s=60, port=_free_port())
    assert rc != 0
    assert "vLLM server exited before it was healthy" in out
    assert [c["prog"] for c in calls] == ["trl"]
