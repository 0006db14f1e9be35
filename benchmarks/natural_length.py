"""The micro policy's natural response length against DAPO's overlong penalty start at each length.

    PYTHONPATH=$PWD python benchmarks/natural_length.py   (about 3 minutes on 2 busy cores)

Samples G=8 responses for 16 training prompts at T=1.2 with room to finish (256 tokens), then
prints, for each micro length L, where the penalty starts (L - 0.2 L) and the share of answers past
it: the share the first-rollout check (`algo.overlong_start_check`) sees at L.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import torch
from hydra import compose, initialize_config_dir

from mcsweep.config.validate import validate_config
from mcsweep.train.data import train_problems
from mcsweep.train.evaluation import EvalSettings, sample_completions
from mcsweep.train.reward import ScaledOverlongPunishment
from mcsweep.train.run import load_policy, policy_spec

CONF_DIR = str(Path(__file__).resolve().parents[1] / "conf")
LENGTHS = (112, 160, 224, 256)


def main() -> None:
    torch.set_num_threads(1)
    with initialize_config_dir(CONF_DIR, version_base="1.3"):
        cfg = validate_config(compose("config", overrides=["algo=dapo", "tracker=none"]))
    model, tokenizer = load_policy(cfg)
    prompts = train_problems(cfg.data, policy_spec(cfg).world)[:16]
    lengths = [len(s.ids) for s in sample_completions(model, tokenizer, prompts, EvalSettings(8, 1.2, (256,)))]
    print(f"n={len(lengths)} mean={statistics.mean(lengths):.1f} median={statistics.median(lengths)}")
    for length in LENGTHS:
        shaping = ScaledOverlongPunishment(length, 0.2)
        past = sum(n > shaping.penalty_start for n in lengths) / len(lengths)
        print(f"L={length}: penalty starts at {shaping.penalty_start}; {past:.0%} of answers past it")


if __name__ == "__main__":
    main()
