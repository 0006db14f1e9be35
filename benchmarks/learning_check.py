"""Does the fast step learn what the stock step learns? The default run, old path against new, by seed.

Usage: python benchmarks/learning_check.py [hydra overrides ...] [--seeds 0 1 2] [--paths old [new+bf16]]
                                           [--runs DIR] [--jobs 2] [--report-only]
Runs the default micro config (140 steps) sampled at a fixed temperature 1.2 once per path and seed, `--jobs`
runs at a time with one torch thread each, in `DIR/learning_<path>/` (a rerun skips finished runs
and resumes interrupted ones). Then prints each run's test pass@1 at its training length at step 0
and at the last step, the gain, each path's mean gain +- SD over seeds, and the difference of the
means with its standard error (Welch). The paths are those of `bench_fast_paths.py`: `old` is stock
TRL (`generate`, TRL's forward, fp32), `new` the fast sampler and shared-prompt forward, `new+bf16`
adds the bf16 update.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PATHS = {
    "old": [
        "rollout.sampler=hf_generate",
        "train.shared_prompt=false",
        "train.cpu_bf16_update=false",
        "evaluator.dedupe=false",
    ],
    "new": ["rollout.sampler=fast", "train.shared_prompt=true", "train.cpu_bf16_update=false", "evaluator.dedupe=true"],
    "new+bf16": [
        "rollout.sampler=fast",
        "train.shared_prompt=true",
        "train.cpu_bf16_update=true",
        "evaluator.dedupe=true",
    ],
}
# The default run sampled at a fixed T=1.2 (the baseline, measured before `temperature.unit`:
# unit 1.0 keeps it so): under the default staged schedule at unit 1.0 the micro policy's reward is 0
# at every step after the switch to T=1.8 (no gradient), so only its first 20 steps could tell the
# paths apart. Tested on the whole test set (200 problems) x 4 samples, at the start and the end.
EVAL = [
    "temperature=fixed_1.2",
    "temperature.unit=1.0",
    "data.n_test=200",
    "train.eval_samples=4",
    "train.eval_every=140",
    "tracker=none",
    "launcher.torch_threads=1",
]


def sweep_name(path: str) -> str:
    return "learning_" + path.replace("+", "_")


def run(path: str, seed: int, runs: Path, overrides: list[str]) -> int:
    cmd = [sys.executable, "-m", "mcsweep", *EVAL, *PATHS[path], f"seed={seed}", f"runs_root={runs}"]
    cmd += [f"sweep_name={sweep_name(path)}", *overrides]
    log = runs / f"{sweep_name(path)}_s{seed}.log"
    with log.open("a") as out:
        code = subprocess.call(cmd, stdout=out, stderr=subprocess.STDOUT)
    print(f"{path} seed {seed}: exit {code} ({log})", flush=True)
    return code


def gains(runs: Path, path: str) -> dict[int, tuple[float, float, int]]:
    """seed -> (pass@1 at step 0, at the last evaluated step, that step), at the training length."""
    out = {}
    for evals in sorted((runs / sweep_name(path)).glob("*/evals.jsonl")):
        card = json.loads((evals.parent / "run_card.json").read_text())
        if card.get("status") != "finished":
            continue
        rows = [r for r in map(json.loads, evals.read_text().splitlines()) if r["train_length"]]
        first, last = min(rows, key=lambda r: r["step"]), max(rows, key=lambda r: r["step"])
        out[card["seed"]] = (first["pass@1"], last["pass@1"], last["step"])
    return out


def report(runs: Path, paths: list[str]) -> None:
    summary = {}
    print(f"\n{'path':10} {'seed':>4} {'step0':>7} {'final':>7} {'step':>5} {'gain':>7}")
    for path in paths:
        rows = gains(runs, path)
        for seed, (a, b, step) in sorted(rows.items()):
            print(f"{path:10} {seed:>4} {a:7.4f} {b:7.4f} {step:>5} {b - a:+7.4f}")
        summary[path] = [b - a for a, b, _ in rows.values()]
    print()
    for path, g in summary.items():
        sd = statistics.stdev(g) if len(g) > 1 else float("nan")
        print(f"{path:10} mean gain {statistics.fmean(g) if g else float('nan'):+.4f} +- {sd:.4f} SD (n={len(g)})")
    if len(paths) == 2 and all(len(summary[p]) > 1 for p in paths):
        a, b = (summary[p] for p in paths)
        diff = statistics.fmean(b) - statistics.fmean(a)
        se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
        print(f"{paths[1]} - {paths[0]}: {diff:+.4f} +- {se:.4f} SE ({abs(diff) / se:.2f} SE)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--paths", nargs="+", default=["old", "new+bf16"], choices=list(PATHS), help="one or two")
    parser.add_argument("--runs", type=Path, default=Path("runs"))
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (one torch thread each)")
    parser.add_argument("--report-only", action="store_true", help="only print the table of finished runs")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides for every run")
    args = parser.parse_args()
    if len(args.paths) > 2:
        parser.error(f"--paths takes one or two paths (got {len(args.paths)})")
    args.runs.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        # Slow path first in each seed, so the two queues stay about even.
        jobs = [(path, seed) for seed in args.seeds for path in args.paths]
        with ThreadPoolExecutor(args.jobs) as pool:
            codes = list(pool.map(lambda job: run(*job, args.runs, args.overrides), jobs))
        if any(codes):
            print(f"{sum(map(bool, codes))} of {len(codes)} runs failed; see their logs", file=sys.stderr)
    report(args.runs, args.paths)


if __name__ == "__main__":
    main()
