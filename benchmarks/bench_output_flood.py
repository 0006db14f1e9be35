"""The grader's own CPU per test when a solution floods its output (whitespace, 4-byte text, bad UTF-8).

A solution may print its answer and then up to the output cap (32 MiB) of padding. An output longer
than 16x the expected one plus 1 MiB is wrong before it is read, and one that is not UTF-8 is wrong
undecoded, so neither may cost the grader more than a ``fstat``; an answer padded within that bound must
still be accepted by the robust comparator (token checkers ignore spacing). For each kind of solution
(the plain answer; padded with 1 MiB of spaces, within the bound; padded to the output cap; a 4-byte
character then 30 MiB of spaces; a 4-byte character then 30 MiB of invalid UTF-8) it grades ``--tests``
tests with one worker, both comparators as training does (robust reward, strict shadow), and prints
the grader process's CPU per test (its own threads; the sandboxed children are other processes), the
verdict, and the ratio to the plain answer, all in one run.
Measured 2026-12-05 (2-core Xeon, two training runs beside it; `--tests 6`), the same script against
the code before the relative cap and strict decoding, then after (one run each, one after the other),
grader CPU per test: plain 0.7 / 0.8 ms; padded 1 MiB 7.6 / 7.4 ms (accepted both); padded to the cap
236 ms (accepted) / 5.1 ms (wrong unread); 4-byte + spaces 491 / 4.3 ms; 4-byte + bad UTF-8 724 / 4.3 ms.

    .venv/bin/python benchmarks/bench_output_flood.py [--tests N]
"""

from __future__ import annotations

import argparse
import json
import time

from mcsweep.evaluator import Evaluator, GradeRequest

PAD = 32 << 20
EMOJI = "\\xf0\\x9f\\x98\\x80"
SOLUTIONS = {
    "plain": "print('1 2 3')\n",
    "padded 1 MiB": f"import sys\nsys.stdout.write('1 2 3' + ' ' * {1 << 20} + '\\n')\n",
    "padded to cap": f"import sys\nsys.stdout.write('1 2 3' + ' ' * {PAD - 16} + '\\n')\n",
    "4-byte + spaces": f"import sys\nsys.stdout.buffer.write(b'1 2 3{EMOJI}' + b' ' * {30 << 20})\n",
    "4-byte + bad utf-8": f"import sys\nsys.stdout.buffer.write(b'{EMOJI}' + b'\\xff' * {30 << 20})\n",
}


def grader_cpu_per_test(ev: Evaluator, code: str, tests: int) -> tuple[float, str]:
    io = json.dumps({"inputs": [""] * tests, "outputs": ["1 2 3\n"] * tests})
    start = time.process_time()
    result = ev.grade(GradeRequest("flood", code=code, input_output=io))
    return (time.process_time() - start) / tests, result.verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=6, help="tests per solution")
    args = parser.parse_args()
    with Evaluator(workers=1, shadow_comparators=("livecodebench",), timeout_s=10.0, run_all=True) as ev:
        rows = {kind: grader_cpu_per_test(ev, code, args.tests) for kind, code in SOLUTIONS.items()}
    base = rows["plain"][0]
    print(f"microcoder + livecodebench shadow, {args.tests} tests, grader CPU per test")
    print("solution            cpu_s/test  verdict        ratio_to_plain")
    for kind, (cpu, verdict) in rows.items():
        print(f"{kind:<18}  {cpu:10.4f}  {verdict:<13}  {cpu / base:14.0f}")


if __name__ == "__main__":
    main()
