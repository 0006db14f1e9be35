"""What the launcher tells a training process through its environment, read once at the entry.

`accelerate launch`/torchrun set WORLD_SIZE; the SLURM layout sets MCSWEEP_VLLM_HOST to the node
of the vLLM server (mcsweep/gpu/layout.py). Reading them in one place, and handing the result to
the functions that need it, keeps those functions pure and the environment's role visible.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class LaunchEnv:
    """`world_size`: training processes of the run; `vllm_host`: the vLLM server's host when the
    launcher placed it (None: `rollout.server_host`). The default is one process started directly."""

    world_size: int = 1
    vllm_host: str | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> LaunchEnv:
        env = os.environ if environ is None else environ
        return cls(world_size=int(env.get("WORLD_SIZE", "1")), vllm_host=env.get("MCSWEEP_VLLM_HOST") or None)


SINGLE_PROCESS = LaunchEnv()
"""One process started directly (no launcher): what tests and single-process tools run under."""
