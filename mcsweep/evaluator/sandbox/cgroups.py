"""A cgroup per zygote, reused by each of its runs (one at a time): it limits and accounts a run's whole
process tree, where rlimits only see one process: memory (tmpfs pages the run writes included), number
of tasks, CPU time of the tree, and an OOM kill counter. The zygote enters it once, so that every child
is born inside (joining per child would cost an RCU grace period each); the zygote is the OOM killer's
last choice (children raise their own score to the maximum), its own CPU time is subtracted, and its
memory is allowed for (``ZYGOTE_ALLOWANCE``). cgroup v1 (memory, pids, cpuacct hierarchies) or v2 (a
delegated subtree with the memory and pids controllers); ``open_cgroup`` says why neither works."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import time

from .limits import Limits

ROOT = "/sys/fs/cgroup"
V1_CONTROLLERS = ("memory", "pids", "cpuacct")
ZYGOTE_ALLOWANCE = 64 << 20  # the zygote's own memory, charged to the same cgroup


def _write(path: str, value: str) -> None:
    try:
        with open(path, "w") as stream:
            stream.write(value)
    except OSError as err:
        raise OSError(err.errno, f"writing {value} to {path}: {err.strerror}") from None


def _read(path: str) -> str:
    with open(path) as stream:
        return stream.read()


def _keyed(text: str, key: str) -> int:
    """The value of ``key`` in a flat-keyed cgroup file (``oom_kill 3``, ``usage_usec 120``)."""
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0


def _own_paths() -> dict[str, str]:
    """Our cgroup per controller (v1) and under key "" (v2), from /proc/self/cgroup."""
    paths = {}
    for line in _read("/proc/self/cgroup").splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


class Cgroup:
    """One run's cgroup: configure the limits, let the child join, then account and empty it."""

    def __init__(self, version: str, dirs: dict[str, str]) -> None:
        self.version, self.dirs = version, dirs
        self.limits: Limits | None = None
        self.cpu_base = 0
        self.oom_base = 0

    @property
    def procs_files(self) -> list[str]:
        return [os.path.join(d, "cgroup.procs") for d in self.dirs.values()]

    def enter(self) -> None:
        """Move this process (the zygote) in; its children raise their OOM score above it."""
        for path in self.procs_files:
            _write(path, str(os.getpid()))

    def _file(self, controller: str, name: str) -> str:
        return os.path.join(self.dirs[controller if self.version == "v1" else ""], name)

    def configure(self, limits: Limits) -> None:
        if limits == self.limits:
            return
        memory = _memory_limit(limits)
        if self.version == "v1":
            _write(self._file("memory", "memory.limit_in_bytes"), memory)
            with contextlib.suppress(OSError):  # no swap accounting: limit RAM only
                _write(self._file("memory", "memory.swappiness"), "0")
        else:
            _write(self._file("", "memory.max"), memory)
            with contextlib.suppress(OSError):
                _write(self._file("", "memory.swap.max"), "0")
        _write(self._file("pids", "pids.max"), str(limits.nproc + 1))  # + the zygote
        self.limits = limits

    def _cpu_ns(self) -> int:
        """CPU of the cgroup's tasks other than this process (the zygote)."""
        if self.version == "v1":
            total = int(_read(self._file("cpuacct", "cpuacct.usage")))
        else:
            total = 1000 * _keyed(_read(self._file("", "cpu.stat")), "usage_usec")
        own = resource.getrusage(resource.RUSAGE_SELF)
        return total - int((own.ru_utime + own.ru_stime) * 1e9)

    def _oom_kills(self) -> int:
        if self.version == "v1":
            return _keyed(_read(self._file("memory", "memory.oom_control")), "oom_kill")
        return _keyed(_read(self._file("", "memory.events")), "oom_kill")

    def start(self) -> None:
        """Before a run: remember the counters it will be charged from."""
        self.cpu_base, self.oom_base = self._cpu_ns(), self._oom_kills()

    def usage(self) -> tuple[float, bool]:
        """CPU seconds of the run's whole tree, and whether the kernel killed one of its tasks for memory."""
        return (self._cpu_ns() - self.cpu_base) / 1e9, self._oom_kills() > self.oom_base

    def trim(self) -> None:
        """After a run: give back what it left charged here (the page cache of the host files it read,
        which stays charged after every task of the run is gone), down to the zygote's allowance and the
        output the grader has yet to read. Left charged, it was the next run's to reclaim: a run that read
        1 GB of /usr made the next solution's 900 MB allocation take 1.3-1.8 s instead of 0.5-0.9 s."""
        if self.limits is None:
            return
        target = ZYGOTE_ALLOWANCE + (self.limits.output_mb << 20)
        if self.version == "v1":
            if int(_read(self._file("memory", "memory.usage_in_bytes"))) <= target:
                return
            limit = self._file("memory", "memory.limit_in_bytes")
            try:
                _write(limit, str(target))  # the kernel reclaims down to it, or refuses (EBUSY) unchanged
            except OSError:
                pass
            finally:
                _write(limit, _memory_limit(self.limits))
        else:
            excess = int(_read(self._file("", "memory.current"))) - target
            if excess > 0:
                with contextlib.suppress(OSError):  # EAGAIN: less was reclaimable
                    _write(self._file("", "memory.reclaim"), str(excess))

    def pids(self) -> list[int]:
        """The run's tasks (everything in the cgroup but the zygote)."""
        own = os.getpid()
        return [pid for pid in map(int, _read(self.procs_files[0]).split()) if pid != own]

    def kill_all(self, patience: float = 5.0) -> bool:
        """SIGKILL every task in the cgroup (forks racing the kill included); True once it is empty."""
        end = time.monotonic() + patience
        while pids := self.pids():
            if time.monotonic() > end:
                return False
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.0005)
        return True

    def remove(self) -> None:
        """Leave (back to the parent cgroups) and remove; the grader retries the removal after we exit."""
        for path in self.dirs.values():
            with contextlib.suppress(OSError):
                _write(os.path.join(os.path.dirname(path), "cgroup.procs"), str(os.getpid()))
            with contextlib.suppress(OSError):
                os.rmdir(path)


