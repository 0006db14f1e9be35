"""Evaluate a run's checkpoints at several sampling temperatures (the temperature-robustness panels).

    python -m mcsweep.train.temperature_eval RUN_DIR [--temperatures 0.6 1.2 ...] [--steps 0 20 ...]

Appends rows to the run's eval_samples.jsonl (with `temperature` and `step` = the checkpoint's
training step; step 0 is the initial policy) and one summary row per (step, temperature) to
evals.jsonl-compatible `temperature_evals.jsonl`. Pairs already evaluated are skipped, so an
interrupted call resumes. The settings, batches and seeds are the in-run robustness evaluations'
(`train.robustness_temperatures`), so a pair gives the same rows either way. With the run's tracker
on, the rows are logged into the run's own W&B run (resumed by its id) and the run folder is uploaded
as a new `run-store` artifact version.
"""

from __future__ import annotations

import argparse
import gc
from dataclasses import replace
from pathlib import Path

import torch
from accelerate import Accelerator
from omegaconf import OmegaConf
from tqdm import tqdm

from mcsweep.config.schema import RunConfig, plain_dict
from mcsweep.config.validate import validate_config
from mcsweep.train.data import test_problems
from mcsweep.train.eval_split import evaluate_split
from mcsweep.train.run import chat_format, load_policy, make_evaluator, policy_spec, robustness_settings
from mcsweep.train.run_store import RunStore
from mcsweep.train.tracking import log_eval_rows, log_run_store, start_wandb

DEFAULT_TEMPERATURES = (0.6, 1.2, 1.8, 2.4, 3.0, 3.6)


def checkpoints(store: RunStore, steps: list[int] | None) -> dict[int, Path | None]:
    """{training step: checkpoint folder}; step 0 (None) is the initial policy."""
    found = {int(p.name.split("-")[-1]): p for p in store.path.glob("checkpoints/checkpoint-*")}
    found[0] = None
    if steps is None:
        return dict(sorted(found.items()))
    missing = sorted(set(steps) - set(found))
    if missing:
        raise SystemExit(f"no checkpoint for step(s) {missing} in {store.path}; have {sorted(found)}")
    return {s: found[s] for s in sorted(steps)}


def load_checkpoint(cfg: RunConfig, path: Path, device):
    """A checkpoint's policy with the run's dtype and attention, on the device the base policy uses."""
    from transformers import AutoModelForCausalLM

    if not any(path.glob("*.safetensors")) and not any(path.glob("pytorch_model*.bin")):
        raise SystemExit(
            f"{path} holds no model weights to load (an FSDP run with fsdp_state_dict_type SHARDED_STATE_DICT "
            "saves shards only): merge them first (`accelerate merge-weights <checkpoint>/pytorch_model_fsdp_0 "
            "<checkpoint>`), or evaluate in the run with train.robustness_temperatures"
        )

    return AutoModelForCausalLM.from_pretrained(
        path, dtype=getattr(torch, cfg.model.dtype), attn_implementation=cfg.model.attn_implementation
    ).to(device)


def _done(store: RunStore) -> set[tuple[int, float]]:
    return {(r["step"], r["temperature"]) for r in store.rows("temperature_evals")}


def pending(
    found: dict[int, Path | None], temperatures: list[float], done: set[tuple[int, float]]
) -> list[tuple[int, Path | None, list[float]]]:
    """(step, checkpoint, temperatures not yet evaluated) per step with any, in step order (step 0 first)."""
    todo = [(step, path, [t for t in temperatures if (step, t) not in done]) for step, path in found.items()]
    return [(step, path, temps) for step, path, temps in sorted(todo, key=lambda x: x[0]) if temps]


def _release() -> None:
    """Return a dropped policy's memory to the device before the next one loads."""
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def evaluate_at_temperatures(
    run_dir: Path, temperatures: list[float], steps: list[int] | None, samples: int | None = None
) -> int:
    """Evaluate each (checkpoint, temperature) pair not yet done; returns how many were run.

    One policy is on the device at a time, each loaded once for all its temperatures: the base policy
    (step 0) and two checkpoints held at once did not fit an 80 GB GPU for the 8B model in float32."""
    store = RunStore(run_dir)
    cfg = validate_config(OmegaConf.load(run_dir / "config.yaml"))
    problems = test_problems(cfg.data, policy_spec(cfg).world)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    base, tokenizer = load_policy(cfg)
    todo = pending(checkpoints(store, steps), temperatures, _done(store))
    evaluator = make_evaluator(cfg, shadow=False)
    settings = robustness_settings(cfg, chat_format(cfg, tokenizer))
    if samples:
        settings = replace(settings, samples=samples)
    acc = Accelerator(cpu=not torch.cuda.is_available())
    card = store.read_json("run_card.json")
    run_id = card.get("run_id", run_dir.name)
    wandb_run = start_wandb(cfg, run_id, run_dir, plain_dict(cfg), card) if todo else None
    progress = tqdm(total=sum(len(temps) for _, _, temps in todo), desc="checkpoint x temperature")
    try:
        for step, path, temps in todo:
            policy = base.to(device) if path is None else load_checkpoint(cfg, path, device)
            base = None  # only step 0 evaluates it, and step 0 comes first
            for temp in temps:
                s = replace(settings, temperature=temp, seed=settings.seed + step)
                summaries, rows = evaluate_split(policy, tokenizer, acc, problems, evaluator, s, step)
                store.append("eval_samples", rows)
                summary = {**summaries[0], "temperature": temp}
                store.append("temperature_evals", [summary])
                log_eval_rows("temperature_evals", [summary])
                progress.update()
            policy = None
            _release()
    finally:
        progress.close()
        evaluator.close()
        if wandb_run is not None:
            log_run_store(run_dir, "temperature-eval")
            wandb_run.finish()
    return progress.n


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m mcsweep.train.temperature_eval",
        description="Evaluate a run's checkpoints at several temperatures.",
    )
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--temperatures", type=float, nargs="+", default=list(DEFAULT_TEMPERATURES))
    parser.add_argument("--steps", type=int, nargs="+", default=None, help="checkpoint steps (default: all, and 0)")
    parser.add_argument("--samples", type=int, default=None, help="samples per problem (default: the run's)")
    args = parser.parse_args(argv)
    if not (args.run_dir / "config.yaml").exists():
        raise SystemExit(f"{args.run_dir} is not a run folder (no config.yaml)")
    n = evaluate_at_temperatures(args.run_dir, args.temperatures, args.steps, args.samples)
    print(f"evaluated {n} (checkpoint, temperature) pairs in {args.run_dir}")


if __name__ == "__main__":
    main()
