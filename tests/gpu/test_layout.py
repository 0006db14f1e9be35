"""The vLLM server-mode layout: GPU split, rendered commands, and the sbatch script that runs them.

The sbatch script runs for real here, outside SLURM: the three-node layout needs three nodes, so
there the cluster's own programs (scontrol, srun, curl) and the GPU programs (trl vllm-serve,
accelerate launch) are stand-ins that record their arguments. The one-node job runs under the real
local SLURM in tests/launch/test_vllm_server_sbatch.py.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mcsweep.gpu.__main__ import compose_run_config, main
from mcsweep.gpu.layout import ServerLayout, serve_command, train_command

ROOT = Path(__file__).resolve().parents[2]
SBATCH = ROOT / "scripts" / "gpu" / "grpo_vllm_server.sbatch"
# Paper scale without its micro-batch and activation checkpointing: a whole update in one forward.
SMALL = [
    "scale=paper",
    "model=qwen3_1.7b",
    "context=short",
    "batch=mid",
    "train.micro_batch=null",
    "train.gradient_checkpointing=false",
]
# Fits 80 GiB trainer GPUs: 32 sequences an update, 2048 tokens each; 16 prompts a rollout, so that
# each of 16 trainer GPUs holds a whole group.
FITS = [
    *SMALL,
    "batch.train_batch=16",
    "batch.mini_batch=4",
    "context.max_completion_length=1024",
    "context.max_prompt_length=1024",
]


def test_one_node_splits_the_gpus():
    layout = ServerLayout(nodes=1, gpus_per_node=8, vllm_gpus=2, tensor_parallel=1, strategy="zero3")
    cfg = compose_run_config([*SMALL, "rollout=vllm_server"])
    serve = serve_command(cfg, layout)
    assert serve.startswith("CUDA_VISIBLE_DEVICES=0,1 trl vllm-serve --model Qwen/Qwen3-1.7B")
    assert "--data_parallel_size 2" in serve and "--port 8000" in serve
    # the one prompt budget (context.max_prompt_length, 2048 at paper scale) + the 4K completion
    assert "--max_model_len 6144" in serve
    assert "--dtype bfloat16" in serve and "float32" not in serve  # the model config's dtype is float32
    train = train_command(layout, SMALL)
    assert train.startswith("CUDA_VISIBLE_DEVICES=2,3,4,5,6,7 accelerate launch --config_file ")
    assert "zero3.yaml --num_processes 6 --num_machines 1 -m mcsweep scale=paper" in train
    assert train.endswith("rollout=vllm_server")


def test_several_nodes_give_the_last_to_vllm():
    layout = ServerLayout(nodes=3, gpus_per_node=8, tensor_parallel=2, strategy="fsdp")
    assert (layout.train_machines, layout.train_processes, layout.serve_gpus) == (2, 16, 8)
    cfg = compose_run_config(["scale=paper", "model=ds_8b", "rollout=vllm_server"])
    serve = serve_command(cfg, layout)
    assert "CUDA_VISIBLE_DEVICES" not in serve and "--tensor_parallel_size 2 --data_parallel_size 4" in serve
    train = train_command(layout, ["model=ds_8b"])
    assert train.startswith('MCSWEEP_VLLM_HOST="$VLLM_HOST" accelerate launch')
    assert '--machine_rank "$SLURM_PROCID" --main_process_ip "$MAIN_IP"' in train


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"vllm_gpus": 8}, "vllm_gpus"),
        ({"vllm_gpus": 3, "tensor_parallel": 2}, "tensor_parallel"),
        ({"strategy": "zero9"}, "conf/accelerate/zero9.yaml"),
    ],
)
def test_bad_layouts_are_named(kw, message):
    with pytest.raises(ValueError, match=message):
        ServerLayout(**kw)


def test_cli_prints_both_commands(capsys):
    assert main(["layout", *SMALL]) == 0
    out = capsys.readouterr()
    serve, train = out.out.strip().splitlines()
    assert "trl vllm-serve" in serve and "--tensor_parallel_size 4 --data_parallel_size 1" in serve
    assert "accelerate launch" in train and "--num_processes 4" in train
    assert "WARNING" not in out.err


def test_the_server_is_one_engine_unless_tensor_parallel_is_smaller(capsys):
    """TRL 1.16's vllm-serve says a data-parallel size above 1 errors for dense models: the default
    layout serves one engine across the server's GPUs (it served four data-parallel engines)."""
    assert ServerLayout(nodes=3).data_parallel == ServerLayout(nodes=1, vllm_gpus=2).data_parallel == 1
    # vLLM needs tensor parallel to divide the heads (Qwen3, Llama: multiples of 8): 6 GPUs serve 3 x 2
    assert (ServerLayout(nodes=1, vllm_gpus=6).tensor_parallel, ServerLayout(nodes=1, vllm_gpus=3).tensor_parallel) == (
        2,
        1,
    )
    assert main(["layout", "--tensor-parallel", "2", "--print", "vllm", *SMALL]) == 0
    out = capsys.readouterr()
    assert "--tensor_parallel_size 2 --data_parallel_size 2" in out.out and "data parallel 2" in out.err


