"""Device check (issues 8, 12): GRPO steps at real Qwen3-1.7B shape on one GPU, HF generate then vLLM colocate.

    python benchmarks/device_check.py --budget-s 480   # one CUDA GPU: HF first, then vLLM if it can run
    python benchmarks/device_check.py --backends hf    # the HF generate path only
    python benchmarks/device_check.py --dry-run        # CPU: tiny shape, same control flow, configs checked

Made for a short loan of one GPU (about 10 minutes including installs): one global `--budget-s`
for everything, each backend in its own process with a timeout that is caught (a backend that
times out or fails is reported and the others still run), numbers printed as each step finishes.
HF runs first, on whatever torch the machine has where it is compatible; vLLM only when it is
installed, the driver is new enough for its CUDA build and the remaining budget allows.

No network: the policy is a randomly initialised Qwen3 of Qwen3-1.7B's layer shape, built on the
CPU from a Qwen3Config and saved once (each backend loads it on the CPU and the trainer moves it
to the GPU once), with the micro world's BPE tokenizer (its vocabulary, ~600 tokens, replaces
Qwen's 151,936, so embeddings and LM head are smaller than the real model's). The micro-batch is
the largest that mcsweep's memory estimate fits in half the GPU's free share (the estimate counts
only the large terms). The steps run through mcsweep's own run code (`build_trainer`:
MicroCoderGRPOTrainer, the sandboxed execution reward, the phase timer) on micro-world problems.
Printed per backend: generation tokens/s, seconds per step split into generation / reward /
update, peak GPU memory, and mcsweep's memory estimate beside it.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from transformers import TrainerCallback

ROOT = Path(__file__).resolve().parents[1]
# conf/launcher/* name the checkout's Hydra sweeper (hydra_plugins/, a namespace package), which a
# script run from benchmarks/ would not see otherwise.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
RESULT_TAG = "DEVICE_CHECK_RESULT "
PROGRESS_TAG = "DEVICE_CHECK_PROGRESS "
GIB = 1024**3
BACKENDS = ("hf", "vllm_colocate")
MIN_BACKEND_S = 60  # below this much budget a backend cannot load, warm up and take its steps
HEADROOM = 0.5  # of the trainer's memory, for what the estimate does not count
CPU_PLAN_GIB = 141.0  # the dry run sizes its micro-batch as for one H200
PROMPT_TOKENS = 128  # the micro world's prompts are <= 115 tokens under its tokenizer
MODELS = ("qwen3_1.7b", "qwen3_4b_instruct_2507", "ds_8b")
ROLLOUTS = ("hf", "vllm_colocate", "vllm_server")


@dataclass(frozen=True)
class Shape:
    """The decoder's layer shape; `QWEN3_1_7B` is the published Qwen3-1.7B config.json."""

    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    max_positions: int


QWEN3_1_7B = Shape(hidden=2048, intermediate=6144, layers=28, heads=16, kv_heads=8, head_dim=128, max_positions=40960)
TINY = Shape(hidden=64, intermediate=128, layers=2, heads=4, kv_heads=2, head_dim=16, max_positions=512)


@dataclass(frozen=True)
class Plan:
    """What one check runs: the same for every backend, so the numbers compare."""

    shape: Shape
    dtype: str
    steps: int
    prompts: int
    group: int
    max_length: int
    workers: int


GPU_PLAN = Plan(QWEN3_1_7B, "bfloat16", steps=4, prompts=8, group=8, max_length=256, workers=8)
DRY_PLAN = Plan(TINY, "float32", steps=2, prompts=2, group=2, max_length=16, workers=1)


