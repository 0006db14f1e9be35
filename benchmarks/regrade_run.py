"""Re-grade a finished micro-world run's logged training completions with the current judge.

A judge change in the middle of a campaign must not change the verdicts of the policy's programs, or
the runs before and after it are not graded alike. This takes a run folder, rebuilds its training
set (world and set, or the built dataset's file, from its config.yaml), grades every completion in
its completions.jsonl with the run's evaluator settings, and prints how many verdicts match the
recorded ones, with each kind of difference counted.

    .venv/bin/python benchmarks/regrade_run.py runs/micro/seeds/<run_id> [more run folders]
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from pathlib import Path

from omegaconf import OmegaConf

from mcsweep.evaluator import Evaluator, GradeRequest
from mcsweep.micro.problems import WorldSpec
from mcsweep.micro.world import problem_set

END = "<|im_end|>"  # logged completions keep the end-of-turn token; the reward grades the text before it


def regrade(run: Path) -> tuple[int, int, collections.Counter]:
    cfg = OmegaConf.load(run / "config.yaml")
    world = WorldSpec(version=int(OmegaConf.select(cfg, "model.micro.world_version", default=1)))
    path = OmegaConf.select(cfg, "data.path")
    if path:  # a built dataset (the data pipeline's), one problem per line
        found = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    else:
        found = problem_set(str(cfg.data.train_set), world)
    problems = {p["id"]: p for p in found}
    rows = [json.loads(line) for line in (run / "completions.jsonl").read_text().splitlines() if line.strip()]
    ev_cfg = cfg.evaluator
    with Evaluator(
        comparator=ev_cfg.comparator,
        shadow_comparators=tuple(ev_cfg.shadow),
        workers=int(ev_cfg.workers),
        timeout_s=float(ev_cfg.timeout_s),
        memory_mb=int(ev_cfg.memory_mb),
    ) as ev:
        requests = [
            GradeRequest(r["id"], completion=r["completion"].removesuffix(END), problem=problems[r["id"].split("#")[0]])
            for r in rows
        ]
        results = ev.grade_many(requests)
    changed = collections.Counter(
        (r["verdict"], g.verdict) for r, g in zip(rows, results, strict=True) if r["verdict"] != g.verdict
    )
    return len(rows), len(rows) - sum(changed.values()), changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="finished micro-world run folders")
    args = parser.parse_args()
    for run in args.runs:
        t0 = time.time()
        n, same, changed = regrade(run)
        print(f"{run}: {same}/{n} verdicts as recorded; changed {dict(changed) or 'none'} ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
