"""Honest solutions near their limit, graded with the pool full: how many get a wrong verdict.

Each solution spends a fixed share of the test's limit in CPU time (measured by ``time.process_time``,
so the work is the same however busy the machine is), then prints the answer. ``--n`` of them are graded
at once by ``--workers`` workers; the script prints the verdicts and the tests' wall times. On a machine
whose CPUs are busy (a trainer beside the grader), a run gets only a share of its CPU, so its wall time
stretches while its CPU time does not.

    .venv/bin/python benchmarks/bench_honest_under_load.py [--n 100] [--timeout 1] [--share 0.5]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import time

from mcsweep.evaluator import Evaluator, GradeRequest

IO = json.dumps({"inputs": [""], "outputs": ["ok\n"]})


def honest(cpu_s: float) -> str:
    return (
        f"import time\nend = time.process_time() + {cpu_s}\nwhile time.process_time() < end:\n    pass\nprint('ok')\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="solutions graded")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1.0, help="per-test limit (s)")
    parser.add_argument("--share", type=float, default=0.5, help="CPU time each solution spends, of the limit")
    parser.add_argument("--wall", type=float, default=None, help="per-test wall limit (s; the evaluator's default)")
    args = parser.parse_args()
    code = honest(args.share * args.timeout)
    requests = [GradeRequest(str(i), code=code + f"# {i}\n", input_output=IO) for i in range(args.n)]
    wall = {"wall_timeout_s": args.wall} if args.wall is not None else {}
    load = os.getloadavg()[0]
    start = time.monotonic()
    with Evaluator(workers=args.workers, timeout_s=args.timeout, **wall) as ev:
        results = ev.grade_many(requests)
    walls = sorted(r.tests[0].time_s for r in results if r.tests)
    verdicts = collections.Counter(r.verdict for r in results)
    print(
        f"load {load:.1f}; {args.n} solutions of {args.share * args.timeout:.2f} s CPU, limit {args.timeout} s, "
        f"{args.workers} workers, {time.monotonic() - start:.0f} s: {dict(verdicts)}; wall per test median "
        f"{statistics.median(walls):.2f} s, 90% {walls[int(0.9 * len(walls))]:.2f} s, max {walls[-1]:.2f} s"
    )
    for r in results:
        if not r.passed:
            print(r.id, r.verdict, r.tests[0].error if r.tests else "")


if __name__ == "__main__":
    main()
