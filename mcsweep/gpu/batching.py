"""The batch axis on several GPUs with a small per-GPU micro-batch, in TRL's terms.

The study's batch axis is exact: `train_batch` prompts per rollout, `mini_batch` prompts per
optimizer update, G completions each. TRL's `per_device_train_batch_size` is per process, so on
N processes the same numbers need a micro-batch and gradient accumulation:
mini_batch x G sequences per update = micro x N x accumulation, and a rollout spans
train_batch / mini_batch updates (TRL counts `steps_per_generation` in micro-steps).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcsweep.config.schema import BatchConfig


@dataclass(frozen=True)
class BatchLayout:
    per_device_train_batch_size: int
    gradient_accumulation_steps: int
    steps_per_generation: int

    @property
    def updates_per_rollout(self) -> int:
        """Optimizer steps between two generations (what schedules count at)."""
        return self.steps_per_generation // self.gradient_accumulation_steps


def batch_layout(batch: BatchConfig, world: int, micro_batch: int | None = None) -> BatchLayout:
    """TRL's three batch numbers for `world` processes; `micro_batch` sequences per process per
    forward (default: the mini-batch's sequences split evenly over the processes)."""
    per_update = batch.mini_batch * batch.group_size
    micro = micro_batch or max(per_update // world, 1)
    if per_update % (micro * world):
        raise ValueError(
            f"train.micro_batch: {micro} sequences x {world} GPU(s) must divide the "
            f"{per_update} sequences of an update (batch.mini_batch x batch.group_size)"
        )
    if batch.train_batch % world:
        raise ValueError(
            f"batch.train_batch: {batch.train_batch} prompts must split evenly over {world} GPU(s): each process "
            "must hold whole groups of G completions (the truncation mask and the diversity metrics count per group)"
        )
    accumulation = per_update // (micro * world)
    return BatchLayout(micro, accumulation, batch.train_batch // batch.mini_batch * accumulation)