def _memory_limit(limits: Limits) -> str:
    """The cgroup's memory limit in bytes, as written: the run's, plus the zygote's allowance."""
    return str((limits.memory_mb << 20) + ZYGOTE_ALLOWANCE)


PREFIX = "mcsweep-eval-"  # + the pid of the process the grader started (the zygote's waiting parent)


def _remove_stale(parent: str) -> None:
    """Remove the empty cgroups that dead zygotes left under ``parent`` (a zygote SIGKILLed with its
    grader cannot remove its own); a live zygote's, or one with tasks, is left alone."""
    with contextlib.suppress(OSError):
        for entry in os.listdir(parent):
            pid = entry.removeprefix(PREFIX)
            if entry.startswith(PREFIX) and pid.isdigit() and not _alive(int(pid)):
                with contextlib.suppress(OSError):
                    os.rmdir(os.path.join(parent, entry))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _parent_dirs() -> dict[str, str]:
    """Our own cgroup's directory per v1 controller, or under "" where /sys/fs/cgroup is cgroup2."""
    own = _own_paths()
    if os.path.exists(os.path.join(ROOT, "cgroup.controllers")):
        return {"": os.path.join(ROOT, own[""].lstrip("/"))}
    return {controller: os.path.join(ROOT, controller, own[controller].lstrip("/")) for controller in V1_CONTROLLERS}


def remove_stale_cgroups() -> None:
    """Remove what dead zygotes left under our cgroup (called in the host's PID namespace, where their
    pids are seen: from a zygote's own namespace every other pid looked dead, and a zygote starting beside
    it lost the cgroup it had made and not yet entered)."""
    with contextlib.suppress(OSError, KeyError, ValueError):
        for parent in _parent_dirs().values():
            _remove_stale(parent)


def open_cgroup(name: str) -> tuple[Cgroup | None, str]:
    """A fresh cgroup ``name`` under ours (v2 when /sys/fs/cgroup is cgroup2, else v1), or why not."""
    try:
        parents = _parent_dirs()
        return (_open_v2(name, parents[""]) if "" in parents else _open_v1(name, parents)), ""
    except (OSError, KeyError, ValueError) as err:
        return None, f"no cgroup ({err}): memory and process limits are per process (rlimits) only"


def _open_v1(name: str, parents: dict[str, str]) -> Cgroup:
    dirs = {}
    try:
        for controller, parent in parents.items():
            path = os.path.join(parent, name)
            os.mkdir(path, 0o755)
            dirs[controller] = path
    except OSError:
        Cgroup("v1", dirs).remove()
        raise
    cgroup = Cgroup("v1", dirs)
    cgroup._oom_kills()  # kernels before 4.13 have no oom_kill counter: refuse rather than miss OOM kills
    return cgroup


def _open_v2(name: str, parent: str) -> Cgroup:
    enabled = _read(os.path.join(parent, "cgroup.subtree_control")).split()
    missing = [c for c in ("memory", "pids") if c not in enabled]
    if missing:
        _write(os.path.join(parent, "cgroup.subtree_control"), " ".join(f"+{c}" for c in missing))
    path = os.path.join(parent, name)
    os.mkdir(path, 0o755)
    return Cgroup("v2", {"": path})
