"""The trainer built by hand, for tests of its own seams (the run's `build_trainer` adds the judge and
callbacks)."""

from __future__ import annotations

from pathlib import Path

from mcsweep.train.data import prompt_dataset, train_problems
from mcsweep.train.reward import ExecutionReward
from mcsweep.train.run import grpo_args, load_policy, policy_spec
from mcsweep.train.run_store import RunStore
from mcsweep.train.trainer import MaskSettings, MicroCoderGRPOTrainer


def direct_trainer(
    cfg, run_dir: Path, reward: ExecutionReward, mask: MaskSettings, generation_kwargs=None, **trainer_kw
) -> MicroCoderGRPOTrainer:
    """The trainer on the tiny policy with ``reward`` as its only reward function, no judge, no callbacks."""
    model, tokenizer = load_policy(cfg)
    args = grpo_args(cfg, RunStore(run_dir).create(), 1.0)
    args.report_to, args.generation_kwargs = [], generation_kwargs
    return MicroCoderGRPOTrainer(
        model=model,
        reward_funcs=[reward],
        args=args,
        processing_class=tokenizer,
        reward=reward,
        train_dataset=prompt_dataset(train_problems(cfg.data, policy_spec(cfg).world)),
        mask=mask,
        **trainer_kw,
    )
