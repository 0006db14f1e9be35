"""Throughput of the MicroCoder-Evaluator (issue 3).

Batch: 200 correct solutions with 10 tests each (100 stdin, 100 call-based), plus 10 solutions that
loop forever. Prints solutions/second for the 200 (the figure LiveCodeBench's grader reaches at about
28-30/s on this 2-core machine, without its time-outs), the whole batch with the time-outs shuffled in,
and the fixed cost per solution (1 trivial test each), to compare with LiveCodeBench's ~16 ms.

    .venv/bin/python benchmarks/bench_evaluator.py [--workers N] [--timeout S]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

from mcsweep.evaluator import Evaluator, GradeRequest

LCB_SOLUTIONS_PER_S = 29.0
LCB_OVERHEAD_MS = 16.0

STDIN_CODE = "import sys\nn, *a = map(int, sys.stdin.read().split())\nprint(sum(a[:n]))\nprint(max(a[:n]))\n"
CALL_CODE = (
    "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        seen = {}\n"
    "        for i, x in enumerate(nums):\n            if target - x in seen:\n"
    "                return [seen[target - x], i]\n"
    "            seen[x] = i\n"
)
LOOP_CODE = "while True:\n    pass\n"


def stdin_problem(rng: random.Random) -> str:
    inputs, outputs = [], []
    for _ in range(10):
        a = [rng.randint(-1000, 1000) for _ in range(rng.randint(1, 200))]
        inputs.append(f"{len(a)}\n{' '.join(map(str, a))}\n")
        outputs.append(f"{sum(a)}\n{max(a)}\n")
    return json.dumps({"inputs": inputs, "outputs": outputs})


def call_problem(rng: random.Random) -> str:
    inputs, outputs = [], []
    for _ in range(10):
        nums = rng.sample(range(-(10**6), 10**6), rng.randint(2, 200))
        i, j = sorted(rng.sample(range(len(nums)), 2))
        nums[j] = 10**7 + rng.randint(0, 1000)
        nums[i] = 3 * 10**7 - nums[j]
        inputs.append(f"{json.dumps(nums)}\n{3 * 10**7}")
        outputs.append(json.dumps([i, j]))
    return json.dumps({"inputs": inputs, "outputs": outputs, "fn_name": "twoSum"})


def batch(seed: int = 0) -> tuple[list[GradeRequest], list[GradeRequest]]:
    rng = random.Random(seed)
    stdin_io = [stdin_problem(rng) for _ in range(25)]  # 8 solutions per problem, as in a GRPO group
    call_io = [call_problem(rng) for _ in range(25)]
    correct = [GradeRequest(f"s{k}", code=STDIN_CODE, input_output=stdin_io[k // 4]) for k in range(100)]
    correct += [GradeRequest(f"c{k}", code=CALL_CODE, input_output=call_io[k // 4]) for k in range(100)]
    loops = [GradeRequest(f"t{k}", code=LOOP_CODE, input_output=stdin_io[k]) for k in range(10)]
    return correct, loops


def _own_cpu_s() -> float:
    t = os.times()
    return t.user + t.system


def timed(ev: Evaluator, requests: list[GradeRequest]) -> tuple[float, int]:
    start = time.perf_counter()
    results = ev.grade_many(requests)
    return time.perf_counter() - start, sum(r.passed for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--timeout", type=float, default=1.0, help="seconds per test")
    args = parser.parse_args()
    correct, loops = batch()
    with Evaluator("microcoder", args.workers, args.timeout) as ev:
        timed(ev, correct[:20])  # warm-up
        secs, passed = timed(ev, correct)
        rate = len(correct) / secs
        print(f"workers={args.workers} timeout={args.timeout}s isolation: {ev.isolation}")
        print(
            f"200 correct x 10 tests: {secs:.2f} s, {rate:.0f} solutions/s, passed {passed}/200, "
            f"{rate / LCB_SOLUTIONS_PER_S:.1f}x LiveCodeBench's ~{LCB_SOLUTIONS_PER_S:.0f}/s"
        )
        mixed = correct + loops
        random.Random(1).shuffle(mixed)
        secs, passed = timed(ev, mixed)
        floor = len(loops) * args.timeout / args.workers
        print(
            f"210 with 10 time-outs (shuffled): {secs:.2f} s, {len(mixed) / secs:.0f} solutions/s, "
            f"passed {passed}; "
            f"the time-outs alone need >= {floor:.1f} s of the {args.workers} cores"
        )
        trivial = [
            GradeRequest(f"p{k}", code="pass\n", input_output=json.dumps({"inputs": [""], "outputs": [""]}))
            for k in range(400)
        ]
        cpu0, own0 = ev.sandbox_cpu_s(), _own_cpu_s()
        secs, _ = timed(ev, trivial)
        cpu_ms = 1000 * (ev.sandbox_cpu_s() - cpu0 + _own_cpu_s() - own0) / len(trivial)
        print(
            f"fixed cost per solution: {cpu_ms:.2f} ms CPU, grader and sandbox together "
            f"(LiveCodeBench ~{LCB_OVERHEAD_MS:.0f} ms), {len(trivial) / secs:.0f} trivial solutions/s"
        )
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (machine shared)")


if __name__ == "__main__":
    main()
