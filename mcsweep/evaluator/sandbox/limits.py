"""What the sandbox promises and reports: per-run limits, the isolation record, its own failure."""

from __future__ import annotations

from dataclasses import dataclass, field

SETUP_FAILED = 70  # a child's exit status when it failed before running the solution
UID_BASE = 1_000_000
DEFAULT_HIDDEN = ("/root", "/home", "/work", "/mnt", "/srv", "/data", "/scratch")


class SandboxError(RuntimeError):
    """The sandbox machinery itself failed (not the solution)."""


@dataclass(frozen=True)
class Limits:
    """Per-run limits; contest-judge defaults (1024 MiB as AtCoder)."""

    timeout_s: float = 6.0
    total_timeout_s: float = 60.0
    memory_mb: int = 1024
    output_mb: int = 32
    nproc: int = 8
    nofile: int = 64


@dataclass
class Isolation:
    """Which isolation layers are active in a zygote (and so in every child it forks)."""

    uid_switch: bool = False
    net_namespace: bool = False
    mount_namespace: bool = False
    hidden_paths: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
