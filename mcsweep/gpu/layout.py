"""TRL's vLLM server mode on SLURM: which GPUs serve, which train, and the two commands that start them.

One node: the first `vllm_gpus` GPUs run `trl vllm-serve`, the others run the trainer through
`accelerate launch`. Several nodes: the last node is the vLLM server (all its GPUs), the others
train. `scripts/gpu/grpo_vllm_server.sbatch` runs what this module renders, so the layout has one
source; `python -m mcsweep.gpu layout ...` prints it for a manual launch.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from mcsweep.config import CONF_DIR
from mcsweep.config.schema import RunConfig

ACCELERATE_CONFIGS = CONF_DIR / "accelerate"
TRAIN_PORT = 29500


@dataclass(frozen=True)
class ServerLayout:
    """`vllm_gpus` counts only on one node; on several, vLLM takes the whole last node.

    `tensor_parallel` defaults to the largest power of two that divides the server's GPUs: all of them
    (one engine, the form TRL 1.16 supports for dense models: its `vllm-serve` help says a data-parallel
    size above 1 errors for them) on 1, 2, 4 or 8. vLLM needs it to divide the attention heads, which
    Qwen3 and Llama models have in multiples of 8, so 3, 5, 6 or 7 GPUs serve data parallel instead;
    that, and any smaller value, is unverified on a GPU (docs/gpu.md, open items).
    """

    nodes: int = 1
    gpus_per_node: int = 8
    vllm_gpus: int = 4
    tensor_parallel: int | None = None
    strategy: str = "zero3"

    def __post_init__(self) -> None:
        serve = self.serve_gpus
        if self.tensor_parallel is None:
            object.__setattr__(self, "tensor_parallel", serve & -serve)  # its largest power-of-two divisor
        if self.nodes < 1 or self.gpus_per_node < 1:
            raise ValueError(f"need nodes >= 1 and gpus_per_node >= 1 (got {self.nodes}, {self.gpus_per_node})")
        if self.nodes == 1 and not 1 <= self.vllm_gpus < self.gpus_per_node:
            raise ValueError(f"vllm_gpus must be in [1, {self.gpus_per_node - 1}] on one node (got {self.vllm_gpus})")
        if serve % self.tensor_parallel:
            raise ValueError(f"tensor_parallel={self.tensor_parallel} must divide the {serve} vLLM GPU(s)")
        if not (ACCELERATE_CONFIGS / f"{self.strategy}.yaml").is_file():
            raise ValueError(f"strategy: no conf/accelerate/{self.strategy}.yaml")

    @property
    def serve_gpus(self) -> int:
        return self.vllm_gpus if self.nodes == 1 else self.gpus_per_node

    @property
    def data_parallel(self) -> int:
        return self.serve_gpus // self.tensor_parallel

    @property
    def train_machines(self) -> int:
        return max(self.nodes - 1, 1)

    @property
    def train_processes(self) -> int:
        if self.nodes == 1:
            return self.gpus_per_node - self.vllm_gpus
        return self.train_machines * self.gpus_per_node


def _devices(first: int, count: int) -> str:
    return ",".join(str(i) for i in range(first, first + count))


def serve_dtype(cfg: RunConfig) -> str:
    """vLLM serves in half precision: the model config's float32 is the trainer's master copy, and in
    float32 vLLM loses its FlashAttention backend and needs twice the memory. Weight syncs cast."""
    return "float16" if cfg.model.dtype == "float16" else "bfloat16"


def serve_command(cfg: RunConfig, layout: ServerLayout) -> str:
    """`trl vllm-serve` for the run's model, on the server's GPUs."""
    r = cfg.rollout
    args = [
        "trl",
        "vllm-serve",
        "--model",
        cfg.model.path,
        "--tensor_parallel_size",
        str(layout.tensor_parallel),
        "--data_parallel_size",
        str(layout.data_parallel),
        "--host",
        "0.0.0.0",
        "--port",
        str(r.server_port),
        "--gpu_memory_utilization",
        str(r.gpu_memory_utilization),
        "--max_model_len",
        str(max_model_len(cfg)),
        "--dtype",
        serve_dtype(cfg),
    ]
    prefix = f"CUDA_VISIBLE_DEVICES={_devices(0, layout.vllm_gpus)} " if layout.nodes == 1 else ""
    return prefix + shlex.join(args)


def train_command(layout: ServerLayout, overrides: list[str]) -> str:
    """`accelerate launch -m mcsweep` on the training GPUs. On several nodes it reads $SLURM_PROCID,
    $MAIN_IP and $VLLM_HOST, which the sbatch script sets on each node."""
    config = ACCELERATE_CONFIGS / f"{layout.strategy}.yaml"
    launch = [
        "accelerate",
        "launch",
        "--config_file",
        str(config),
        "--num_processes",
        str(layout.train_processes),
        "--num_machines",
        str(layout.train_machines),
    ]
    run = ["-m", "mcsweep", *overrides, "rollout=vllm_server"]
    if layout.nodes == 1:
        devices = _devices(layout.vllm_gpus, layout.train_processes)
        return f"CUDA_VISIBLE_DEVICES={devices} " + shlex.join([*launch, *run])
    ranks = ' --machine_rank "$SLURM_PROCID" --main_process_ip "$MAIN_IP" ' + f"--main_process_port {TRAIN_PORT} "
    return 'MCSWEEP_VLLM_HOST="$VLLM_HOST" ' + shlex.join(launch) + ranks + shlex.join(run)


def max_model_len(cfg: RunConfig) -> int:
    """vLLM must hold the longest prompt plus the longest completion the run will ask for (it
    answers HTTP 400 to a prompt longer than max_model_len - max_tokens): `context.max_prompt_length`,
    which the data also enforces, plus the completion after any extension."""
    return cfg.context.max_prompt_length + max(cfg.context.max_completion_length, cfg.context.extend_to or 0)
