"""Seconds per GRPO step, split into generation, reward, log-probs and update, for the default micro config.

Usage: python benchmarks/bench_grpo_step.py [--steps N] [hydra overrides ...]
Runs a real (short) training run in a temporary run store and prints one row per optimizer step,
then the mean per rollout (a rollout generates `train_batch` x G completions and is followed by
`train_batch / mini_batch` updates), leaving out the first rollout, which pays one-off warm-up costs.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. batch=large launcher.torch_threads=1")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as runs, initialize_config_dir(CONF, version_base="1.3"):
        raw = compose(
            "config",
            overrides=[
                f"train.steps={args.steps}",
                "train.eval_at_start=false",
                "train.eval_every=100000",
                "data.n_test=1",
                "train.eval_samples=1",
                "tracker=none",
                f"runs_root={runs}",
                *args.overrides,
            ],
        )
        cfg = validate_config(raw)
        metrics = pd.read_json(Path(train(cfg, raw)["run_dir"]) / "metrics.jsonl", lines=True)
    steps = metrics[metrics["step"] >= 1].set_index("step")
    per_rollout = cfg.batch.train_batch // cfg.batch.mini_batch
    print(
        f"config: {cfg.batch.train_batch} prompts x G={cfg.batch.group_size} per rollout, {per_rollout} update(s) "
        f"per rollout, max length {cfg.context.max_completion_length}, torch threads "
        f"{cfg.launcher.torch_threads or 'default'}"
    )
    print(steps[[*PHASES, "completions/mean_length"]].round(3).to_string())
    rollouts = steps[PHASES].groupby((steps.index - 1) // per_rollout).sum().iloc[1:]
    print(f"\nmean seconds per rollout over {len(rollouts)} rollouts (first left out):")
    print(rollouts.mean().round(3).to_string())


if __name__ == "__main__":
    main()
