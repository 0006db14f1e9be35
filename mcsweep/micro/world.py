"""The micro world's named problem sets, and the prompt format shared by SFT, GRPO and evaluation."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from mcsweep.micro.problems import WorldSpec, generate, problem_completion

SYSTEM_HINT = "Write a plan, then the full Python solution in one ```python block."


@dataclass(frozen=True)
class SetSpec:
    """One named problem set: which side of the split it comes from, its size and difficulty mix."""

    split: str
    n: int
    mix: dict[str, float] = field(default_factory=dict)


# "easy" stands in for DeepCoder, "hard" for MicroCoder-Dataset (the data axis); "pool" is the raw
# input of the dataset pipeline; "sft" warm-starts the policy; "test" is held out.
DEFAULT_SETS: dict[str, SetSpec] = {
    "sft": SetSpec("sft", 4000, {"easy": 0.3, "medium": 0.4, "hard": 0.3}),
    "easy": SetSpec("easy", 1000, {"easy": 0.6, "medium": 0.35, "hard": 0.05}),
    "hard": SetSpec("hard", 1000, {"easy": 0.1, "medium": 0.3, "hard": 0.6}),
    "pool": SetSpec("pool", 1500, {"easy": 0.35, "medium": 0.35, "hard": 0.3}),
    "test": SetSpec("test", 200, {"easy": 0.3, "medium": 0.4, "hard": 0.3}),
}
# World 2's test set is larger, so that an evaluation's own noise (problems x samples) can be brought
# under 1.5 pp pass@1 (`mcsweep.micro stats` measures it); a set's first n problems are its n-sample.
WORLD2_TEST_SIZE = 800
_OFFSETS = {"sft": 0, "easy": 1, "hard": 2, "pool": 3, "test": 0}


def problem_set(name: str, spec: WorldSpec, n: int | None = None) -> list[dict]:
    """The named set; the first `n` problems when `n` is given (a prefix, so smaller is a subset)."""
    if name not in DEFAULT_SETS:
        raise ValueError(f"unknown micro-world set {name!r}; choose one of {sorted(DEFAULT_SETS)}")
    s = DEFAULT_SETS[name]
    split = "test" if name == "test" else ("sft" if name == "sft" else "rl")
    size = WORLD2_TEST_SIZE if name == "test" and spec.version > 1 else s.n
    return generate(split, n if n is not None else size, s.mix, spec, seed_offset=_OFFSETS[name], name=name)


def prompt_messages(problem: dict) -> list[dict[str, str]]:
    """The chat prompt for a problem, identical for micro and hub models."""
    text = f"{problem['question']}\n{SYSTEM_HINT}"
    if problem.get("starter_code"):
        text += f"\nStarter code:\n{problem['starter_code']}"
    return [{"role": "user", "content": text}]


def sft_examples(spec: WorldSpec, n_examples: int, seed: int) -> list[dict]:
    """Prompt-completion pairs for the warm start; each problem may appear with several code forms."""
    problems = problem_set("sft", spec)
    rng = random.Random(f"sft-examples-{seed}")
    out = []
    for _ in range(n_examples):
        p = rng.choice(problems)
        completion = problem_completion(p, rng, spec.version)
        out.append({"prompt": prompt_messages(p), "completion": [{"role": "assistant", "content": completion}]})
    return out
