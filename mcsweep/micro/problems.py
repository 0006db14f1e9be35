"""Seeded generator of micro-world programming problems in both LiveCodeBench formats.

A problem is a chain of 1-3 typed ops (difficulty = chain length). Train and test are disjoint by
construction in their signatures: a fraction of the adjacent op pairs is held out, every chain that
contains a held-out pair belongs to the test side, and single-op chains are routed by a hash.

Two versions, selected by `WorldSpec.version` (the same settings and seed always give the same
problems):
- 1 (the default): the world the first runs used, kept byte for byte. Known leak: the single-op hash
  includes the format, so a single-op task can be a training problem in one format and a test
  problem in the other.
- 2: chains may end in an answer op whose correct answers have variant forms (see `answers`), list
  outputs have variant forms too, and the split is decided by the chain without its format, so a
  task is on one side only (no format leak; the same holds for the SFT/RL buckets).
- 3: world 2 with reasoning that pays (see `arithmetic`): ops that take a constant are drawn more
  often, the statement gives each constant as a sum of small terms, and the plan works it out (or, in
  a share of the warm-start data, writes its value at once) instead of padding itself with checks.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections import Counter
from dataclasses import dataclass

from mcsweep.micro import answers, arithmetic
from mcsweep.micro.answers import ANSWER_OPS, AnswerOp, Form
from mcsweep.micro.ops import OPS, Op, adjacent_pairs, can_follow

DIFFICULTIES = ("easy", "medium", "hard")
FORMATS = ("stdin", "call")
VERSIONS = (1, 2, 3)
ALL_OPS: dict[str, Op | AnswerOp] = {**OPS, **ANSWER_OPS}  # world 1 uses only OPS
ANSWER_OP_FRAC = 0.3  # world 2: share of chains that end in an answer op (see `answers`)


@dataclass(frozen=True)
class WorldSpec:
    """Settings that fix the micro world; they are part of the policy's cache key."""

    seed: int = 0
    holdout_pair_frac: float = 0.25
    test_single_frac: float = 0.2
    n_hidden_tests: int = 6
    n_public_tests: int = 2
    version: int = 1

    def __post_init__(self) -> None:
        if self.version not in VERSIONS:
            raise ValueError(f"unknown micro world version {self.version!r}; one of {VERSIONS}")


@dataclass(frozen=True)
class Step:
    op: str
    k: int | None


