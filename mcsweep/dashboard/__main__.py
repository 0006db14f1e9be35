"""Build the W&B workspace of a sweep (or of every sweep in sweeps/), or write its spec as JSON.

python -m mcsweep.dashboard SWEEP|all --entity E --project P            # save to W&B
python -m mcsweep.dashboard SWEEP|all --entity E --project P --dry-run  # JSON only, no network
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mcsweep.dashboard.spec import build_spec, sweep_names
from mcsweep.dashboard.workspace import build_workspace


def write_spec(sweep: str, entity: str, project: str, out_dir: Path) -> Path:
    """``<out_dir>/<sweep>.json``: mcsweep's panel spec and the workspace view wandb-workspaces would save."""
    spec = build_spec(sweep)
    view = build_workspace(spec, entity, project)._spec
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{sweep}.json"
    path.write_text(json.dumps({"mcsweep": spec.to_dict(), "workspace": view}, indent=1, default=str))
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m mcsweep.dashboard", description="W&B workspaces whose panels mirror the study's figures."
    )
    parser.add_argument("sweep", help="a sweep_name from sweeps/ (e.g. temperature), or 'all'")
    parser.add_argument("--entity", required=True, help="W&B entity (user or team) the runs are logged to")
    parser.add_argument("--project", required=True, help="W&B project (tracker.project, default mcsweep)")
    parser.add_argument("--dry-run", action="store_true", help="write the spec as JSON; contact nothing")
    parser.add_argument("--out", type=Path, default=Path("dashboards"), help="folder for --dry-run JSON")
    args = parser.parse_args(argv)
    known = sweep_names()
    sweeps = known if args.sweep == "all" else [args.sweep]
    unknown = sorted(set(sweeps) - set(known))
    if unknown:
        parser.error(f"unknown sweep {unknown[0]!r}; one of {', '.join(known)} or all")
    for sweep in sweeps:
        if args.dry_run:
            print(f"{sweep}: spec written to {write_spec(sweep, args.entity, args.project, args.out)}")
        else:
            workspace = build_workspace(build_spec(sweep), args.entity, args.project).save()
            print(f"{sweep}: {workspace.url}")


if __name__ == "__main__":
    main()
