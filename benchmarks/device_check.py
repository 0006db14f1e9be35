"""Device check (issue 8): GRPO steps at real Qwen3-1.7B shape, vLLM colocate rollouts against HF generate.

    python benchmarks/device_check.py                 # one CUDA GPU with vLLM: both backends, < 8 min
    python benchmarks/device_check.py --backends hf   # a GPU without vLLM: the HF generate path only
    python benchmarks/device_check.py --dry-run       # CPU: tiny shape, HF path, configs checked

No network: the policy is a randomly initialised Qwen3 of Qwen3-1.7B's layer shape, built from a
Qwen3Config, with the micro world's BPE tokenizer (its vocabulary, ~600 tokens, replaces Qwen's
151,936, so embeddings and LM head are smaller than the real model's). The steps run through
mcsweep's own run code (`build_trainer`: MicroCoderGRPOTrainer, the sandboxed execution reward,
the phase timer) on micro-world problems. Each backend runs in its own process, so its peak GPU
memory is its own. Printed per backend: generation tokens/s, seconds per step split into
generation / reward / update, peak GPU memory, and mcsweep's memory estimate beside it.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import tempfile
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
GIB = 1024**3
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
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with torch.device(device):
        model = Qwen3ForCausalLM(config).to(getattr(torch, plan.dtype))
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    return target


def overrides(plan: Plan, model_dir: Path, runs: Path, rollout: str) -> list[str]:
    """Hydra overrides: the 1.7B model config pointed at the local folder, micro-world data, one
    rollout per optimizer step (train_batch = mini_batch), no evaluation, no checkpoints, no W&B."""
    return [
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


def run_backend(plan: Plan, model_dir: Path, workdir: Path, rollout: str) -> dict:
    """A few real GRPO steps through mcsweep's trainer; per-step numbers from the run store."""
    from mcsweep.evaluator import Evaluator
    from mcsweep.gpu.memory import check_fits
    from mcsweep.train.callbacks import EvalCallback
    from mcsweep.train.run import build_trainer, load_policy, policy_spec, require_rollout_backend
    from mcsweep.train.run_store import RunStore

    cfg = compose(overrides(plan, model_dir, workdir / "runs", rollout))
    require_rollout_backend(cfg)
    store = RunStore(workdir / "runs" / rollout).create()
    evaluator = Evaluator(
        comparator=cfg.evaluator.comparator, workers=cfg.evaluator.workers, timeout_s=cfg.evaluator.timeout_s
    )
    try:
        model, tokenizer = load_policy(cfg)
        trainer = build_trainer(cfg, store, model, tokenizer, evaluator, policy_spec(cfg).world)
        trainer.remove_callback(EvalCallback)
        trainer.add_callback(NoCheckpoint())
        start = time.perf_counter()
        trainer.train()
        wall = time.perf_counter() - start
    finally:
        evaluator.close()
    memory = peak_memory_gib()
    estimate = check_fits(cfg, 1, memory.get("gpu_total_gib", 141.0), prompt_tokens=prompt_tokens(trainer))
    colocated = estimate.vllm_share_bytes if cfg.rollout.vllm_mode == "colocate" else 0
    rows = [r for r in store.rows("metrics") if "time/step_s" in r]
    return {
        "rollout": rollout,
        "wall_s": wall,
        "steps": rows,
        "memory": memory,
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


def report(results: list[dict]) -> str:
    lines = []
    for r in results:
        m = summarise(r)
        mem = ", ".join(f"{k} {v:.2f}" for k, v in r["memory"].items())
        lines += [
            f"[{r['rollout']}] {r['n_params'] / 1e6:.1f}M params, {len(r['steps'])} steps in {r['wall_s']:.1f} s",
            f"  generation: {m['tokens_per_s']:.0f} tokens/s "
            f"({m['completions/mean_length']:.0f} tokens x {r['completions_per_step']} completions per step)",
            f"  seconds per step (mean of steps 2..N): total {m['time/step_s']:.2f} = generation "
            f"{m['time/generation_s']:.2f} + reward {m['time/reward_s']:.2f} + update {m['time/update_s']:.2f}"
            " (update: the step less TRL's generate-and-score phase)",
            f"  memory: {mem}",
            f"  estimate: {r['estimate_gib']:.1f} GiB; {r['estimate']}",
        ]
    if len(results) == 2:
        a, b = (summarise(r) for r in results)
        speed, step = a["tokens_per_s"] / b["tokens_per_s"], a["time/step_s"] / b["time/step_s"]
        lines.append(
            f"{results[0]['rollout']} / {results[1]['rollout']}: generation tokens/s x{speed:.2f}, "
            f"seconds per step x{step:.2f}"
        )
    return "\n".join(lines)


def environment() -> str:
    """Versions and device, so a printed result says what produced it."""
    import torch
    import transformers
    import trl

    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU"
    vllm = importlib.util.find_spec("vllm") and importlib.metadata.version("vllm")
    return (
        f"device {device}; torch {torch.__version__}, transformers {transformers.__version__}, "
        f"trl {trl.__version__}, vllm {vllm or 'not installed'}"
    )


def preflight(backends: list[str]) -> str | None:
    """Why the GPU check cannot run here, or None."""
    import torch

    unknown = sorted(set(backends) - {"vllm_colocate", "hf"})
    if unknown:
        return f"--backends: unknown {unknown}; choose from vllm_colocate, hf"
    if not torch.cuda.is_available():
        return "no CUDA GPU is visible: this check needs one (use --dry-run on a CPU machine)"
    if "vllm_colocate" in backends and importlib.util.find_spec("vllm") is None:
        return (
            "vLLM is not installed: install the GPU extra (see docs/gpu.md), or run the HF path alone "
            "with --backends hf"
        )
    return None


def child(args: argparse.Namespace) -> None:
    result = run_backend(GPU_PLAN, Path(args.model_dir), Path(args.workdir), args.child)
    print(RESULT_TAG + json.dumps(result), flush=True)


def run_isolated(backend: str, model_dir: Path, workdir: Path, timeout_s: int) -> dict:
    """One backend in a fresh process, so GPU memory and vLLM's engine start from nothing."""
    cmd = [sys.executable, __file__, "--child", backend, "--model-dir", str(model_dir), "--workdir", str(workdir)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT)
    found = [line for line in proc.stdout.splitlines() if line.startswith(RESULT_TAG)]
    if proc.returncode or not found:
        tail = (proc.stdout + proc.stderr)[-4000:]
        raise RuntimeError(f"backend {backend} failed (exit {proc.returncode}):\n{tail}")
    return json.loads(found[-1][len(RESULT_TAG) :])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny shape, HF path, configs checked")
    parser.add_argument("--backends", default="vllm_colocate,hf", help="comma-separated rollout configs")
    parser.add_argument("--timeout-s", type=int, default=200, help="per backend")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--model-dir", help=argparse.SUPPRESS)
    parser.add_argument("--workdir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return 0
    backends = ["hf"] if args.dry_run else args.backends.split(",")
    problem = None if args.dry_run else preflight(backends)
    if problem:
        print(f"device check cannot run: {problem}", file=sys.stderr)
        return 2
    plan = DRY_PLAN if args.dry_run else GPU_PLAN
    print(environment())
    with tempfile.TemporaryDirectory(prefix="mcsweep-device-") as tmp:
        workdir = Path(tmp)
        print("\n".join(check_configs(workdir, ["vllm_colocate", "hf"] if args.dry_run else backends)))
        print(f"plan: {plan}")
        model_dir = build_model_dir(plan, workdir / "model")
        if args.dry_run:
            results = [run_backend(plan, model_dir, workdir, "hf")]
        else:
            results = [run_isolated(b, model_dir, workdir, args.timeout_s) for b in backends]
    print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
