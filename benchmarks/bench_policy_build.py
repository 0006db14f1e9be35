"""Seconds per SFT step of the micro policy build, by micro-batch size, side by side in one process.

Usage: python benchmarks/bench_policy_build.py [--steps N] [--threads T] [--micro 32 8 4]
A micro-batch as large as the batch (32) is how build version 1 ran each random batch, whole and
padded to its longest example; the default (8) runs it as length-sorted micro-batches. Every size
trains the same examples from the same initial weights. Prints seconds per step, the fraction of
padding tokens and the projected SFT time of the full build, and the ratio to the first size.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time

import torch
from transformers.trainer_callback import ProgressCallback

from mcsweep.micro.policy import PolicySpec, _render, init_model, sft_trainer, train_tokenizer
from mcsweep.micro.world import sft_examples


def padding_fraction(trainer) -> float:
    masks = [batch["attention_mask"] for batch in trainer.get_train_dataloader()]
    return sum(int((m == 0).sum()) for m in masks) / sum(m.numel() for m in masks)


def seconds_per_step(spec: PolicySpec, examples: list[dict], tokenizer, steps: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as out:
        trainer = sft_trainer(spec, examples, tokenizer, init_model(spec, tokenizer), out)
        trainer.remove_callback(ProgressCallback)
        padding = padding_fraction(trainer)
        start = time.perf_counter()
        trainer.train()
        return (time.perf_counter() - start) / steps, padding


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--micro", type=int, nargs="+", default=[32, 8])
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    default = PolicySpec()
    examples = sft_examples(default.world, default.sft_steps * default.sft_batch, default.seed)
    tokenizer = train_tokenizer([_render(e) for e in examples], default.vocab_size)
    part = examples[: args.steps * default.sft_batch]
    print(f"{args.steps} SFT steps of {default.sft_batch} examples, {args.threads} torch threads")
    print("micro_batch  s/step  padding  projected_sft_s  ratio")
    first = None
    for micro in args.micro:
        spec = dataclasses.replace(default, sft_steps=args.steps, sft_micro_batch=micro)
        per_step, padding = seconds_per_step(spec, part, tokenizer, args.steps)
        first = first or per_step
        print(
            f"{micro:>11}  {per_step:6.3f}  {padding:7.1%}  {per_step * default.sft_steps:15.0f}  "
            f"{per_step / first:5.2f}"
        )


if __name__ == "__main__":
    main()
