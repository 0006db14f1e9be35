"""Throughput of the MicroCoder-Evaluator against LiveCodeBench's grader, side by side (issues 3, 14).

Batch: N correct solutions with 10 tests each (half stdin, half call-based; 4 per problem), graded by
this evaluator and then by LiveCodeBench's own grader (``evaluate_generations`` from the
``nvidia-livecodebench`` package, at its defaults but for the worker count and per-test timeout) in the
same run, so the ratio is measured under the same machine load. Then 10 infinite loops shuffled in, and
the fixed cost per solution (1 trivial test each).

LiveCodeBench's grader is not a dependency of mcsweep; to measure it, install it beside:

    pip install --no-deps --target /tmp/lcb nvidia-livecodebench
    PYTHONPATH=/tmp/lcb .venv/bin/python benchmarks/bench_evaluator.py [--workers N] [--timeout S] [--solutions N]

Without it the script says so and compares with the ~29 solutions/s LiveCodeBench reached here before.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from typing import Any

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


def batch(n: int, seed: int = 0) -> tuple[list[GradeRequest], list[GradeRequest]]:
    rng = random.Random(seed)
    half = n // 2
    stdin_io = [stdin_problem(rng) for _ in range((half + 3) // 4)]  # 4 solutions per problem
    call_io = [call_problem(rng) for _ in range((half + 3) // 4)]
    correct = [GradeRequest(f"s{k}", code=STDIN_CODE, input_output=stdin_io[k // 4]) for k in range(half)]
    correct += [GradeRequest(f"c{k}", code=CALL_CODE, input_output=call_io[k // 4]) for k in range(half)]
    loops = [GradeRequest(f"t{k}", code=LOOP_CODE, input_output=stdin_io[k % len(stdin_io)]) for k in range(10)]
    return correct, loops


def livecodebench_rate(
    requests: list[GradeRequest], warmup: list[GradeRequest], workers: int, timeout: float
) -> tuple[float, int] | None:
    """Solutions/second and number passed under LiveCodeBench's own grader (after the same warm-up batch
    as ours, untimed), or None if not installed."""
    try:
        from livecodebench.evaluation.compute_code_generation_metrics import evaluate_generations
    except ImportError:
        return None
    _livecodebench(evaluate_generations, warmup, workers, timeout)
    start = time.perf_counter()
    passed = _livecodebench(evaluate_generations, requests, workers, timeout)
    return len(requests) / (time.perf_counter() - start), passed


def _livecodebench(evaluate_generations: Any, requests: list[GradeRequest], workers: int, timeout: float) -> int:
    """Grade with LiveCodeBench's grader (the solutions grouped by problem, as it takes them); passed."""
    problems: dict[str, list[str]] = {}
    for r in requests:
        problems.setdefault(str(r.input_output), []).append(str(r.code))
    samples = [{"input_output": io} for io in problems]
    results, _ = evaluate_generations(samples, list(problems.values()), False, workers, max(1, round(timeout)))
    return sum(all(t is True for t in gen) for per_problem in results.values() for gen in per_problem)


def _own_cpu_s() -> float:
    t = os.times()
    return t.user + t.system


def timed(ev: Evaluator, requests: list[GradeRequest]) -> tuple[float, int]:
    start = time.perf_counter()
    results = ev.grade_many(requests)
    return time.perf_counter() - start, sum(r.passed for r in results)


def per_test(ev: Evaluator, requests: list[GradeRequest]) -> tuple[float, int, float]:
    """Seconds, passed, and CPU ms per test run (grader and sandbox together) for one batch."""
    cpu0, own0 = ev.sandbox_cpu_s(), _own_cpu_s()
    start = time.perf_counter()
    results = ev.grade_many(requests)
    secs = time.perf_counter() - start
    tests = sum(len(r.tests) for r in results)
    cpu_ms = 1000 * (ev.sandbox_cpu_s() - cpu0 + _own_cpu_s() - own0) / max(1, tests)
    return secs, sum(r.passed for r in results), cpu_ms


_BARE_FORKS = """
import gc, os, resource, sys
from mcsweep.evaluator.sandbox.zygote import preload
preload()
gc.collect()
gc.freeze()
n = int(sys.argv[1])
who = (resource.RUSAGE_CHILDREN, resource.RUSAGE_SELF)
before = [resource.getrusage(w) for w in who]
for _ in range(n):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
after = [resource.getrusage(w) for w in who]
print(sum(a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime for a, b in zip(after, before)) * 1000 / n)
"""


def fork_floor_ms(n: int = 300) -> float:
    """What one fresh process per test costs before any test runs: CPU ms per bare fork and exit (child
    and parent together) of a fresh interpreter that imports and preloads exactly what a zygote does
    (no more: a module's at-fork handler, threading's say, is paid by every fork)."""
    out = subprocess.run([sys.executable, "-c", _BARE_FORKS, str(n)], capture_output=True, text=True, check=True)
    return float(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--timeout", type=float, default=1.0, help="seconds per test")
    parser.add_argument("--solutions", type=int, default=200, help="correct solutions (10 tests each)")
    args = parser.parse_args()
    correct, loops = batch(args.solutions)
    with Evaluator("microcoder", args.workers, args.timeout) as ev:
        warmup = batch(20, seed=1)[0]  # other problems, untimed, for both graders
        timed(ev, warmup)
        secs, passed, cpu_ms = per_test(ev, correct)
        rate = len(correct) / secs
        print(f"workers={args.workers} timeout={args.timeout}s isolation: {ev.isolation}")
        print(
            f"{len(correct)} correct x 10 tests: {secs:.2f} s, {rate:.1f} solutions/s, passed {passed}; "
            f"per test {cpu_ms:.2f} ms CPU (grader and sandbox), {1000 * secs * args.workers / (10 * len(correct)):.1f}"
            f" ms wall per worker"
        )
        lcb = livecodebench_rate(correct, warmup, args.workers, args.timeout)
        floor = fork_floor_ms()
        print(
            f"floor: a bare fork and exit of a zygote-sized interpreter costs {floor:.2f} ms CPU, so one "
            f"process per test caps this grader at {1000 * args.workers / (10 * floor):.0f} solutions/s"
            + (f" ({1000 * args.workers / (10 * floor) / lcb[0]:.1f}x LiveCodeBench)" if lcb else "")
        )
        if lcb is None:
            print(
                f"LiveCodeBench's grader is not installed (see --help); its earlier ~{LCB_SOLUTIONS_PER_S:.0f}/s "
                f"here would make this {rate / LCB_SOLUTIONS_PER_S:.1f}x"
            )
        else:
            print(
                f"LiveCodeBench's grader, same batch, same run: {lcb[0]:.1f} solutions/s, passed {lcb[1]}; "
                f"ratio {rate / lcb[0]:.1f}x"
            )
        mixed = correct + loops
        random.Random(1).shuffle(mixed)
        secs, passed = timed(ev, mixed)
        least = len(loops) * args.timeout / args.workers
        print(
            f"{len(mixed)} with {len(loops)} time-outs (shuffled): {secs:.2f} s, {len(mixed) / secs:.0f} solutions/s, "
            f"passed {passed}; "
            f"the time-outs alone need >= {least:.1f} s of the {args.workers} cores"
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
            f"(LiveCodeBench ~{LCB_OVERHEAD_MS:.0f} ms before), {len(trivial) / secs:.0f} trivial solutions/s"
        )
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (machine shared)")


if __name__ == "__main__":
    main()