def build_model_dir(plan: Plan, target: Path) -> Path:
    """A Hugging Face folder (config, random weights, micro tokenizer) that vLLM and HF both load."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    from mcsweep.micro.policy import train_tokenizer
    from mcsweep.micro.problems import WorldSpec
    from mcsweep.micro.world import sft_examples

    texts = [e["prompt"][0]["content"] + e["completion"][0]["content"] for e in sft_examples(WorldSpec(), 512, 0)]
    tokenizer = train_tokenizer(texts, 600)
    s = plan.shape
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=s.hidden,
        intermediate_size=s.intermediate,
        num_hidden_layers=s.layers,
        num_attention_heads=s.heads,
        num_key_value_heads=s.kv_heads,
        head_dim=s.head_dim,
        max_position_embeddings=s.max_positions,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        dtype=plan.dtype,
    )
    torch.manual_seed(0)
    # On the CPU, in the target dtype: the GPU sees the model once, when a backend's trainer moves it.
    model = Qwen3ForCausalLM._from_config(config, dtype=getattr(torch, plan.dtype))
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    return target


def overrides(plan: Plan, model_dir: Path, runs: Path, rollout: str, micro_batch: int | None = None) -> list[str]:
    """Hydra overrides: the 1.7B model config pointed at the local folder, micro-world data, one
    rollout per optimizer step (train_batch = mini_batch), no evaluation, no checkpoints, no W&B."""
    micro = [f"train.micro_batch={micro_batch}"] if micro_batch else []
    return [
        *micro,
        "model=qwen3_1.7b",
        f"model.path={model_dir}",
        f"model.dtype={plan.dtype}",
        f"rollout={rollout}",
        "data=hard",
        "data.n_test=1",
        "temperature=fixed_1.2",
        "algo=microcoder_grpo",
        "tracker=none",
        f"context.max_completion_length={plan.max_length}",
        f"context.eval_lengths=[{plan.max_length}]",
        f"context.common_eval_length={plan.max_length}",
        "context.repeat_window=8",
        f"batch.train_batch={plan.prompts}",
        f"batch.mini_batch={plan.prompts}",
        f"batch.group_size={plan.group}",
        f"train.steps={plan.steps}",
        "train.eval_at_start=false",
        "train.eval_every=1000000",
        "train.save_every=1000000",
        "train.completions_every=1000000",
        f"evaluator.workers={plan.workers}",
        f"runs_root={runs}",
    ]


def compose(overrides_: list[str]):
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    from mcsweep.config.validate import validate_config

    with initialize_config_dir(str(ROOT / "conf"), version_base="1.3"):
        return validate_config(hydra_compose("config", overrides=overrides_))


def check_configs(workdir: Path, backends: list[str]) -> list[str]:
    """The GPU plan's config for each backend, and every paper-scale model x rollout config, compose
    and validate; the vLLM choices pass the backend guard or fail it with its message (on CPU, or
    without vLLM, they must fail)."""
    from mcsweep.train.run import require_rollout_backend

    lines = []
    for rollout in backends:
        cfg = compose(overrides(GPU_PLAN, workdir / "model", workdir / "runs", rollout))
        mode = f" {cfg.rollout.vllm_mode} mode" if cfg.rollout.backend == "vllm" else ""
        lines.append(f"config ok: device plan rollout={rollout} ({cfg.rollout.backend}{mode})")
    for model in MODELS:
        for rollout in ROLLOUTS:
            cfg = compose(["scale=paper", f"model={model}", f"rollout={rollout}"])
            try:
                require_rollout_backend(cfg)
                guard = "backend available"
            except RuntimeError as err:
                guard = f"guard: {err}"
            lines.append(f"config ok: scale=paper model={model} rollout={rollout} ({guard})")
    return lines


def prompt_tokens(trainer) -> int:
    """The longest chat-formatted prompt among the first 256 training prompts, in tokens."""
    tok = trainer.processing_class
    rows = trainer.train_dataset.select(range(min(256, len(trainer.train_dataset))))
    return max(
        len(tok.apply_chat_template(row["prompt"], add_generation_prompt=True, return_dict=True)["input_ids"])
        for row in rows
    )


def peak_memory_gib() -> dict[str, float]:
    """Peak GPU memory through PyTorch's allocator (vLLM colocated allocates through it too), and
    what the device reports in use now; on CPU, the process's peak resident memory."""
    import torch

    if not torch.cuda.is_available():
        import resource

        return {"cpu_peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / GIB}
    free, total = torch.cuda.mem_get_info()
    return {
        "gpu_peak_allocated_gib": torch.cuda.max_memory_allocated() / GIB,
        "gpu_peak_reserved_gib": torch.cuda.max_memory_reserved() / GIB,
        "gpu_in_use_at_end_gib": (total - free) / GIB,
        "gpu_total_gib": total / GIB,
    }


class NoCheckpoint(TrainerCallback):
    """The trainer saves at its last step; a multi-GB checkpoint is disk time the check does not need."""

    def on_step_end(self, args, state, control, **kwargs):
        control.should_save = False
        return control


class PrintSteps(TrainerCallback):
    """Each step's numbers as soon as TRL logs them, so a backend cut short still shows its steps."""

    KEYS = ("time/step_s", "time/generation_s", "time/reward_s", "time/update_s", "completions/mean_length")

    def __init__(self, rollout: str) -> None:
        self.rollout = rollout

    def on_log(self, args, state, control, logs=None, **kwargs):
        shown = ", ".join(f"{k} {logs[k]:.2f}" for k in self.KEYS if k in (logs or {}))
        if shown:
            print(f"{PROGRESS_TAG}[{self.rollout}] step {state.global_step}: {shown}", flush=True)


def fitting_micro_batch(cfg, gpu_gib: float, prompt_len: int) -> int:
    """The largest micro-batch (a divisor of an update's sequences) whose estimate stays within
    half of what the trainer may use: the estimate counts only the large terms."""
    from mcsweep.gpu.memory import check_fits

    per_update = cfg.batch.mini_batch * cfg.batch.group_size
    for micro in sorted((m for m in range(1, per_update + 1) if per_update % m == 0), reverse=True):
        est = check_fits(cfg, 1, gpu_gib, micro_batch=micro, prompt_tokens=prompt_len)
        if est.total_bytes <= HEADROOM * est.available_bytes:
            return micro
    return 1


def gpu_gib() -> float:
    import torch

    return torch.cuda.get_device_properties(0).total_memory / GIB if torch.cuda.is_available() else CPU_PLAN_GIB


def run_backend(plan: Plan, model_dir: Path, workdir: Path, rollout: str) -> dict:
    """A few real GRPO steps through mcsweep's trainer; per-step numbers from the run store."""
    from mcsweep.evaluator import Evaluator
    from mcsweep.gpu.memory import check_fits
    from mcsweep.train.callbacks import EvalCallback
    from mcsweep.train.run import build_trainer, load_policy, policy_spec, require_rollout_backend
    from mcsweep.train.run_store import RunStore

    base = compose(overrides(plan, model_dir, workdir / "runs", rollout))
    micro = fitting_micro_batch(base, gpu_gib(), PROMPT_TOKENS)
    cfg = compose(overrides(plan, model_dir, workdir / "runs", rollout, micro))
    require_rollout_backend(cfg)
    print(f"{PROGRESS_TAG}[{rollout}] micro-batch {micro} of {plan.prompts * plan.group} sequences", flush=True)
    store = RunStore(workdir / "runs" / rollout).create()
    evaluator = Evaluator(
        comparator=cfg.evaluator.comparator, workers=cfg.evaluator.workers, timeout_s=cfg.evaluator.timeout_s
    )
    try:
        model, tokenizer = load_policy(cfg)  # on the CPU; the trainer moves it to the GPU once
        trainer = build_trainer(cfg, store, model, tokenizer, evaluator, policy_spec(cfg).world)
        trainer.remove_callback(EvalCallback)
        trainer.add_callback(NoCheckpoint())
        trainer.add_callback(PrintSteps(rollout))
        start = time.perf_counter()
        trainer.train()
        wall = time.perf_counter() - start
    finally:
        evaluator.close()
    memory = peak_memory_gib()
    estimate = check_fits(cfg, 1, memory.get("gpu_total_gib", gpu_gib()), prompt_tokens=prompt_tokens(trainer))
    colocated = estimate.vllm_share_bytes if cfg.rollout.vllm_mode == "colocate" else 0
    rows = [r for r in store.rows("metrics") if "time/step_s" in r]
    return {
        "rollout": rollout,
        "wall_s": wall,
        "steps": rows,
        "memory": memory,
        "micro_batch": micro,
        "n_params": sum(p.numel() for p in model.parameters()),
        "completions_per_step": plan.prompts * plan.group,
        "estimate_gib": (estimate.total_bytes + colocated) / GIB,
        "estimate": estimate.summary(),
    }


def summarise(result: dict) -> dict[str, float]:
    """Means over the steps after the first (the first pays compilation and warm-up)."""
    rows = result["steps"][1:] or result["steps"]
    mean = {
        k: sum(r[k] for r in rows) / len(rows)
        for k in ("time/step_s", "time/generation_s", "time/reward_s", "time/update_s", "completions/mean_length")
    }
    tokens = mean["completions/mean_length"] * result["completions_per_step"]
    mean["tokens_per_s"] = tokens / mean["time/generation_s"] if mean["time/generation_s"] else float("nan")
    return mean


def report_one(r: dict) -> str:
    if "error" in r:
        return f"[{r['rollout']}] no result: {r['error']}"
    m = summarise(r)
    mem = ", ".join(f"{k} {v:.2f}" for k, v in r["memory"].items())
    return "\n".join(
        [
            f"[{r['rollout']}] {r['n_params'] / 1e6:.1f}M params, {len(r['steps'])} steps in {r['wall_s']:.1f} s"
            f" (micro-batch {r.get('micro_batch', '?')})",
            f"  generation: {m['tokens_per_s']:.0f} tokens/s "
            f"({m['completions/mean_length']:.0f} tokens x {r['completions_per_step']} completions per step)",
            f"  seconds per step (mean of steps 2..N): total {m['time/step_s']:.2f} = generation "
            f"{m['time/generation_s']:.2f} + reward {m['time/reward_s']:.2f} + update {m['time/update_s']:.2f}"
            " (update: the step less TRL's generate-and-score phase)",
            f"  memory: {mem}",
            f"  estimate: {r['estimate_gib']:.1f} GiB; {r['estimate']}",
        ]
    )


def ratio(results: list[dict]) -> str | None:
    """vLLM / HF ratios when both backends produced numbers."""
    done = {r["rollout"]: r for r in results if "error" not in r}
    if "hf" not in done or "vllm_colocate" not in done:
        return None
    a, b = summarise(done["vllm_colocate"]), summarise(done["hf"])
    speed, step = a["tokens_per_s"] / b["tokens_per_s"], a["time/step_s"] / b["time/step_s"]
    return f"vllm_colocate / hf: generation tokens/s x{speed:.2f}, seconds per step x{step:.2f}"


def report(results: list[dict]) -> str:
    """Each backend's block, then the ratios."""
    return "\n".join([*(report_one(r) for r in results), *filter(None, [ratio(results)])])


def environment() -> str:
    """Versions and device, so a printed result says what produced it."""
    import torch
    import transformers
    import trl

    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU"
    vllm = importlib.util.find_spec("vllm") and importlib.metadata.version("vllm")
    return (
        f"device {device}; torch {torch.__version__} (CUDA {torch.version.cuda}), transformers "
        f"{transformers.__version__}, trl {trl.__version__}, vllm {vllm or 'not installed'}"
    )


def gpu_problem() -> str | None:
    """Why no backend can run on a GPU here, or None."""
    import torch

    if not torch.cuda.is_available():
        return "no CUDA GPU is visible: this check needs one (use --dry-run on a CPU machine)"
    return None


def vllm_problem() -> str | None:
    """Why vLLM cannot run here (not installed, no GPU, driver too old for its CUDA build, or its
    torch pin unmet), or None; the checks are `python -m mcsweep.gpu preflight`'s."""
    import torch

    from mcsweep.gpu.preflight import check_driver, check_vllm_pins, installed, nvidia_driver

    if importlib.util.find_spec("vllm") is None:
        return "vLLM is not installed (the [gpu] extra, docs/gpu.md)"
    if not torch.cuda.is_available():
        return "no CUDA GPU is visible"
    failed = [c for c in check_vllm_pins(importlib.metadata.requires("vllm") or [], installed) if not c.ok]
    driver = check_driver(nvidia_driver(), torch.version.cuda)
    failed += [] if driver.ok else [driver]
    return "; ".join(c.line() for c in failed) or None


def child(args: argparse.Namespace) -> None:
    plan = DRY_PLAN if args.dry_run else GPU_PLAN
    result = run_backend(plan, Path(args.model_dir), Path(args.workdir), args.child)
    print(RESULT_TAG + json.dumps(result), flush=True)


def run_isolated(backend: str, model_dir: Path, workdir: Path, timeout_s: float, dry_run: bool) -> dict:
    """One backend in a fresh process (GPU memory and vLLM's engine start from nothing). Its step
    lines are printed as they come; a timeout or a failure becomes an `error` result."""
    cmd = [sys.executable, __file__, "--child", backend, "--model-dir", str(model_dir), "--workdir", str(workdir)]
    proc = subprocess.Popen(
        [*cmd, *(["--dry-run"] if dry_run else [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        start_new_session=True,  # its own process group: a timeout kills the evaluator's workers too
    )
    tail: list[str] = []
    reader = threading.Thread(target=_relay, args=(proc.stdout, tail), daemon=True)
    reader.start()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        reader.join(10)
        return {"rollout": backend, "error": f"timed out after {timeout_s:.0f} s (--timeout-s / --budget-s)"}
    reader.join(10)
    found = [line[line.find(RESULT_TAG) + len(RESULT_TAG) :] for line in tail if RESULT_TAG in line]
    if proc.returncode or not found:
        last = "".join(line for line in tail if RESULT_TAG not in line)[-3000:]
        return {"rollout": backend, "error": f"exit {proc.returncode}:\n{last}"}
    return json.loads(found[-1])


def _relay(stream, tail: list[str]) -> None:
    """Print a child's progress lines at once; keep its last lines for an error report."""
    for line in stream:
        at = line.find(PROGRESS_TAG)  # progress bars on stderr may share the line
        if at >= 0:
            print(line[at + len(PROGRESS_TAG) :], end="", flush=True)
        tail.append(line)
        del tail[:-200]


def plan_backends(requested: list[str]) -> list[tuple[str, str | None]]:
    """(backend, why it is skipped or None), HF first."""
    order = sorted(requested, key=lambda b: b != "hf")
    return [(b, vllm_problem() if b == "vllm_colocate" else None) for b in order]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny shape, same control flow, configs checked")
    parser.add_argument("--backends", default="hf,vllm_colocate", help="comma-separated; hf always runs first")
    parser.add_argument("--budget-s", type=float, default=480, help="for the whole check (model build included)")
    parser.add_argument("--timeout-s", type=float, default=300, help="at most, per backend")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--model-dir", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return 0
    deadline = time.monotonic() + args.budget_s
    requested = args.backends.split(",")
    unknown = sorted(set(requested) - set(BACKENDS))
    if unknown:
        choices = ", ".join(BACKENDS)
        print(f"device check cannot run: --backends: unknown {unknown}; choose from {choices}", file=sys.stderr)
        return 2
    problem = None if args.dry_run else gpu_problem()
    if problem:
        print(f"device check cannot run: {problem}", file=sys.stderr)
        return 2
    plan = DRY_PLAN if args.dry_run else GPU_PLAN
    print(environment(), flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="mcsweep-device-") as tmp:
        workdir = Path(tmp)
        print("\n".join(check_configs(workdir, ["vllm_colocate", "hf"])), flush=True)
        print(f"plan: {plan}; budget {args.budget_s:.0f} s, per backend at most {args.timeout_s:.0f} s", flush=True)
        start = time.monotonic()
        model_dir = build_model_dir(plan, workdir / "model")
        print(f"model built on the CPU and saved in {time.monotonic() - start:.1f} s", flush=True)
        for backend, skip in plan_backends(requested):
            left = deadline - time.monotonic()
            if skip is None and left < MIN_BACKEND_S:
                skip = f"{left:.0f} s of the budget left, a backend needs at least {MIN_BACKEND_S} s"
            if skip:
                results.append({"rollout": backend, "error": f"skipped: {skip}"})
            else:
                timeout = min(args.timeout_s, left)
                results.append(run_isolated(backend, model_dir, workdir, timeout, args.dry_run))
            print(report_one(results[-1]), flush=True)
    if ratio(results):
        print(ratio(results))
    ran = [r for r in results if "error" not in r]
    failed = [r for r in results if "error" in r and not r["error"].startswith("skipped")]
    print(f"device check: {len(ran)} backend(s) measured, {len(failed)} failed or timed out", flush=True)
    return 1 if failed or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
