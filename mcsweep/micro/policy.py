"""Build (once) and cache the micro policy: a tiny Qwen3 causal LM with its own BPE tokenizer.

The result is an ordinary Hugging Face folder, loaded through AutoModelForCausalLM/AutoTokenizer
exactly as a hub model would be. The folder is keyed by a hash of the build settings, so a changed
setting builds a new policy and an unchanged one is reused.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import json
import logging
import os
import random
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from mcsweep.micro.problems import WorldSpec
from mcsweep.micro.world import sft_examples

log = logging.getLogger(__name__)

BUILD_VERSION = 2  # 2: length-sorted micro-batches within each random SFT batch
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHAT_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] "
    "+ '<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


@dataclass(frozen=True)
class PolicySpec:
    """Everything that determines the built policy. Defaults follow the probe measured on 2 cores."""

    world: WorldSpec = field(default_factory=WorldSpec)
    vocab_size: int = 600
    hidden_size: int = 192
    intermediate_size: int = 512
    num_layers: int = 4
    num_heads: int = 4
    num_kv_heads: int = 2
    max_positions: int = 1024
    sft_steps: int = 600
    sft_batch: int = 32
    sft_micro_batch: int = 8
    sft_lr: float = 2e-3
    seed: int = 0

    def key(self) -> str:
        """Hash of the settings and of the SFT data itself, so a changed generator rebuilds."""
        settings = dataclasses.asdict(self)
        if self.world.version == 1:  # world 1's keys predate world versions; keep its cached policies
            del settings["world"]["version"]
        blob = json.dumps({"v": BUILD_VERSION, "data": _data_digest(self), **settings}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


@functools.cache
def _data_digest(spec: PolicySpec) -> str:
    examples = sft_examples(spec.world, spec.sft_steps * spec.sft_batch, spec.seed)
    return hashlib.sha256(json.dumps(examples, sort_keys=True).encode()).hexdigest()[:16]


def cache_root() -> Path:
    """`$MCSWEEP_CACHE`, else the user cache folder (XDG)."""
    base = os.environ.get("MCSWEEP_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "mcsweep"
    )
    return Path(base)


def policy_path(spec: PolicySpec) -> Path:
    """The cached policy folder, built first if missing. Safe when several runs start together."""
    target = cache_root() / "micro_policy" / spec.key()
    if (target / "build.json").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f"{spec.key()}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / "build.json").exists():
            with _all_cores():
                _build(spec, target)
    return target


@contextlib.contextmanager
def _all_cores() -> Iterator[None]:
    """The build runs once and alone (concurrent runs wait on its lock), so it uses every core this
    process may use, whatever torch thread count the calling run chose for its own training."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(len(os.sched_getaffinity(0)))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def train_tokenizer(texts: list[str], vocab_size: int):
    """A byte-level BPE tokenizer with Qwen-style chat tokens, wrapped for transformers."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", padding_side="left"
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def init_model(spec: PolicySpec, tokenizer):
    """A randomly initialised Qwen3 of the spec's shape."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(spec.seed)
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.num_layers,
        num_attention_heads=spec.num_heads,
        num_key_value_heads=spec.num_kv_heads,
        head_dim=spec.hidden_size // spec.num_heads,
        max_position_embeddings=spec.max_positions,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    return Qwen3ForCausalLM(config)


def _render(example: dict) -> str:
    return example["prompt"][0]["content"] + example["completion"][0]["content"]


def length_sorted_steps(lengths: list[int], batch: int, seed: int) -> list[int]:
    """A random order of the examples in which each step's `batch` examples come sorted by length.
    Cut into micro-batches, a step pads far less than a random batch does (a third of its tokens
    here), and, the loss being averaged over all the step's tokens, its gradient is the random
    batch's. Grouping by length across steps (transformers' LengthGroupedSampler, or length buckets
    in random order) pads less still, but left the warm start at 5% or 24% test pass@1, not 50%."""
    order = list(range(len(lengths)))
    random.Random(seed).shuffle(order)
    steps = (sorted(order[k : k + batch], key=lengths.__getitem__) for k in range(0, len(order), batch))
    return [i for step in steps for i in step]


def sft_trainer(spec: PolicySpec, examples: list[dict], tokenizer, model, out: Path):
    """TRL's SFTTrainer for the warm start: random batches, each run as length-sorted micro-batches
    accumulated into one step, so the build fits in 10 minutes on 2 cores."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    lengths = [len(ids) for ids in tokenizer([_render(e) for e in examples]).input_ids]
    ordered = [examples[i] for i in length_sorted_steps(lengths, spec.sft_batch, spec.seed)]
    args = SFTConfig(
        output_dir=str(out),
        max_steps=spec.sft_steps,
        per_device_train_batch_size=spec.sft_micro_batch,
        gradient_accumulation_steps=spec.sft_batch // spec.sft_micro_batch,
        learning_rate=spec.sft_lr,
        lr_scheduler_type="cosine",
        warmup_steps=10,
        logging_steps=25,
        save_strategy="no",
        report_to=[],
        seed=spec.seed,
        bf16=False,
        use_cpu=True,
        gradient_checkpointing=False,
        dataloader_num_workers=0,
        max_length=spec.max_positions,
        train_sampling_strategy="sequential",
    )
    return SFTTrainer(model=model, args=args, train_dataset=Dataset.from_list(ordered), processing_class=tokenizer)


def _build(spec: PolicySpec, target: Path) -> None:
    """Tokenizer, random init, then the SFT warm start; written atomically."""
    import torch

    start = time.time()
    log.info("building the micro policy %s (one-off, cached under %s)", spec.key(), target)
    examples = sft_examples(spec.world, spec.sft_steps * spec.sft_batch, spec.seed)
    tokenizer = train_tokenizer([_render(e) for e in examples], spec.vocab_size)
    model = init_model(spec, tokenizer)
    tmp = target.with_name(target.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    result = sft_trainer(spec, examples, tokenizer, model, tmp / "sft").train()
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    shutil.rmtree(tmp / "sft", ignore_errors=True)
    n_params = sum(p.numel() for p in model.parameters())
    build = {
        "spec": dataclasses.asdict(spec),
        "key": spec.key(),
        "n_params": n_params,
        "sft_loss": result.training_loss,
        "seconds": round(time.time() - start, 1),
        "torch_threads": torch.get_num_threads(),
    }
    (tmp / "build.json").write_text(json.dumps(build, indent=2))
    tmp.rename(target)
    log.info("micro policy built in %.0f s (%d parameters)", build["seconds"], n_params)
