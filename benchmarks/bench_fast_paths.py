"""Process CPU seconds of a GRPO rollout's generation and of its update, stock TRL against the fast paths.

Usage: python benchmarks/bench_fast_paths.py [--rounds N] [hydra overrides ...]
Builds the trainer of the default micro config once, then per round and path (old: TRL's
`generate` and TRL's forward; new: `mcsweep.train.sampler` and `mcsweep.train.shared_prompt`;
new+bf16: the same with `train.cpu_bf16_update`, bf16 matrix products in the update), from
the same seed: generates one rollout's completions (`train_batch` x G) and runs the loss's forward
and backward on one scored rollout. CPU seconds of this process, not wall seconds, so that a shared
machine slows neither path more than the other (torch runs on `launcher.torch_threads` threads).
The whole-step ratio adds the reward's wall seconds for one rollout (it runs in sandboxed child
processes, outside this process's CPU time): the same completions graded by both comparators, as
training grades them, under the old rule (every test runs once a shadow comparator is asked for,
`run_all`, and every completion runs on its own) and under the new one (grading stops once every
comparator has failed a test, and identical code for one problem runs once: `evaluator.dedupe`).
`benchmarks/bench_grpo_step.py` times whole training steps in wall seconds.
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
from mcsweep.evaluator import Evaluator
from mcsweep.train import precision
from mcsweep.train.reward import ExecutionReward
from mcsweep.train.run import build_trainer, load_policy, make_evaluator, policy_spec
from mcsweep.train.run_store import RunStore

CONF = str(Path(__file__).resolve().parents[1] / "conf")
# path: (rollout.sampler, train.shared_prompt, train.cpu_bf16_update); "old" is stock TRL.
PATHS = {"old": ("hf_generate", False, False), "new": ("fast", True, False), "new+bf16": ("fast", True, True)}
NEW = [p for p in PATHS if p != "old"]


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def _reward_wall_s(evaluator: Evaluator, rows: list[dict], texts: list[str]) -> float:
    """Wall seconds to grade one rollout's completions as the training reward does."""
    reward = ExecutionReward(evaluator)
    reward(None, texts, [r["input_output"] for r in rows], [r["problem_id"] for r in rows])
    return reward.total_seconds


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
        evaluator = make_evaluator(cfg, shadow=True)  # as training grades: both comparators
        e = evaluator
        old_rule = Evaluator(
            e.comparators[0].name,
            e.workers,
            e.limits.timeout_s,
            [c.name for c in e.comparators[1:]],
            run_all=True,
            memory_mb=e.limits.memory_mb,
        )
        try:
            trainer = build_trainer(
                cfg, RunStore(Path(runs) / "b").create(), model, tokenizer, evaluator, policy_spec(cfg).world
            )
            trainer.model.train()
            trainer.current_gradient_accumulation_steps = trainer.args.gradient_accumulation_steps  # set by train()
            rows = [trainer.train_dataset[i] for i in range(cfg.batch.train_batch) for _ in range(cfg.batch.group_size)]
            prompt_ids = trainer._tokenize_prompts([r["prompt"] for r in rows])[0]
            scored = trainer._generate_and_score_completions(rows)
            zero_advantage = f"{int((scored['advantages'] == 0).sum())} of {len(rows)}"
            texts = tokenizer.batch_decode(scored["completion_ids"], skip_special_tokens=True)
            times = {(phase, path): [] for phase in ("generation", "update", "reward") for path in PATHS}
            for r in range(args.rounds + 1):  # round 0 warms up
                for path, (sampler, shared, bf16) in PATHS.items():
                    trainer.sampler, trainer.shared_prompt, trainer.cpu_bf16_update = sampler, shared, bf16
                    attention = precision.FP32_ATTENTION if bf16 else "sdpa"
                    trainer.accelerator.unwrap_model(trainer.model).set_attn_implementation(attention)
                    torch.manual_seed(r)
                    gen, _ = _cpu(lambda: trainer._generate_single_turn(prompt_ids, None, {}, cfg.batch.group_size))
                    trainer.model.zero_grad()
                    upd, _ = _cpu(lambda: trainer.compute_loss(trainer.model, scored).backward())
                    rew = _reward_wall_s(old_rule if path == "old" else evaluator, rows, texts)
                    if r:
                        times["generation", path].append(gen)
                        times["update", path].append(upd)
                        times["reward", path].append(rew)
        finally:
            evaluator.close()
            old_rule.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"config: {cfg.batch.train_batch} prompts x G={cfg.batch.group_size}, max length "
        f"{cfg.context.max_completion_length}, torch threads {torch.get_num_threads()}, {args.rounds} rounds (median)"
    )
    print(f"{'phase':<12}" + "".join(f"{p + ' cpu s':>15}" for p in PATHS) + "".join(f"{'old/' + p:>14}" for p in NEW))
    rows = {phase: [med[phase, p] for p in PATHS] for phase in ("generation", "update", "reward")}
    rows["step"] = [sum(rows[phase][i] for phase in ("generation", "update", "reward")) for i in range(len(PATHS))]
    for phase, values in rows.items():
        ratios = "".join(f"{values[0] / v:>14.2f}" for v in values[1:])
        print(f"{phase:<12}" + "".join(f"{v:>15.3f}" for v in values) + ratios)
    print(
        f"update: {zero_advantage} rows have zero advantage in the scored rollout (on the new paths they skip "
        "the forward: TRL's frac_reward_zero_std says how often this happens in a run)"
    )
    print(
        "reward: wall seconds of one rollout's scoring by both comparators (sandboxed processes); old: every "
        "test runs, new: until every comparator has failed"
    )


if __name__ == "__main__":
    main()
