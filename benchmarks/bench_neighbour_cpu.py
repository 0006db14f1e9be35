"""A CPU hog beside correct solutions: each worker's runs held to a CPU of their own, or not.

Batch: hogs (a solution that starts 7 busy helper processes, each in a session of its own, and spins
until the wall limit kills it)
interleaved with correct CPU-bound solutions (about 0.2 s of arithmetic, then the answer), graded by
2 workers, first with the evaluator's per-worker CPUs, then with the pinning off, in the same run. It
prints the correct solutions' verdicts and wall times per test. Without pinning a hog's 8 processes
take most of every core, so its neighbour runs slower and, near its wall limit, gets `time_limit`.
Measured 2026-12-04 (2-core Xeon, two training runs beside it; `--pairs 8`, 1 s limit): alone 0.26 s
a test; pinned 8/8 accepted, median 0.62 s; unpinned 0/8 accepted (every one past its wall limit).

    .venv/bin/python benchmarks/bench_neighbour_cpu.py [--pairs N] [--timeout S]
"""

from __future__ import annotations

import argparse
import json
import statistics
from unittest import mock

from mcsweep.evaluator import Evaluator, GradeRequest

IO = json.dumps({"inputs": [""], "outputs": ["ok\n"]})
HOG = (  # each helper tries a session of its own (denied since round 14: autogroups share the CPU by session)
    "import os\nfor _ in range(7):\n    if os.fork() == 0:\n        try:\n            os.setsid()\n"
    "        except OSError:\n            pass\n        while True:\n            pass\nwhile True:\n    pass\n"
)
CORRECT = "s = 0\nfor i in range(3_000_000):\n    s += i * i\nprint('ok')\n"


def grade(pinned: bool, pairs: int, timeout: float) -> list:
    requests = [
        GradeRequest(f"{kind}{i}", code=code, input_output=IO)
        for i in range(pairs)
        for kind, code in (("hog", HOG), ("ok", CORRECT))
    ]
    patch = mock.patch.object(Evaluator, "_cpus", staticmethod(lambda n: [-1] * n)) if not pinned else None
    if patch:
        patch.start()
    try:
        with Evaluator(workers=2, timeout_s=timeout) as ev:
            return [r for r in ev.grade_many(requests) if r.id.startswith("ok")]
    finally:
        if patch:
            patch.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10, help="hog + correct pairs")
    parser.add_argument("--timeout", type=float, default=1.0, help="per-test wall and CPU limit (s)")
    args = parser.parse_args()
    with Evaluator(workers=1, timeout_s=args.timeout) as ev:
        alone = ev.grade(GradeRequest("alone", code=CORRECT, input_output=IO)).tests[0].time_s
    print(f"correct solution alone: {alone:.3f} s wall")
    for pinned in (True, False):
        results = grade(pinned, args.pairs, args.timeout)
        walls = [r.tests[0].time_s for r in results]
        accepted, median = sum(r.passed for r in results), statistics.median(walls)
        print(
            f"{'pinned  ' if pinned else 'unpinned'}: {accepted}/{len(results)} correct accepted; wall per test "
            f"median {median:.3f} s ({median / alone:.1f}x alone), max {max(walls):.3f} s"
        )


if __name__ == "__main__":
    main()
