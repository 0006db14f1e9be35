"""Process CPU seconds of a GRPO rollout's generation and of its update, stock TRL against the fast paths.

Usage: python benchmarks/bench_fast_paths.py [--rounds N] [hydra overrides ...]
Builds the trainer of the default micro config once, then per round and path (old: TRL's
`generate` and TRL's forward; new: `mcsweep.train.sampler` and `mcsweep.train.shared_prompt`), from
the same seed: generates one rollout's completions (`train_batch` x G) and runs the loss's forward
and backward on one scored rollout. CPU seconds of this process, not wall seconds, so that a shared
machine slows neither path more than the other (torch runs on `launcher.torch_threads` threads).
The whole-step ratio adds the reward's wall seconds for one rollout (it runs in sandboxed child
processes, outside this process's CPU time) to both paths. `benchmarks/bench_grpo_step.py` times
whole training steps in wall seconds.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch
from hydra import compose, initialize_config_dir

from mcsweep.config.validate import validate_config
from mcsweep.train.run import build_trainer, load_policy, make_evaluator, policy_spec
from mcsweep.train.run_store import RunStore

CONF = str(Path(__file__).resolve().parents[1] / "conf")


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as runs, initialize_config_dir(CONF, version_base="1.3"):
        raw = compose("config", overrides=["tracker=none", f"runs_root={runs}", *args.overrides])
        cfg = validate_config(raw)
        if cfg.launcher.torch_threads:
            torch.set_num_threads(cfg.launcher.torch_threads)
        model, tokenizer = load_policy(cfg)
        evaluator = make_evaluator(cfg, shadow=False)
        try:
            trainer = build_trainer(
                cfg, RunStore(Path(runs) / "b").create(), model, tokenizer, evaluator, policy_spec(cfg).world
            )
            trainer.model.train()
            trainer.current_gradient_accumulation_steps = trainer.args.gradient_accumulation_steps  # set by train()
            rows = [trainer.train_dataset[i] for i in range(cfg.batch.train_batch) for _ in range(cfg.batch.group_size)]
            prompt_ids = trainer._tokenize_prompts([r["prompt"] for r in rows])[0]
            reward_start = trainer.execution_reward.total_seconds
            scored = trainer._generate_and_score_completions(rows)
            reward_s = trainer.execution_reward.total_seconds - reward_start
            times = {(phase, path): [] for phase in ("generation", "update") for path in ("old", "new")}
            for r in range(args.rounds + 1):  # round 0 warms up
                for path, sampler, shared in (("old", "hf_generate", False), ("new", "fast", True)):
                    trainer.sampler, trainer.shared_prompt = sampler, shared
                    torch.manual_seed(r)
                    gen, _ = _cpu(lambda: trainer._generate_single_turn(prompt_ids, None, {}, cfg.batch.group_size))
                    trainer.model.zero_grad()
                    upd, _ = _cpu(lambda: trainer.compute_loss(trainer.model, scored).backward())
                    if r:
                        times["generation", path].append(gen)
                        times["update", path].append(upd)
        finally:
            evaluator.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"config: {cfg.batch.train_batch} prompts x G={cfg.batch.group_size}, max length "
        f"{cfg.context.max_completion_length}, torch threads {torch.get_num_threads()}, {args.rounds} rounds (median)"
    )
    print(f"{'phase':<12}{'old cpu s':>11}{'new cpu s':>11}{'old/new':>9}")
    for phase in ("generation", "update"):
        old, new = med[phase, "old"], med[phase, "new"]
        print(f"{phase:<12}{old:>11.3f}{new:>11.3f}{old / new:>9.2f}")
    old = med["generation", "old"] + med["update", "old"] + reward_s
    new = med["generation", "new"] + med["update", "new"] + reward_s
    print(f"{'reward':<12}{reward_s:>11.3f}{reward_s:>11.3f}{1:>9.2f}   (wall s of one rollout, same code in both)")
    print(f"{'step':<12}{old:>11.3f}{new:>11.3f}{old / new:>9.2f}")


if __name__ == "__main__":
    main()
