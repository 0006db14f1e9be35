"""`python -m mcsweep.data build --config conf/data_pipeline/<name>.yaml [key=value ...]`."""

from __future__ import annotations

import argparse
from pathlib import Path

from mcsweep.data.config import load_config
from mcsweep.data.pipeline import STAGES, build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mcsweep.data", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="run or resume collect -> process -> filter -> verify")
    b.add_argument("--config", required=True, type=Path)
    b.add_argument(
        "--force",
        action="append",
        default=[],
        choices=STAGES,
        help="rerun this stage (and the ones after it) even if it finished",
    )
    b.add_argument("overrides", nargs="*", help="dotted overrides, e.g. out_dir=/tmp/x seed=1")
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    records = build(cfg, force=tuple(args.force))
    print(
        f"dataset: {Path(cfg.out_dir) / 'dataset.jsonl'} ({records['verify'].n_out} problems); "
        f"datasheet: {Path(cfg.out_dir) / 'datasheet.md'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
