"""Seconds per GRPO step, split into generation, reward and update, for the default micro config.

Usage: python benchmarks/bench_grpo_step.py [--steps N] [hydra overrides ...]
Runs a real (short) training run in a temporary run store and prints one row per step plus the
mean over the steps after the first (the first step pays one-off warm-up costs).
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
COLUMNS = ["time/step_s", "time/generation_s", "time/reward_s", "time/update_s",
           "completions/mean_length", "completions/clipped_ratio"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. batch=micro_tb16")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as runs, initialize_config_dir(CONF, version_base="1.3"):
        raw = compose("config", overrides=[
            f"train.steps={args.steps}", "train.eval_at_start=false", "train.eval_every=100000",
            "data.n_test=1", "train.eval_samples=1", "tracker=none", f"runs_root={runs}", *args.overrides])
        cfg = validate_config(raw)
        summary = train(cfg, raw)
        metrics = pd.read_json(Path(summary["run_dir"]) / "metrics.jsonl", lines=True)
    steps = metrics[metrics["step"] >= 1].set_index("step")[COLUMNS]
    print(f"config: batch {cfg.batch.train_batch}x{cfg.batch.group_size}, max length "
          f"{cfg.context.max_completion_length}, torch threads {cfg.launcher.torch_threads or 'default'}")
    print(steps.round(3).to_string())
    print("\nmean over steps 2..N (seconds):")
    print(steps.iloc[1:][COLUMNS[:4]].mean().round(3).to_string())


if __name__ == "__main__":
    main()
