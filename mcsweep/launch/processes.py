"""Several training processes for one run: ranks from the job, distributed settings from `accelerate`.

A point with `launcher.processes` = N > 1 is one job with N tasks (submitit's `tasks_per_node`,
one per GPU), each running the same Hydra job. submitit knows each task's rank from SLURM's
variables (or from its local executor's), and exports the `env://` variables torch.distributed
and accelerate read (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT). The `accelerate`
config group (conf/accelerate/) then becomes the ACCELERATE_* / FSDP_* variables that
`accelerate launch` would export for the same file, computed by accelerate's own launcher code,
so TRL's Trainer sets up DDP, DeepSpeed or FSDP exactly as under `accelerate launch`.

A process started by `accelerate launch` or torchrun already has its rank variables and is left
alone (its `--config_file` has set the rest).
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Mapping, MutableMapping
from pathlib import Path

import yaml

log = logging.getLogger(__name__)

# What accelerate's launcher exports that describes the distributed setup (not the rank itself).
_ACCELERATE_PREFIXES = ("ACCELERATE_", "FSDP_")


def job_world_size() -> int:
    """Tasks in the submitit/SLURM job this process runs in (1 outside such a job)."""
    import submitit

    try:
        return submitit.JobEnvironment().num_tasks
    except RuntimeError:  # not inside a submitit or SLURM job
        return 1


def accelerate_env(settings: Mapping, world: int) -> dict[str, str]:
    """The variables `accelerate launch --config_file <settings> --num_processes <world>` exports.

    accelerate's own parser, validation and env builders do the translation, so a config file
    behaves the same here as under `accelerate launch`."""
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser
    from accelerate.utils.launch import prepare_deepspeed_cmd_env, prepare_multi_gpu_env

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "accelerate.yaml"
        path.write_text(yaml.safe_dump({**dict(settings), "num_processes": world}))
        argv = ["--config_file", str(path), "--num_processes", str(world), "-m", "mcsweep"]
        args, defaults, mixed_precision_from_file = _validate_launch_command(launch_command_parser().parse_args(argv))
    if args.use_deepspeed:
        fields = list(defaults.deepspeed_config) + (["mixed_precision"] if mixed_precision_from_file else [])
        args.deepspeed_fields_from_accelerate_config = ",".join(fields)
        env = prepare_deepspeed_cmd_env(args)[1]
    else:
        env = prepare_multi_gpu_env(args)
    return {k: v for k, v in env.items() if k.startswith(_ACCELERATE_PREFIXES) and k != "ACCELERATE_CONFIG_DS_FIELDS"}


def require_gpus_for_sharding(settings: Mapping) -> None:
    """accelerate sets up FSDP and DeepSpeed for GPU processes only (`AcceleratorState` switches to them
    from MULTI_GPU, never from MULTI_CPU), so on CPUs they would silently run plain data parallel."""
    import torch

    kind = settings.get("distributed_type")
    if kind in ("FSDP", "DEEPSPEED") and not torch.cuda.is_available():
        raise RuntimeError(
            f"accelerate: {kind} needs GPUs (accelerate runs it only for GPU processes; on CPUs it "
            "would silently train plain data parallel); use accelerate=cpu"
        )


def cpu_device() -> dict[str, str]:
    """On CPUs, the device `cpu` for every rank. accelerate would name rank r's device `cpu:r`, and the
    Trainer resumes the optimizer with `torch.load(map_location=args.device)`, which cannot restore
    storages to `cpu:0` (transformers 5.17, torch 2.13): a 2-process CPU run could not resume."""
    import torch

    return {} if torch.cuda.is_available() else {"ACCELERATE_TORCH_DEVICE": "cpu"}


def setup_processes(processes: int, settings: Mapping, env: MutableMapping[str, str] = os.environ) -> int:
    """Export this task's rank and the `accelerate` group's settings; returns the world size.

    Fails when the config asks for N processes but this one runs alone (a launcher that starts
    one task per point would otherwise train on one GPU while the others sit idle)."""
    if "WORLD_SIZE" in env:  # accelerate launch / torchrun set everything already
        return int(env["WORLD_SIZE"])
    world = job_world_size()
    if world != processes:
        raise RuntimeError(
            f"launcher.processes={processes} but this job runs {world} task(s); launch through a "
            "submitit launcher (launcher=submitit_local, submitit_slurm*), which starts one task per "
            "process, or with `accelerate launch --num_processes N`"
        )
    if world == 1:
        return 1
    require_gpus_for_sharding(settings)
    from submitit.helpers import TorchDistributedEnvironment

    dist = TorchDistributedEnvironment()
    ranks = {
        "MASTER_ADDR": dist.master_addr,
        "MASTER_PORT": str(dist.master_port),
        "RANK": str(dist.rank),
        "WORLD_SIZE": str(dist.world_size),
        "LOCAL_RANK": str(dist.local_rank),
        "LOCAL_WORLD_SIZE": str(dist.local_world_size),
    }
    env.update(ranks | accelerate_env(settings, world) | cpu_device())
    log.info("process %d of %d (master %s:%s)", dist.rank, world, dist.master_addr, dist.master_port)
    return world
