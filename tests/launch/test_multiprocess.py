"""A micro run as 2 training processes (gloo) through the real launchers: `submitit_local` with a
kill and a resume, and the local SLURM. The run store shows what each rank did."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import torch
from omegaconf import OmegaConf

from mcsweep.gpu.batching import batch_layout

REPO = Path(__file__).resolve().parents[2]
STEPS = 3
TWO_PROCESSES = [
    "launcher.processes=2",
    "accelerate=cpu",
    "model=micro_tiny",
    "tracker=wandb",
    "launcher.torch_threads=1",
    "data.n_test=4",
    "train.eval_samples=2",
    "train.eval_prompts_per_batch=1",
    "data.n_train=32",
    f"train.steps={STEPS}",
    "train.save_every=1",
    f"train.eval_every={STEPS}",
    "context.max_completion_length=24",
    "context.eval_lengths=[24]",
    "context.repeat_window=4",
    # micro_tiny passes no test, so only DAPO's length shaping makes rewards (and gradients) differ.
    "algo.overlong_shaping=true",
    "algo.overlong_buffer_frac=0.67",
    "context.common_eval_length=24",
    "masking=none",
]


def _launch(runs: Path, launcher: str, *extra: str) -> subprocess.Popen:
    """`python -m mcsweep -m` from a scratch folder, so nothing may land in the working directory."""
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "WANDB_MODE": "offline", "PYTHONPATH": path}
    cwd = runs / "cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "mcsweep", "-m", f"launcher={launcher}", *TWO_PROCESSES, f"runs_root={runs}", *extra]
    log = open(runs / f"driver-{time.monotonic_ns()}.log", "w")  # noqa: SIM115 (the child writes it)
    return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def _driver_log(runs: Path) -> str:
    return "\n".join(p.read_text()[-3000:] for p in sorted(runs.glob("driver-*.log")))


def _wait_for(pattern: str, runs: Path, proc: subprocess.Popen, limit_s: float = 1200) -> Path:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        found = sorted(runs.glob(pattern))
        if found:
            return found[0]
        assert proc.poll() is None, _driver_log(runs)
        time.sleep(0.5)
    raise AssertionError(f"{pattern} did not appear within {limit_s} s")


def _kill_tree(proc: subprocess.Popen) -> None:
    """SIGKILL the driver and every process under it (submitit's controller and both ranks)."""
    tree = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
    for p in tree:
        p.send_signal(signal.SIGKILL)
    psutil.wait_procs(tree, timeout=30)


def _rows(run_dir: Path, table: str) -> list[dict]:
    return [json.loads(line) for line in (run_dir / f"{table}.jsonl").read_text().splitlines() if line.strip()]


def one_process_eval(run_dir: Path, step: int) -> list[dict]:
    """The run's own evaluation of checkpoint `step`, recomputed here in one process."""
    from accelerate import Accelerator
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from mcsweep.config.validate import validate_config
    from mcsweep.micro.problems import WorldSpec
    from mcsweep.train.data import test_problems
    from mcsweep.train.eval_split import evaluate_split
    from mcsweep.train.evaluation import EvalSettings
    from mcsweep.train.run import make_evaluator

    cfg = validate_config(OmegaConf.load(run_dir / "config.yaml"))
    ckpt = run_dir / "checkpoints" / f"checkpoint-{step}"
    model = AutoModelForCausalLM.from_pretrained(ckpt, dtype=torch.float32, attn_implementation="sdpa")
    tokenizer = AutoTokenizer.from_pretrained(ckpt, padding_side="left")
    settings = EvalSettings(
        cfg.train.eval_samples,
        cfg.train.eval_temperature,
        (cfg.context.max_completion_length,),
        prompts_per_batch=cfg.train.eval_prompts_per_batch,
        seed=cfg.seed + step,
    )
    problems = test_problems(cfg.data, WorldSpec(seed=cfg.model.micro.world_seed))
    evaluator = make_evaluator(cfg, shadow=False)
    torch.set_num_threads(1)  # as each rank ran
    try:
        return evaluate_split(model, tokenizer, Accelerator(cpu=True), problems, evaluator, settings, step)[1]
    finally:
        evaluator.close()


def check_two_process_run(run_dir: Path, launches: int) -> None:
    """What the store must show for a finished 2-process run started `launches` times."""
    metrics = _rows(run_dir, "metrics")
    assert [r["step"] for r in metrics] == list(range(STEPS + 1)), "one row per step: only rank 0 writes"
    assert all(r["dist/replica_spread"] == 0.0 for r in metrics[1:]), "replicas diverged: gradients not averaged"
    assert any(r["grad_norm"] > 0 for r in metrics[1:]), "no update moved the weights: nothing was checked"

    # Both ranks trained, each on its own prompts; the batch axis as mcsweep/gpu/batching.py lays it out.
    from mcsweep.config.validate import validate_config

    cfg = validate_config(OmegaConf.load(run_dir / "config.yaml"))
    batch = cfg.batch
    layout = batch_layout(batch, 2, cfg.train.micro_batch)
    args = torch.load(run_dir / "checkpoints" / f"checkpoint-{STEPS}" / "training_args.bin", weights_only=False)
    assert (args.per_device_train_batch_size, args.gradient_accumulation_steps, args.steps_per_generation) == (
        layout.per_device_train_batch_size,
        layout.gradient_accumulation_steps,
        layout.steps_per_generation,
    )
    completions = _rows(run_dir, "completions")
    for step in {r["step"] for r in completions}:
        by_rank = {rank: [r for r in completions if r["step"] == step and r["rank"] == rank] for rank in (0, 1)}
        assert [len(v) for v in by_rank.values()] == [batch.train_batch * batch.group_size // 2] * 2
        prompts = [{r["id"].split("#")[0] for r in v} for v in by_rank.values()]
        assert prompts[0] and prompts[1] and not prompts[0] & prompts[1], f"step {step}: ranks shared prompts"

    # Evaluation split over the ranks: each (problem, sample) once, equal to one process's evaluation.
    samples = [r for r in _rows(run_dir, "eval_samples") if r["step"] == STEPS]
    keys = [(r["problem_id"], r["sample"]) for r in samples]
    assert len(keys) == len(set(keys)) == 4 * 2
    alone = one_process_eval(run_dir, STEPS)
    assert [(r["problem_id"], r["sample"], r["ids"], r["verdict"]) for r in samples] == [
        (r["problem_id"], r["sample"], r["ids"], r["verdict"]) for r in alone
    ]

    # W&B: rank 0 only, one offline run per launch, all under the run's id; nothing in the cwd.
    wandb_runs = sorted((run_dir / "wandb").glob("offline-run-*"))
    assert len(wandb_runs) == launches and {p.name.split("-")[-1] for p in wandb_runs} == {run_dir.name}
    assert not any((run_dir.parents[1] / "cwd").iterdir()), "a rank wrote into the working directory"
    assert json.loads((run_dir / "run_card.json").read_text())["status"] == "finished"


@pytest.mark.slow
@pytest.mark.timeout(2700)
def test_two_processes_through_submitit_local_killed_and_resumed(tmp_path):
    proc = _launch(tmp_path, "submitit_local")
    try:
        ckpt = _wait_for("single/*/checkpoints/checkpoint-1/trainer_state.json", tmp_path, proc)
    finally:
        _kill_tree(proc)
    run_dir = ckpt.parents[2]
    first = ckpt.stat().st_mtime_ns
    assert json.loads((run_dir / "run_card.json").read_text())["status"] == "running"

    rerun = _launch(tmp_path, "submitit_local")
    assert rerun.wait(timeout=1200) == 0, _driver_log(tmp_path)
    assert ckpt.stat().st_mtime_ns == first, "the rerun started over instead of resuming"
    check_two_process_run(run_dir, launches=2)


@pytest.mark.slow
@pytest.mark.slurm
@pytest.mark.timeout(900)
def test_two_processes_as_two_slurm_tasks(slurm, tmp_path):
    proc = _launch(tmp_path, "submitit_slurm_cpu", "hydra.launcher.mem_gb=4")
    assert proc.wait(timeout=840) == 0, _driver_log(tmp_path)
    [run_dir] = [p.parent for p in tmp_path.glob("single/*/checkpoints")]
    check_two_process_run(run_dir, launches=1)
    logs = sorted(tmp_path.glob(".hydra/*/.submitit/*/*_log.err"))
    assert len(logs) == 2, "one SLURM task per process"