def _stable_hash(text: str) -> float:
    """A hash in [0, 1) that does not depend on PYTHONHASHSEED."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16) / 16**12


def held_out_pairs(spec: WorldSpec) -> frozenset[tuple[str, str]]:
    pairs = adjacent_pairs() if spec.version == 1 else adjacent_pairs(ALL_OPS)
    rng = random.Random(f"pairs-{spec.seed}")
    return frozenset(rng.sample(pairs, round(len(pairs) * spec.holdout_pair_frac)))


def chain_signature(chain: list[Step]) -> str:
    """The task without its I/O format: what must not be on both sides of the split."""
    return "|".join(f"{s.op}{'' if s.k is None else s.k}" for s in chain)


def signature(chain: list[Step], fmt: str) -> str:
    return fmt + ":" + chain_signature(chain)


def _split_key(chain: list[Step], fmt: str, spec: WorldSpec) -> str:
    """What the split hashes: world 1 keeps its format-dependent key, world 2 the chain alone."""
    return signature(chain, fmt) if spec.version == 1 else chain_signature(chain)


def side_of(chain: list[Step], fmt: str, spec: WorldSpec, held: frozenset[tuple[str, str]]) -> str:
    """'test' or 'train', decided by the chain (and in world 1 its format), so the split cannot leak."""
    if any((a.op, b.op) in held for a, b in itertools.pairwise(chain)):
        return "test"
    if len(chain) == 1 and _stable_hash(f"{spec.seed}:{_split_key(chain, fmt, spec)}") < spec.test_single_frac:
        return "test"
    return "train"


def _sample_chain(rng: random.Random, length: int, const_weight: float = 1.0) -> list[Step]:
    """Type-correct ops; ops that take a constant weigh `const_weight` (1: worlds 1-2's uniform draw)."""
    chain: list[Step] = []
    prev: Op | None = None
    while len(chain) < length:
        options = [op for op in OPS.values() if can_follow(prev, op) and (prev is None or op is not prev)]
        if const_weight == 1.0:
            op = rng.choice(options)
        else:
            op = rng.choices(options, [const_weight if o.consts else 1.0 for o in options])[0]
        chain.append(Step(op.name, rng.choice(op.consts) if op.consts else None))
        prev = op
    return chain


def _sample_chain_v2(rng: random.Random, length: int, const_weight: float = 1.0) -> list[Step]:
    """World 2 (and 3): with probability ANSWER_OP_FRAC the chain's last op is an answer op."""
    if rng.random() >= ANSWER_OP_FRAC:
        return _sample_chain(rng, length, const_weight)
    while True:
        core = _sample_chain(rng, length - 1, const_weight)
        if not core or OPS[core[-1].op].out_type == "L":
            return [*core, Step(rng.choice(sorted(ANSWER_OPS)), None)]


def out_type(chain: list[Step]) -> str:
    return ALL_OPS[chain[-1].op].out_type


def run_chain(chain: list[Step], nums: list[int]) -> object:
    value: object = list(nums)
    for step in chain:
        value = ALL_OPS[step.op].apply(value, step.k)
    return value


def _sample_input(rng: random.Random) -> list[int]:
    return [rng.randint(-9, 20) for _ in range(rng.randint(3, 8))]


def _stdin_case(nums: list[int], result: object) -> tuple[str, str]:
    out = " ".join(map(str, result)) if isinstance(result, list) else str(result)
    return f"{len(nums)}\n{' '.join(map(str, nums))}\n", out + "\n"


def _call_case(nums: list[int], result: object) -> tuple[str, str]:
    return json.dumps(nums), json.dumps(result)


def _sample_chain_v3(rng: random.Random, length: int) -> list[Step]:
    return _sample_chain_v2(rng, length, arithmetic.CONST_OP_WEIGHT)


def _statement(chain: list[Step], fmt: str, rng: random.Random, exprs: list[str | None] | None = None) -> str:
    """The prose task; world 3 states each constant as the expression in `exprs`, in brackets."""
    shown = [s.k if not exprs or e is None else f"({e})" for s, e in zip(chain, exprs or chain, strict=True)]
    steps = [rng.choice(ALL_OPS[s.op].phrasings).format(k=k) for s, k in zip(chain, shown, strict=True)]
    body = steps[0] if len(steps) == 1 else ", then ".join(steps[:-1]) + ", and finally " + steps[-1]
    io = answers.output_statement(out_type(chain), fmt)
    if fmt == "stdin":
        io = "Input: the first line holds N, the second line N integers.\n" + io
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
    mods = [m for m in ("collections", "itertools", "math") if f"{m}." in body]
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


def _pick(forms: tuple[Form, ...], rng: random.Random, variants: bool) -> Form:
    pool = [f for f in forms if variants or not f.variant]
    return rng.choices(pool, [f.weight for f in pool])[0]


def _answer_lines(chain: list[Step], fmt: str, rng: random.Random, variants: bool) -> list[str]:
    """World 2: the core ops' code, then the answer written in one of its forms."""
    last = ALL_OPS[chain[-1].op]
    if isinstance(last, AnswerOp):
        core, forms, var = chain[:-1], last.forms[fmt], "a"
    elif last.out_type == "I":
        core, forms, var = chain, answers.INT_OUTPUT_FORMS[fmt], "r"
    else:
        core, forms, var = chain, answers.LIST_OUTPUT_FORMS[fmt], "a"
    return [*_code_lines(core, rng), *_pick(forms, rng, variants).code.format(v=var).split("\n")]


def solution_code_v2(chain: list[Step], fmt: str, rng: random.Random, variants: bool = True) -> str:
    """World 2's program for a chain; `variants=False` keeps to the forms a strict judge accepts."""
    lines = _answer_lines(chain, fmt, rng, variants)
    if fmt == "stdin":
        read = rng.choice(["a = list(map(int, input().split()))", "a = [int(x) for x in input().split()]"])
        body = "\n".join(["n = int(input())", read, *lines])
        return _imports(body) + body + "\n"
    inner = "\n".join("        " + ln for ln in ["a = list(nums)", *lines])
    sig = answers.RETURN_TYPES[out_type(chain)]
    body = f"class Solution:\n    def solve(self, nums: List[int]) -> {sig}:\n{inner}\n"
    return _imports(body) + body


def plan_text_v3(chain: list[Step], exprs: list[str | None], rng: random.Random) -> str:
    """World 3's plan: for each op that takes a constant, the op, then its expression worked out (or, in
    a share of the responses, its value written at once); the plan's length is its arithmetic."""
    shortcut = rng.random() < arithmetic.SHORTCUT_FRAC
    lines = ["Plan:"]
    for i, (step, expr) in enumerate(zip(chain, exprs, strict=True), 1):
        if expr is not None:
            lines.append(f"{i}. {rng.choice(ALL_OPS[step.op].phrasings).format(k='k').capitalize()}.")
            lines.append(arithmetic.plan_line(expr, shortcut))
    return "\n".join(lines if len(lines) > 1 else [*lines, "No constants to work out."])


def plan_text(chain: list[Step], rng: random.Random, version: int = 1) -> str:
    """The reasoning preamble: it grows with difficulty, so truncation can happen in the micro world.

    World 1 checks each of the n steps 0 to n-1 times; world 2 makes 0 to 2(n-1) checks in all. At the
    micro lengths (160/240/320) world 2's step-0 policy outgrows only the short one, on 17% of hard
    problems, and neither the middle nor the long one (docs/micro_world_v2.md measures it)."""
    n = len(chain)
    spots = Counter(rng.randint(1, n) for _ in range(rng.randint(0, 2 * (n - 1)))) if version > 1 else Counter()
    lines = ["Plan:"]
    for i, step in enumerate(chain, 1):
        op = ALL_OPS[step.op]
        lines.append(f"{i}. {rng.choice(op.phrasings).format(k=step.k).capitalize()}.")
        checks = rng.randint(0, n - 1) if version == 1 else spots[i]
        lines += [f"   Check: step {i} gives a {'number' if op.out_type in 'IF' else 'list'}."] * checks
    return "\n".join(lines)


def completion_text(
    chain: list[Step], fmt: str, rng: random.Random, version: int = 1, exprs: list[str | None] | None = None
) -> str:
    """A warm-start completion: the plan, then the code (from world 2 on possibly in a variant form).
    World 3 needs the problem's constant expressions (`meta['exprs']`)."""
    if version >= 3:
        if exprs is None:
            raise ValueError("world 3's plan works out the statement's constants: pass the problem's exprs")
        plan = plan_text_v3(chain, exprs, rng)
    else:
        plan = plan_text(chain, rng, version)  # first: the rng stream is part of world 1's data
    code = solution_code(chain, fmt, rng) if version == 1 else solution_code_v2(chain, fmt, rng)
    return f"{plan}\n```python\n{code}```"


def problem_completion(problem: dict, rng: random.Random, version: int) -> str:
    """A warm-start completion for a generated problem record."""
    meta = problem["meta"]
    chain = [Step(op, k) for op, k in meta["chain"]]
    return completion_text(chain, meta["format"], rng, version, meta.get("exprs"))


def _tests(chain: list[Step], fmt: str, rng: random.Random, n: int) -> dict:
    case = _stdin_case if fmt == "stdin" else _call_case
    pairs = [case(nums, run_chain(chain, nums)) for nums in (_sample_input(rng) for _ in range(n))]
    io: dict = {"inputs": [p[0] for p in pairs], "outputs": [p[1] for p in pairs]}
    if fmt == "call":
        io["fn_name"] = "solve"
    return io


def _tests_v2(chain: list[Step], fmt: str, rng: random.Random, n: int) -> dict:
    """World 2's tests: expected outputs in the canonical form; order-free answers say so."""
    kind = out_type(chain)
    inputs = [_sample_input(rng) for _ in range(n)]
    results = [run_chain(chain, nums) for nums in inputs]
    if fmt == "stdin":
        io: dict = {
            "inputs": [f"{len(nums)}\n{' '.join(map(str, nums))}\n" for nums in inputs],
            "outputs": [answers.expected_stdout(r, kind) for r in results],
        }
    else:
        io = {"inputs": [json.dumps(nums) for nums in inputs], "outputs": [json.dumps(r) for r in results]}
        io["fn_name"] = "solve"
    if kind == "S":
        io["order_irrelevant"] = True
    return io


def make_problem(chain: list[Step], fmt: str, pid: str, spec: WorldSpec, rng: random.Random) -> dict:
    """A problem record in the shared format (see docs/ARCHITECTURE.md)."""
    starter = "class Solution:\n    def solve(self, nums: List[int]):\n        " if fmt == "call" else ""
    tests = _tests if spec.version == 1 else _tests_v2
    exprs = [None if s.k is None else arithmetic.expression(s.k, rng) for s in chain] if spec.version >= 3 else None
    record = {
        "id": pid,
        "question": _statement(chain, fmt, rng, exprs),
        "starter_code": starter,
        "platform": "atcoder" if fmt == "stdin" else "leetcode",
        "difficulty": DIFFICULTIES[len(chain) - 1],
        "contest_date": "2025-01-01",
        "input_output": json.dumps(tests(chain, fmt, rng, spec.n_hidden_tests)),
        "public_input_output": json.dumps(tests(chain, fmt, rng, spec.n_public_tests)),
        "reference": solution_code(chain, fmt, rng)
        if spec.version == 1
        else solution_code_v2(chain, fmt, rng, variants=False),
        "source": "micro",
        "meta": {"chain": [[s.op, s.k] for s in chain], "format": fmt, "signature": signature(chain, fmt)},
    }
    if spec.version > 1:
        record["meta"]["out_type"] = out_type(chain)
    if exprs is not None:
        record["meta"]["exprs"] = exprs
    return record


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
    sample_chain = {1: _sample_chain, 2: _sample_chain_v2}.get(spec.version, _sample_chain_v3)
    rng = random.Random(f"{spec.seed}-{split}-{seed_offset}")
    levels, weights = zip(*[(DIFFICULTIES.index(d) + 1, w) for d, w in mix.items()], strict=True)
    out: list[dict] = []
    while len(out) < n:
        level = rng.choices(levels, weights)[0]
        while True:
            chain, fmt = sample_chain(rng, level), rng.choice(FORMATS)
            if side_of(chain, fmt, spec, held) == side and bucket_of(chain, fmt, spec) == _bucket_for(split):
                break
        out.append(make_problem(chain, fmt, f"micro-{name or split}-{len(out):05d}", spec, rng))
    return out


def bucket_of(chain: list[Step], fmt: str, spec: WorldSpec) -> str:
    """Train-side chains split into 'sft' (warm start) and 'rl' (GRPO) by signature hash."""
    if side_of(chain, fmt, spec, held_out_pairs(spec)) == "test":
        return "test"
    return "sft" if _stable_hash(f"bucket:{spec.seed}:{_split_key(chain, fmt, spec)}") < 0.5 else "rl"


def _bucket_for(split: str) -> str:
    return {"test": "test", "sft": "sft"}.get(split, "rl")
