"""`python -m mcsweep.gpu preflight|estimate|layout|host-ip [options] -- [hydra overrides]`: check or lay out a GPU run.

`preflight` checks the node: driver against torch's CUDA, GPUs and their architecture, and the
installed libraries against mcsweep's pins (and vLLM's); it exits 1 naming what fails.
`estimate` prints the memory estimate and exits 1 when the config cannot fit, so a job script can
stop before it asks SLURM for nodes. `layout` prints the vLLM server and trainer commands (one per
line with `--print all`, or only one of them, or the server's port), which is what the sbatch
script runs. `host-ip PEER` prints this node's address on its route to PEER (the trainer's
$VLLM_HOST_IP for weight syncs).
"""

from __future__ import annotations

import argparse
import sys

from mcsweep.config import CONF_DIR
from mcsweep.config.schema import RunConfig
from mcsweep.gpu.batching import batch_layout
from mcsweep.gpu.layout import ServerLayout, serve_command, train_command
from mcsweep.gpu.memory import STRATEGIES, check_fits
from mcsweep.gpu.network import source_ip
from mcsweep.gpu.preflight import preflight

CONF = str(CONF_DIR)


def compose_run_config(overrides: list[str]) -> RunConfig:
    """The validated run config that `python -m mcsweep <overrides>` would use."""
    from hydra import compose, initialize_config_dir

    from mcsweep.config.validate import validate_config

    with initialize_config_dir(CONF, version_base="1.3"):
        return validate_config(compose("config", overrides=overrides))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m mcsweep.gpu", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    est = sub.add_parser("estimate", help="memory estimate per training GPU")
    est.add_argument("--gpus", type=int, default=1, help="training GPUs")
    est.add_argument("--gpu-mem-gib", type=float, default=80.0)
    est.add_argument("--strategy", choices=STRATEGIES, default=None)
    est.add_argument("--micro-batch", type=int, default=None, help="sequences per GPU per forward")
    est.add_argument("--gradient-checkpointing", action="store_true", default=None)
    lay = sub.add_parser("layout", help="vLLM server-mode commands")
    lay.add_argument("--nodes", type=int, default=1)
    lay.add_argument("--gpus-per-node", type=int, default=8)
    lay.add_argument("--vllm-gpus", type=int, default=4, help="vLLM GPUs on a single node")
    lay.add_argument(
        "--tensor-parallel",
        type=int,
        default=None,
        help="vLLM tensor parallel size (default: the largest power of two dividing the server's GPUs, one engine "
        "on 1/2/4/8; smaller serves data parallel)",
    )
    lay.add_argument("--strategy", default="zero3", help="a conf/accelerate/<name>.yaml")
    lay.add_argument("--print", dest="what", choices=("all", "vllm", "train", "port"), default="all")
    pre = sub.add_parser("preflight", help="driver, CUDA, GPUs and library versions on this node")
    pre.add_argument("--hf-only", action="store_true", help="rollout=hf only: vLLM and DeepSpeed not needed")
    ip = sub.add_parser("host-ip", help="this node's address on the route to the vLLM host")
    ip.add_argument("peer", help="the vLLM server's host name or address")
    for p in (est, lay):
        p.add_argument("overrides", nargs="*", help="Hydra overrides, as for python -m mcsweep")
    return parser


def _estimate(args: argparse.Namespace) -> int:
    cfg = compose_run_config(args.overrides)
    estimate = check_fits(
        cfg,
        args.gpus,
        args.gpu_mem_gib,
        strategy=args.strategy,
        micro_batch=args.micro_batch,
        gradient_checkpointing=args.gradient_checkpointing,
    )
    print(estimate.summary())
    if estimate.warning:
        print(f"WARNING: {estimate.warning}", file=sys.stderr)
        return 1
    return 0


def _layout(args: argparse.Namespace) -> int:
    cfg = compose_run_config([*args.overrides, "rollout=vllm_server"])
    if cfg.model.kind != "hf":
        raise SystemExit("layout: vLLM server mode needs an HF model (model=qwen3_1.7b, ...), not the micro policy")
    layout = ServerLayout(args.nodes, args.gpus_per_node, args.vllm_gpus, args.tensor_parallel, args.strategy)
    try:
        batch_layout(cfg.batch, layout.train_processes, getattr(cfg.train, "micro_batch", None))
    except ValueError as err:
        raise SystemExit(f"layout: {layout.train_processes} trainer GPUs: {err}") from None
    if args.what == "port":
        print(cfg.rollout.server_port)
        return 0
    if args.what in ("all", "vllm"):
        if layout.data_parallel > 1:
            print(
                f"WARNING: vLLM data parallel {layout.data_parallel}: TRL 1.16 says it errors for dense models "
                "(unverified here; docs/gpu.md, open items)",
                file=sys.stderr,
            )
        print(serve_command(cfg, layout))
    if args.what in ("all", "train"):
        print(train_command(layout, args.overrides))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "preflight":
        return preflight(with_vllm=not args.hf_only)
    if args.command == "host-ip":
        try:
            print(source_ip(args.peer))
        except ValueError as err:
            raise SystemExit(f"host-ip: {err}") from None
        return 0
    return _estimate(args) if args.command == "estimate" else _layout(args)


if __name__ == "__main__":
    sys.exit(main())
