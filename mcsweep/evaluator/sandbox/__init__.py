"""Sandboxed execution: a warm zygote process forks one child per solution run.

Modules, one per side of each process boundary: ``slot`` (the grader's handle), ``zygote`` (the fork
server), ``child`` (runs hostile code), ``linux`` (isolation primitives), ``messages`` (what crosses
between them, typed) and ``limits`` (limits, the isolation record, errors).

Trust boundaries. The grader (the process that holds expected outputs) starts one zygote per pool slot
as a fresh interpreter, so the zygote never inherits the grader's memory. The zygote never sees code,
inputs or outputs either: it only forks, limits, waits and cleans up. A run's payload (code and test
inputs) goes from the grader straight to the child through a pipe, and the child's outputs come straight
back through another, so a hostile child cannot find expected outputs, or other solutions' code or
outputs, anywhere in its own memory. The grader compares outputs as data.

Isolation (reported by ``Isolation``), as root: the zygote is init of a PID namespace of its own (runs
see only its processes; each run's pid is drawn at random), and unshares a network namespace (no
interfaces up) and a mount namespace whose root is a fresh tmpfs showing only the system directories and the
Python installation (read-only), a minimal /dev and empty read-only /tmp and /dev/shm: no other host
file (datasets, expected outputs, service sockets) and none of the hidden paths (home directories, the
project tree wherever it lives, the grader's cwd) is there. Each child runs as its own
unprivileged uid (so it cannot write outside its 0700 working directory, signal other runs, or read
their files), with no_new_privs (setuid programs stay unprivileged), in its own process group, under
rlimits (CPU, address space, file size, processes, open files). After each run the process group is
killed; if any descendant escaped it, everything in the PID namespace but the zygote is killed; the
working directory is removed. Without root, the zygote makes a user namespace of its own and, as init of a PID
namespace in it, the same namespaces and root; runs then share its uid (no cgroup, /sys read-only).
Without user namespaces either, only rlimits, the process group and the temporary directory apply.
"""

from __future__ import annotations

import importlib
from typing import Any

from .limits import DEFAULT_HIDDEN, SETUP_FAILED, UID_BASE, Isolation, Limits, SandboxError

__all__ = [
    "DEFAULT_HIDDEN",
    "SETUP_FAILED",
    "UID_BASE",
    "Isolation",
    "Limits",
    "SandboxError",
    "Slot",
    "grader_trees",
]
_LAZY = {"Slot": ".slot", "grader_trees": ".linux"}  # not loaded in a zygote until needed (see __getattr__)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name], __name__), name)
