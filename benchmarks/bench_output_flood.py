"""The grader's own CPU per test when a solution pads its output with a flood of whitespace.

A solution may print its answer and then up to the output cap (32 MiB) of spaces: the robust
comparator must still accept it (token checkers ignore spacing), and the strict one reject or accept
it by LiveCodeBench's rules, but neither may cost the grader much more than the output's one read.
For each kind of solution (the plain answer; the answer padded with 32 MiB of spaces; a wrong answer
padded so; the answer with its tokens 16 MiB of spaces apart) it grades ``--tests`` tests with one
worker, both comparators as training does (robust reward, strict shadow), and prints the grader
process's CPU per test (its own threads; the sandboxed children are other processes) and the ratio to
the plain answer, all in one run.
Measured 2026-12-04 (2-core Xeon, two training runs beside it; `--tests 6`), grader CPU per test
before -> after the comparators count tokens with ``str.split(None, n)`` instead of a regex scan
(two runs, one after the other): padded 0.59 -> 0.12 s, wrong padded 0.68 -> 0.18 s, spread
0.75 -> 0.25 s; plain 0.6-0.7 ms in both. The remainder is the chain's strips and splits of the output
(about 20 ms each at 32 MiB) and its one read.

    .venv/bin/python benchmarks/bench_output_flood.py [--tests N]
"""

from __future__ import annotations

import argparse
import json
import time

from mcsweep.evaluator import Evaluator, GradeRequest

PAD = 32 << 20
SOLUTIONS = {
    "plain": "print('1 2 3')\n",
    "padded": f"import sys\nsys.stdout.write('1 2 3' + ' ' * {PAD - 16} + '\\n')\n",
    "wrong padded": f"import sys\nsys.stdout.write('1 2 4' + ' ' * {PAD - 16} + '\\n')\n",
    "spread": f"import sys\nsys.stdout.write('1' + ' ' * {PAD // 2} + '2 3' + ' ' * {PAD // 2 - 16} + '\\n')\n",
}


def grader_cpu_per_test(ev: Evaluator, code: str, tests: int) -> tuple[float, bool]:
    io = json.dumps({"inputs": [""] * tests, "outputs": ["1 2 3\n"] * tests})
    start = time.process_time()
    result = ev.grade(GradeRequest("flood", code=code, input_output=io))
    return (time.process_time() - start) / tests, result.passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=6, help="tests per solution")
    args = parser.parse_args()
    with Evaluator(workers=1, shadow_comparators=("livecodebench",), timeout_s=10.0, run_all=True) as ev:
        rows = {kind: grader_cpu_per_test(ev, code, args.tests) for kind, code in SOLUTIONS.items()}
    base = rows["plain"][0]
    print(f"microcoder + livecodebench shadow, {args.tests} tests, grader CPU per test")
    print("solution       cpu_s/test  passed  ratio_to_plain")
    for kind, (cpu, passed) in rows.items():
        print(f"{kind:<13}  {cpu:10.4f}  {passed!s:>6}  {cpu / base:14.0f}")


if __name__ == "__main__":
    main()
