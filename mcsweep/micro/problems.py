"""Seeded generator of micro-world programming problems in both LiveCodeBench formats.

A problem is a chain of 1-3 typed ops (difficulty = chain length). Train and test are disjoint by
construction in their signatures (chain, constants, format): a fraction of the adjacent op pairs is
held out, every chain that contains a held-out pair belongs to the test side, and single-op chains
are routed by a hash of their signature. Known limit: that hash includes the format, so a single-op
task can be a training problem in one format and a test problem in the other. The same settings
and seed always give the same problems.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from dataclasses import dataclass

from mcsweep.micro.ops import OPS, Op, adjacent_pairs, can_follow

DIFFICULTIES = ("easy", "medium", "hard")
FORMATS = ("stdin", "call")


@dataclass(frozen=True)
class WorldSpec:
    """Settings that fix the micro world; they are part of the policy's cache key."""

    seed: int = 0
    holdout_pair_frac: float = 0.25
    test_single_frac: float = 0.2
    n_hidden_tests: int = 6
    n_public_tests: int = 2


@dataclass(frozen=True)
class Step:
    op: str
    k: int | None


def _stable_hash(text: str) -> float:
    """A hash in [0, 1) that does not depend on PYTHONHASHSEED."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16) / 16**12


def held_out_pairs(spec: WorldSpec) -> frozenset[tuple[str, str]]:
    pairs = adjacent_pairs()
    rng = random.Random(f"pairs-{spec.seed}")
    return frozenset(rng.sample(pairs, round(len(pairs) * spec.holdout_pair_frac)))


def signature(chain: list[Step], fmt: str) -> str:
    return fmt + ":" + "|".join(f"{s.op}{'' if s.k is None else s.k}" for s in chain)


def side_of(chain: list[Step], fmt: str, spec: WorldSpec, held: frozenset[tuple[str, str]]) -> str:
    """'test' or 'train', decided by the chain alone, so the split cannot leak."""
    if any((a.op, b.op) in held for a, b in itertools.pairwise(chain)):
        return "test"
    if len(chain) == 1 and _stable_hash(f"{spec.seed}:{signature(chain, fmt)}") < spec.test_single_frac:
        return "test"
    return "train"


def _sample_chain(rng: random.Random, length: int) -> list[Step]:
    chain: list[Step] = []
    prev: Op | None = None
    while len(chain) < length:
        options = [op for op in OPS.values() if can_follow(prev, op) and (prev is None or op is not prev)]
        op = rng.choice(options)
        chain.append(Step(op.name, rng.choice(op.consts) if op.consts else None))
        prev = op
    return chain


def run_chain(chain: list[Step], nums: list[int]) -> object:
    value: object = list(nums)
    for step in chain:
        value = OPS[step.op].apply(value, step.k)
    return value


def _sample_input(rng: random.Random) -> list[int]:
    return [rng.randint(-9, 20) for _ in range(rng.randint(3, 8))]


def _stdin_case(nums: list[int], result: object) -> tuple[str, str]:
    out = " ".join(map(str, result)) if isinstance(result, list) else str(result)
    return f"{len(nums)}\n{' '.join(map(str, nums))}\n", out + "\n"


def _call_case(nums: list[int], result: object) -> tuple[str, str]:
    return json.dumps(nums), json.dumps(result)


def _statement(chain: list[Step], fmt: str, rng: random.Random) -> str:
    steps = [rng.choice(OPS[s.op].phrasings).format(k=s.k) for s in chain]
    body = steps[0] if len(steps) == 1 else ", then ".join(steps[:-1]) + ", and finally " + steps[-1]
    list_out = OPS[chain[-1].op].out_type == "L"
    if fmt == "stdin":
        io = "Input: the first line holds N, the second line N integers.\n" + (
            "Output: the resulting numbers on one line, separated by spaces."
            if list_out
            else "Output: the resulting integer."
        )
    else:
        io = "Implement Solution.solve(nums) that returns " + (
            "the resulting list." if list_out else "the resulting integer."
        )
    return f"Given a list of integers, {body}.\n{io}"


def _code_lines(chain: list[Step], rng: random.Random) -> list[str]:
    lines: list[str] = []
    var = "a"
    for step in chain:
        op = OPS[step.op]
        out = "r" if op.out_type == "I" else "a"
        lines.extend(rng.choice(op.code).format(v=var, o=out, k=step.k).split("\n"))
        var = out
    return lines


def _imports(body: str) -> str:
    mods = [m for m in ("itertools", "math") if f"{m}." in body]
    return "".join(f"import {m}\n" for m in mods)


def solution_code(chain: list[Step], fmt: str, rng: random.Random) -> str:
    """One of the equivalent programs for a chain; rng picks the code forms."""
    lines = _code_lines(chain, rng)
    result = "r" if OPS[chain[-1].op].out_type == "I" else "a"
    if fmt == "stdin":
        read = rng.choice(["a = list(map(int, input().split()))", "a = [int(x) for x in input().split()]"])
        out = f"print({result})" if result == "r" else rng.choice(["print(*a)", "print(' '.join(map(str, a)))"])
        body = "\n".join(["n = int(input())", read, *lines, out])
        return _imports(body) + body + "\n"
    inner = "\n".join("        " + ln for ln in ["a = list(nums)", *lines, f"return {result}"])
    sig = "List[int]" if result == "a" else "int"
    body = f"class Solution:\n    def solve(self, nums: List[int]) -> {sig}:\n{inner}\n"
    return _imports(body) + body


def plan_text(chain: list[Step], rng: random.Random) -> str:
    """The reasoning preamble: it grows with difficulty, so truncation can happen in the micro world."""
    lines = ["Plan:"]
    for i, step in enumerate(chain, 1):
        lines.append(f"{i}. {rng.choice(OPS[step.op].phrasings).format(k=step.k).capitalize()}.")
        for _ in range(rng.randint(0, len(chain) - 1)):
            lines.append(f"   Check: step {i} gives a {'list' if OPS[step.op].out_type == 'L' else 'number'}.")
    return "\n".join(lines)


def completion_text(chain: list[Step], fmt: str, rng: random.Random) -> str:
    return f"{plan_text(chain, rng)}\n```python\n{solution_code(chain, fmt, rng)}```"


def _tests(chain: list[Step], fmt: str, rng: random.Random, n: int) -> dict:
    case = _stdin_case if fmt == "stdin" else _call_case
    pairs = [case(nums, run_chain(chain, nums)) for nums in (_sample_input(rng) for _ in range(n))]
    io: dict = {"inputs": [p[0] for p in pairs], "outputs": [p[1] for p in pairs]}
    if fmt == "call":
        io["fn_name"] = "solve"
    return io


def make_problem(chain: list[Step], fmt: str, pid: str, spec: WorldSpec, rng: random.Random) -> dict:
    """A problem record in the shared format (see docs/ARCHITECTURE.md)."""
    starter = "class Solution:\n    def solve(self, nums: List[int]):\n        " if fmt == "call" else ""
    return {
        "id": pid,
        "question": _statement(chain, fmt, rng),
        "starter_code": starter,
        "platform": "atcoder" if fmt == "stdin" else "leetcode",
        "difficulty": DIFFICULTIES[len(chain) - 1],
        "contest_date": "2025-01-01",
        "input_output": json.dumps(_tests(chain, fmt, rng, spec.n_hidden_tests)),
        "public_input_output": json.dumps(_tests(chain, fmt, rng, spec.n_public_tests)),
        "reference": solution_code(chain, fmt, rng),
        "source": "micro",
        "meta": {"chain": [[s.op, s.k] for s in chain], "format": fmt, "signature": signature(chain, fmt)},
    }


def generate(
    split: str, n: int, mix: dict[str, float], spec: WorldSpec, seed_offset: int = 0, name: str = ""
) -> list[dict]:
    """`n` problems of one side ('train' or 'test') with the given difficulty mix.

    Distinct splits of the same side get distinct `seed_offset`s; the SFT split and the RL training
    sets are further separated by a hash bucket of the signature (see `bucket_of`).
    """
    if split not in ("test", "sft", "rl"):
        raise ValueError(f"unknown split {split!r}; expected 'test', 'sft' or 'rl'")
    side = "test" if split == "test" else "train"
    held = held_out_pairs(spec)
    rng = random.Random(f"{spec.seed}-{split}-{seed_offset}")
    levels, weights = zip(*[(DIFFICULTIES.index(d) + 1, w) for d, w in mix.items()], strict=True)
    out: list[dict] = []
    while len(out) < n:
        level = rng.choices(levels, weights)[0]
        while True:
            chain, fmt = _sample_chain(rng, level), rng.choice(FORMATS)
            if side_of(chain, fmt, spec, held) == side and bucket_of(chain, fmt, spec) == _bucket_for(split):
                break
        out.append(make_problem(chain, fmt, f"micro-{name or split}-{len(out):05d}", spec, rng))
    return out


def bucket_of(chain: list[Step], fmt: str, spec: WorldSpec) -> str:
    """Train-side chains split into 'sft' (warm start) and 'rl' (GRPO) by signature hash."""
    if side_of(chain, fmt, spec, held_out_pairs(spec)) == "test":
        return "test"
    return "sft" if _stable_hash(f"bucket:{spec.seed}:{signature(chain, fmt)}") < 0.5 else "rl"


def _bucket_for(split: str) -> str:
    return {"test": "test", "sft": "sft"}.get(split, "rl")
