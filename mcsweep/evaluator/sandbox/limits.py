"""What the sandbox promises and reports: per-run limits, the isolation record, its own failure."""

from __future__ import annotations

from dataclasses import dataclass, field

SETUP_FAILED = 70  # a child's exit status when it failed before running the solution
UID_BASE = 1_000_000
UID_BLOCKS = 1 << 22
"""Blocks of 1000 uids a zygote draws its runs' from, at random, each claimed while its zygote lives (no two
live zygotes share one); UID_BASE + UID_BLOCKS * 1000 stays below 2**32 - 1."""
DEFAULT_HIDDEN = ("/root", "/home", "/work", "/mnt", "/srv", "/data", "/scratch")


class SandboxError(RuntimeError):
    """The sandbox machinery itself failed (not the solution)."""


@dataclass(frozen=True)
class Limits:
    """Per-test limits; contest-judge defaults (1024 MiB as AtCoder). ``memory_mb`` and ``nproc`` bound
    the test's whole process tree where a cgroup is available (``Isolation.cgroup``), files in its
    working directory included; ``timeout_s`` bounds the CPU time of the whole tree (the grader's wall
    limit is longer: ``pool.WALL_FACTOR``)."""

    timeout_s: float = 6.0
    total_timeout_s: float = 60.0
    memory_mb: int = 1024
    output_mb: int = 32
    nproc: int = 8
    nofile: int = 64
    max_files: int = 4096


@dataclass
class Isolation:
    """Which isolation layers are active in a zygote (and so in every child it forks).

    ``hidden_by`` maps each hidden path to what really hides it (itself or a covered tree above it, the
    root's own /tmp, /dev or /proc, or ``/``: the run's root has no such path); ``seccomp`` lists the
    system calls a solution is denied; ``warnings`` names each layer that fell back to a weaker one.
    """

    uid_switch: bool = False
    user_namespace: bool = False
    """Without root: the zygote made a user namespace of its own (mapping its uid alone), so the namespaces
    below need no root; runs share the zygote's uid."""
    pid_namespace: bool = False
    """The zygote is init of a PID namespace of its own (in its user namespace, without root): runs see and
    signal only its processes, and it ends every one of them with ``kill(-1)``."""
    random_pids: bool = False
    """Each run's first pid is drawn at random (the zygote sets its namespace's last pid before each fork):
    a pid counted the runs before it on the slot, and a run that forked 1,500 times set the next one's."""
    net_namespace: bool = False
    mount_namespace: bool = False
    ipc_namespace: bool = False
    proc_hidepid: bool = False
    uid_base: int = 0
    """The first of the 1000 uids this zygote's runs take (a block drawn at random); 0 without a uid switch."""
    landlock: bool = False
    """Runs open files for writing only beneath their directory and /dev/null, /dev/zero, /dev/full."""
    proc_pids_only: bool = False
    """The runs' /proc shows processes alone (``subset=pid``): no host-wide counter (vmstat, stat, /proc/sys)."""
    workdir_tmpfs: bool = False
    cgroup: str = ""
    cgroup_paths: list[str] = field(default_factory=list)
    seccomp: list[str] = field(default_factory=list)
    cpu: int = -1
    """The one CPU every run of this zygote is held to (-1: not pinned), so that a solution's busy
    processes slow no other solution graded beside it."""
    hidden_paths: list[str] = field(default_factory=list)
    hidden_by: dict[str, str] = field(default_factory=dict)
    host_view: list[str] = field(default_factory=list)
    """The host's directories a run's root shows (bound read-only, /sys aside): the system's and the
    Python installation. Nothing else of the host's is in it, /proc, /dev and /tmp are its own."""
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        """What a run card records of the judge: how runs are kept apart (``uid``: a uid each, as root;
        ``user_namespace``: namespaces of the zygote's own, without root; ``rlimits``: neither), the
        cgroup, and every fallback, so that a reader of a run knows what its rewards were graded under."""
        apart = "uid" if self.uid_switch else "user_namespace" if self.user_namespace else "rlimits"
        return {"runs_apart_by": apart, "cgroup": self.cgroup or None, "warnings": self.warnings, "errors": self.errors}