def test_cli_refuses_trainers_that_cannot_split_an_update():
    with pytest.raises(SystemExit, match=r"6 trainer GPUs: train\.micro_batch: 21 sequences x 6 GPU"):
        main(["layout", "--vllm-gpus", "2", *SMALL])


def test_cli_refuses_the_micro_policy():
    with pytest.raises(SystemExit, match="needs an HF model"):
        main(["layout"])


def test_cli_estimate_exit_code(capsys):
    assert main(["estimate", "--gpus", "1", "--gpu-mem-gib", "141", *SMALL]) == 1
    assert "does not fit" in capsys.readouterr().err
    assert main(["estimate", "--gpus", "8", "--gpu-mem-gib", "80", "--micro-batch", "1", *SMALL]) == 0


def _stub(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/bash\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def run_sbatch(tmp_path: Path, nodes: int, env: dict[str, str], overrides: list[str]) -> tuple[int, str, str]:
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    record = (
        f'echo "$(basename "$0") VLLM_HOST=${{MCSWEEP_VLLM_HOST:-}} VLLM_HOST_IP=${{VLLM_HOST_IP:-}} '
        f'CUDA=${{CUDA_VISIBLE_DEVICES:-}} $*" >> {log}'
    )
    _stub(bin_dir, "trl", record)
    _stub(bin_dir, "accelerate", record)
    # curl: healthy once the (stand-in) server has started
    healthy = f'grep -q "^trl " {log} 2>/dev/null && exit 0'
    _stub(bin_dir, "curl", f"for _ in $(seq 100); do {healthy}; sleep 0.1; done\nexit 7")
    # node names that resolve here (the trainer looks up its route to the vLLM host)
    _stub(bin_dir, "scontrol", "for i in $(seq 1 $SLURM_NNODES); do echo 127.0.0.$i; done")
    # srun: drop its options, run the command as task 0 of the step
    _stub(bin_dir, "srun", f'{record}\nwhile [ "$1" != bash ]; do shift; done\nSLURM_PROCID=0 exec "$@"')
    full_env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "SLURM_NNODES": str(nodes),
        "SLURM_JOB_NODELIST": "gpu-node[1-3]",
        "SLURM_CPUS_PER_TASK": "2",
        "HEALTH_POLL_S": "1",
        "SLURM_SUBMIT_DIR": str(ROOT),
        "PYTHON": sys.executable,
        **env,
    }
    proc = subprocess.run(["bash", str(SBATCH), *overrides], env=full_env, capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout + proc.stderr, log.read_text() if log.exists() else ""


def test_sbatch_three_nodes(tmp_path):
    rc, out, calls = run_sbatch(tmp_path, 3, {"TP": "2"}, FITS)  # data parallel 4, asked for
    assert rc == 0, out
    lines = calls.splitlines()
    steps = [line for line in lines if line.startswith("srun ")]
    assert len(steps) == 2 and all("--kill-on-bad-exit=1" in s and "--cpus-per-task=2" in s for s in steps)
    assert "--nodelist=127.0.0.3" in steps[0]
    assert "--nodes=2" in steps[1] and "--exclude=127.0.0.3" in steps[1]
    serve = next(line for line in lines if line.startswith("trl "))
    assert "--tensor_parallel_size 2 --data_parallel_size 4" in serve and "--dtype bfloat16" in serve
    train = next(line for line in lines if line.startswith("accelerate "))
    assert "VLLM_HOST=127.0.0.3 VLLM_HOST_IP=127.0.0.1" in train and "--num_processes 16 --num_machines 2" in train
    assert "--machine_rank 0 --main_process_ip 127.0.0.1" in train


@pytest.mark.parametrize(
    ("env", "overrides", "message"),
    [
        ({}, SMALL, "does not fit"),  # an update's 128 sequences of 5120 tokens over 4 GPUs, 32 each
        ({"VLLM_GPUS": "2"}, FITS, "5 sequences x 6 GPU(s) must divide the 32 sequences"),
    ],
)
def test_sbatch_stops_before_launch(tmp_path, env, overrides, message):
    rc, out, calls = run_sbatch(tmp_path, 1, env, overrides)
    assert rc == 1
    assert message in out and "FORCE=1" in out
    assert calls == ""
