"""`python -m mcsweep.micro stats [options] [hydra overrides]`: each axis's mechanism at step 0.
`python -m mcsweep.micro reasoning RUN...`: world 3's reasoning forms over a run's training.

Measures, for the policy and world of the run that `python -m mcsweep <overrides>` would start
(e.g. `+model.micro.world_version=2`, or `experiment=micro_campaign`): the strict judge's
rejections of correct answers, truncation per length and difficulty, diversity and pass@1 against
temperature, and pass@1 per training set.
Writes the numbers as JSON and as the world's markdown datasheet.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

from mcsweep.micro import datasheet, stats


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m mcsweep.micro", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    st = sub.add_parser("stats", help="measure each axis's mechanism at step 0 and write the datasheet")
    st.add_argument(
        "--n-test",
        type=int,
        default=200,
        help="test problems, the first n of the test set (world 1 has 200, world 2 has 800)",
    )
    st.add_argument("--samples", type=int, default=4, help="samples per test problem (the study's 4)")
    st.add_argument("--n-temperature", type=int, default=40, help="test problems per temperature")
    st.add_argument(
        "--temperatures",
        type=float,
        nargs="+",
        default=[0.3, 0.6, 0.9, 1.2, 1.35, 1.5, 1.8, 2.4],
        help="sampling temperatures probed (as sampled: not scaled by temperature.unit)",
    )
    st.add_argument("--n-set", type=int, default=100, help="problems per training set (easy, hard)")
    st.add_argument("--n-sft", type=int, default=1000, help="warm-start problems for the data statistics")
    st.add_argument("--data-only", action="store_true", help="only the data's statistics (no policy needed)")
    st.add_argument("--threads", type=int, default=1, help="torch threads (the machine may be shared)")
    st.add_argument("--out", type=Path, default=None, help="datasheet markdown (default: print only)")
    st.add_argument("--json", type=Path, default=None, help="also write the numbers as JSON here")
    st.add_argument("overrides", nargs="*", help="Hydra overrides, as for python -m mcsweep")
    rt = sub.add_parser(
        "reasoning", help="world 3: how a run's training completions state their constants, over training"
    )
    rt.add_argument("runs", nargs="+", type=Path, help="run folders (each with its completions.jsonl)")
    rt.add_argument("--windows", type=int, default=4, help="equal stretches of training to report")
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    args = _parser().parse_args(argv)
    if args.command == "reasoning":
        return _reasoning(args)
    import torch

    torch.set_num_threads(args.threads)
    start = time.time()
    result = stats.measure_all(args)
    result["seconds"] = round(time.time() - start)
    result["argv"] = list(sys.argv[1:] if argv is None else argv)
    text = datasheet.render(result)
    print(text)
    if args.out:
        args.out.write_text(text)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


def _reasoning(args: argparse.Namespace) -> int:
    from mcsweep.micro import reasoning_trace

    for run in args.runs:
        table, skipped = reasoning_trace.trace(run, args.windows)
        print(reasoning_trace.render(run, table, skipped) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
