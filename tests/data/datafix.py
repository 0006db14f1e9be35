"""Writers for small fixtures in each public source's exact on-disk schema (Hub layout and dtypes)."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mcsweep.data.loaders import encode_lcb_private

ADD_REF = "a, b = map(int, input().split())\nprint(a + b)\n"
SUM_REF = "def total(nums, k):\n    return sum(nums) + k\n"


def lcb_row(qid: str, date: str, *, call: bool = False, platform: str = "atcoder") -> dict[str, Any]:
    """One line of livecodebench/code_generation_lite test*.jsonl (all fields are strings)."""
    if call:
        public = [{"input": "[1, 2]\n3", "output": "6", "testtype": "functional"}]
        private = [{"input": "[4]\n1", "output": "5", "testtype": "functional"}]
        meta, starter = {"func_name": "total"}, "class Solution:\n    def total(self, nums, k):\n        "
    else:
        public = [{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}]
        private = [{"input": f"{i} {i}\n", "output": f"{2 * i}\n", "testtype": "stdin"} for i in range(3)]
        meta, starter = {}, ""
    return {
        "question_title": f"Title {qid}",
        "question_content": f"Problem {qid}: add the numbers.",
        "platform": "leetcode" if call else platform,
        "question_id": qid,
        "contest_id": qid[:6],
        "contest_date": f"{date}T00:00:00",
        "starter_code": starter,
        "difficulty": "easy",
        "public_test_cases": json.dumps(public),
        "private_test_cases": encode_lcb_private(private),
        "metadata": json.dumps(meta),
    }


def write_lcb(root: Path, rows_per_file: dict[str, list[dict[str, Any]]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, rows in rows_per_file.items():
        (root / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


DEEPCODER_SCHEMA = pa.schema(
    [
        ("problem", pa.string()),
        ("solutions", pa.list_(pa.string())),
        ("tests", pa.string()),
        ("starter_code", pa.string()),
        ("metadata", pa.string()),
    ]
)


def write_parquet(path: Path, rows: list[dict[str, Any]], schema: pa.Schema) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), str(path))
    return path


def deepcoder_rows(subset: str) -> list[dict[str, Any]]:
    """Test shapes per subset: lcbv5 LCB lists, primeintellect typed lists, taco dicts."""
    if subset == "lcbv5":
        tests = [{"input": "[1, 2]\n3", "output": "6", "testtype": "functional"}]
        return [
            {
                "problem": "Sum the list and add k.",
                "solutions": [],
                "tests": json.dumps(tests),
                "starter_code": "class Solution:\n    def total(self, nums, k):\n        ",
                "metadata": json.dumps({"func_name": "total"}),
            }
        ]
    if subset == "primeintellect":
        stdin = [{"input": "1 2\n", "output": "3\n", "type": "stdin_stdout"}]
        call = [{"input": "[[1, 2], 3]", "output": "[6]", "type": "function_call", "fn_name": "total"}]
        return [
            {
                "problem": "Add two numbers.",
                "solutions": [ADD_REF],
                "tests": json.dumps(stdin),
                "starter_code": "",
                "metadata": "{}",
            },
            {
                "problem": "Sum the list and add k.",
                "solutions": [SUM_REF],
                "tests": json.dumps(call),
                "starter_code": "",
                "metadata": "{}",
            },
        ]
    tests = {"inputs": [[[1, 2], 3]], "outputs": [[6]], "fn_name": "total"}
    return [
        {
            "problem": "Sum the list and add k.",
            "solutions": [],
            "tests": json.dumps(tests),
            "starter_code": "",
            "metadata": "{}",
        }
    ]


VERIFIABLE_SCHEMA = pa.schema(
    [
        ("source", pa.string()),
        ("task_type", pa.string()),
        ("in_source_id", pa.string()),
        ("problem_statement", pa.string()),
        ("gold_standard_solution", pa.string()),
        ("problem_id", pa.string()),
        (
            "metadata",
            pa.struct(
                [
                    ("difficulty", pa.string()),
                    ("memory_limit", pa.string()),
                    ("memory_limit_bytes", pa.int64()),
                    ("problem_url", pa.string()),
                    ("time_limit", pa.string()),
                ]
            ),
        ),
        (
            "verification_info",
            pa.struct(
                [
                    ("language", pa.string()),
                    (
                        "test_cases",
                        pa.list_(
                            pa.struct(
                                [
                                    ("fn_name", pa.string()),
                                    ("input", pa.string()),
                                    ("output", pa.string()),
                                    ("type", pa.string()),
                                ]
                            )
                        ),
                    ),
                ]
            ),
        ),
    ]
)


def verifiable_rows() -> list[dict[str, Any]]:
    return [
        {
            "source": "codeforces",
            "task_type": "verifiable_code",
            "in_source_id": "1/A",
            "problem_statement": "Add two integers a and b.",
            "gold_standard_solution": f"```python\n{ADD_REF}```",
            "problem_id": "vfc_1",
            "metadata": {
                "difficulty": "interview",
                "memory_limit": "256 MB",
                "memory_limit_bytes": 1 << 28,
                "problem_url": "",
                "time_limit": "1 second",
            },
            "verification_info": {
                "language": "python",
                "test_cases": [{"fn_name": None, "input": "1 2\n", "output": "3\n", "type": "stdin_stdout"}],
            },
        }
    ]


_IO = pa.list_(pa.struct([("input", pa.string()), ("output", pa.string())]))
CODEFORCES_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("contest_id", pa.string()),
        ("index", pa.string()),
        ("aliases", pa.list_(pa.string())),
        ("contest_name", pa.string()),
        ("contest_type", pa.string()),
        ("contest_start", pa.int64()),
        ("contest_start_year", pa.int64()),
        ("time_limit", pa.float64()),
        ("memory_limit", pa.float64()),
        ("title", pa.string()),
        ("description", pa.string()),
        ("input_format", pa.string()),
        ("output_format", pa.string()),
        ("interaction_format", pa.string()),
        ("note", pa.string()),
        ("examples", _IO),
        ("editorial", pa.string()),
        ("rating", pa.float64()),
        ("tags", pa.list_(pa.string())),
        ("testset_size", pa.int64()),
        ("official_tests", _IO),
        ("official_tests_complete", pa.bool_()),
        ("input_mode", pa.string()),
        ("generated_checker", pa.string()),
        ("executable", pa.bool_()),
        ("generated_tests", pa.int64()),
    ]
)


def codeforces_rows() -> list[dict[str, Any]]:
    base = {
        "contest_id": "1",
        "index": "A",
        "aliases": [],
        "contest_name": "Round 1",
        "contest_type": "CF",
        "contest_start": 1700000000,
        "contest_start_year": 2023,
        "time_limit": 1.0,
        "memory_limit": 256.0,
        "input_format": "Two integers a and b.",
        "output_format": "Their sum.",
        "note": None,
        "examples": [{"input": "1 2\n", "output": "3\n"}],
        "editorial": None,
        "tags": ["math"],
        "testset_size": 2,
        "official_tests_complete": True,
        "input_mode": "stdio",
        "generated_checker": None,
        "executable": True,
        "generated_tests": 0,
    }
    return [
        {
            **base,
            "id": "1/A",
            "title": "Sum",
            "description": "Add two integers.",
            "rating": 800.0,
            "interaction_format": None,
            "official_tests": [{"input": "1 2\n", "output": "3\n"}, {"input": "5 5\n", "output": "10\n"}],
        },
        {
            **base,
            "id": "1/B",
            "title": "Guess",
            "description": "Guess the number.",
            "rating": 2100.0,
            "interaction_format": "Flush after each query.",
            "official_tests": [],
        },
    ]


# ---------------------------------------------------------------- a small raw pool for pipeline tests

POOL_OPS = (
    ("reverse the list", "a = a[::-1]", lambda a: a[::-1]),
    ("sort it in increasing order", "a = sorted(a)", sorted),
    ("add one to every number", "a = [x + 1 for x in a]", lambda a: [x + 1 for x in a]),
    ("remove the negative numbers", "a = [x for x in a if x >= 0]", lambda a: [x for x in a if x >= 0]),
    ("double every number", "a = [2 * x for x in a]", lambda a: [2 * x for x in a]),
    ("keep every second number", "a = a[::2]", lambda a: a[::2]),
)


POOL_IO = "Input: N on one line, and N integers on the next. Output: the resulting numbers separated by spaces."


def _pool_problem(i: int, chain: tuple[int, ...]) -> dict[str, Any]:
    rng = random.Random(i)
    steps = [POOL_OPS[k] for k in chain]
    body = steps[0][0]
    if len(steps) > 1:
        body = ", then ".join(s[0] for s in steps[:-1]) + ", and finally " + steps[-1][0]
    inputs, outputs = [], []
    for _ in range(5):
        nums = [rng.randint(-5, 9) for _ in range(rng.randint(2, 6))]
        out = nums
        for step in steps:
            out = step[2](out)
        inputs.append(f"{len(nums)}\n{' '.join(map(str, nums))}\n")
        outputs.append(" ".join(map(str, out)) + "\n")
    ref = (
        "\n".join(["n = int(input())", "a = list(map(int, input().split()))", *(s[1] for s in steps), "print(*a)"])
        + "\n"
    )
    return {
        "id": f"pool-{i:03d}",
        "question": f"Task {i}. Given a list of integers, {body}. {POOL_IO}",
        "input_output": json.dumps({"inputs": inputs, "outputs": outputs}),
        "reference": ref,
        "difficulty": ("easy", "medium", "hard")[len(chain) - 1],
        "source": "fixture-pool",
        "meta": {"chain": list(chain)},
    }


def make_pool(n: int = 60) -> list[dict[str, Any]]:
    """Chains of 1-3 list operations; the chain length is the ground-truth difficulty."""
    chains = [c for length in (1, 2, 3) for c in itertools.permutations(range(len(POOL_OPS)), length)]
    rng = random.Random(7)
    return [_pool_problem(i, rng.choice([c for c in chains if len(c) == 1 + i % 3])) for i in range(n)]


def chain_rate_provider(noise: float = 0.1) -> Any:
    """A stand-in policy: pass rate falls with chain length (from the record's meta), seeded noise."""

    def provide(problems: list[Any]) -> dict[str, float]:
        out = {}
        for p in problems:
            jitter = int(hashlib.sha256(p.id.encode()).hexdigest()[:8], 16) / 16**8 - 0.5
            base = {1: 0.9, 2: 0.5, 3: 0.1}[len(p.meta["chain"])]
            out[p.id] = min(max(base + 2 * noise * jitter, 0.0), 1.0)
        return out

    return provide
