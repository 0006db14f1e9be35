"""The batch axis kept exact on several GPUs: TRL's three numbers from train/mini batch, G and N."""

from __future__ import annotations

import pytest
from trl import GRPOConfig

from mcsweep.config.schema import BatchConfig
from mcsweep.gpu.batching import batch_layout

PAPER = BatchConfig(train_batch=64, mini_batch=16, group_size=8)  # 512 sequences a rollout, 128 an update


@pytest.mark.parametrize(
    ("world", "micro", "expected"),
    [
        (1, None, (128, 1, 4)),  # today's single-process layout: a whole update in one forward
        (1, 4, (4, 32, 128)),
        (8, None, (16, 1, 4)),
        (8, 2, (2, 8, 32)),
        (4, 1, (1, 32, 128)),
    ],
)
def test_layouts_by_hand(world, micro, expected):
    layout = batch_layout(PAPER, world, micro)
    assert (
        layout.per_device_train_batch_size,
        layout.gradient_accumulation_steps,
        layout.steps_per_generation,
    ) == expected
    assert layout.updates_per_rollout == 4  # 64 / 16 prompts, whatever the split
    # sequences per update and per rollout stay the study's
    assert layout.per_device_train_batch_size * world * layout.gradient_accumulation_steps == 128
    assert layout.per_device_train_batch_size * world * layout.steps_per_generation == 512


def test_trl_agrees_on_one_process():
    layout = batch_layout(PAPER, 1, 8)
    args = GRPOConfig(
        output_dir="unused",
        per_device_train_batch_size=layout.per_device_train_batch_size,
        gradient_accumulation_steps=layout.gradient_accumulation_steps,
        steps_per_generation=layout.steps_per_generation,
        num_generations=8,
        use_cpu=True,
        report_to=[],
    )
    assert args.generation_batch_size == 64 * 8


def test_an_uneven_split_is_named():
    with pytest.raises(ValueError, match=r"train.micro_batch: 18 sequences x 7 GPU\(s\) must divide the 128"):
        batch_layout(PAPER, 7)


def test_each_process_holds_whole_groups():
    """6 prompts x G=4 over 4 GPUs splits an update evenly (24 sequences, 6 each) but not the groups: a
    process would hold a group and a half, and the truncation mask's per-group counts failed on it."""
    batch = BatchConfig(train_batch=6, mini_batch=6, group_size=4)
    with pytest.raises(ValueError, match=r"batch.train_batch: 6 prompts must split evenly over 4 GPU\(s\)"):
        batch_layout(batch, 4)
    assert batch_layout(batch, 2).per_device_train_batch_size == 12
