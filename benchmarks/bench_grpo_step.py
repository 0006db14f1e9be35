"""Seconds per GRPO step by phase, the stock TRL path against the fast one, on the same config and seed.

Usage: python benchmarks/bench_grpo_step.py [--steps N] [--paths old new] [hydra overrides ...]
Runs a real (short) training run per path in a temporary run store and prints one row per optimizer
step, the mean per rollout (a rollout generates `train_batch` x G completions and is followed by
`train_batch / mini_batch` updates) leaving out the first rollout, which pays one-off warm-up costs,
and the ratio old / new per phase. `old` is `rollout.sampler=hf_generate train.shared_prompt=false
evaluator.dedupe=false` (TRL's `generate`, TRL's forward, every completion graded on its own); `new`
is the config as given (the fast sampler, the shared-prompt forward and the judge's dedupe by
default). The paths alternate, so a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import pandas as pd
from hydra import compose, initialize_config_dir

from mcsweep.config.validate import validate_config
from mcsweep.train.run import train

CONF = str(Path(__file__).resolve().parents[1] / "conf")
PHASES = ["time/generation_s", "time/reward_s", "time/logprob_s", "time/update_s", "time/step_s"]
PATHS = {"old": ["rollout.sampler=hf_generate", "train.shared_prompt=false", "evaluator.dedupe=false"], "new": []}


def measure(steps: int, overrides: list[str]) -> pd.Series:
    """Mean seconds per rollout and phase over a short run (first rollout left out)."""
    with tempfile.TemporaryDirectory() as runs, initialize_config_dir(CONF, version_base="1.3"):
        raw = compose(
            "config",
            overrides=[
                f"train.steps={steps}",
                "train.eval_at_start=false",
                "train.eval_every=100000",
                "data.n_test=1",
                "train.eval_samples=1",
                "tracker=none",
                f"runs_root={runs}",
                *overrides,
            ],
        )
        cfg = validate_config(raw)
        metrics = pd.read_json(Path(train(cfg, raw)["run_dir"]) / "metrics.jsonl", lines=True)
    steps_df = metrics[metrics["step"] >= 1].set_index("step")
    per_rollout = cfg.batch.train_batch // cfg.batch.mini_batch
    print(
        f"\n{' '.join(overrides) or 'as configured'}: {cfg.batch.train_batch} prompts x G={cfg.batch.group_size} per "
        f"rollout, {per_rollout} update(s) per rollout, max length {cfg.context.max_completion_length}, torch "
        f"threads {cfg.launcher.torch_threads or 'default'}"
    )
    print(steps_df[[*PHASES, "completions/mean_length"]].round(3).to_string())
    return steps_df[PHASES].groupby((steps_df.index - 1) // per_rollout).sum().iloc[1:].mean()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--paths", nargs="+", choices=list(PATHS), default=["old", "new"])
    parser.add_argument("--repeats", type=int, default=1, help="runs per path, alternating old and new")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. batch=large launcher.torch_threads=1")
    args = parser.parse_args()
    runs: dict[str, list[pd.Series]] = {p: [] for p in args.paths}
    for _ in range(args.repeats):
        for path in args.paths:
            runs[path].append(measure(args.steps, [*args.overrides, *PATHS[path]]))
    table = pd.DataFrame({p: pd.concat(r, axis=1).mean(axis=1) for p, r in runs.items()})
    if {"old", "new"} <= set(table):
        table["old/new"] = table["old"] / table["new"]
    print("\nmean seconds per rollout (first rollout of each run left out):")
    print(table.round(3).to_string())


if __name__ == "__main__":
    main()
