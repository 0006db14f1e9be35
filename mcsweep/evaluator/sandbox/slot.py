"""Grader side: one ``Slot`` per zygote, to spawn a child with pipes and wait for it."""

from __future__ import annotations

import array
import contextlib
import functools
import json
import os
import signal
import socket
import subprocess
import sys
import time
import weakref
from dataclasses import dataclass
from typing import TypeVar

from . import seccomp
from .limits import DEFAULT_HIDDEN, Isolation, Limits, SandboxError
from .linux import _PACKAGE_ROOT, grader_trees
from .messages import Exited, KillRequest, Spawned, SpawnRequest, ZygoteConfig, encode

R = TypeVar("R")
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from mcsweep.evaluator.sandbox.zygote import zygote_main; zygote_main(int(sys.argv[2]))"
)


@dataclass(frozen=True)
class RunFds:
    """The grader's ends of one run: the payload pipe (write), the report socket (read), the stdout memfd."""

    job_w: int
    res_r: int
    out_fd: int

    def close(self) -> None:
        _close([self.job_w, self.res_r, self.out_fd])


def _close(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _remove_cgroup(path: str, patience: float = 5.0) -> None:
    """Remove a dead zygote's cgroup, killing what is left in it (a pre-forked child that its death
    signal has not ended yet); gives up silently after ``patience`` seconds."""
    end = time.monotonic() + patience
    while time.monotonic() < end:
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            with contextlib.suppress(OSError), open(os.path.join(path, "cgroup.procs")) as stream:
                for pid in map(int, stream.read().split()):
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)


def _cpu_s(pid: int) -> float:
    """CPU seconds of ``pid`` and its reaped children (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stream:
            fields = stream.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _recv_fds(sock: socket.socket, size: int, most: int) -> tuple[bytes, list[int]]:
    """One message and the descriptors attached to it, each close-on-exec: inherited, a program the grader's
    process started meanwhile (``os.system``, a spawn that keeps descriptors) held the pending run's payload
    pipe open, and the run's child, reading its payload to the end, waited for that program. (The standard
    library's ``socket.recv_fds`` drops the flags it is given.)"""
    msg, ancillary, _, _ = sock.recvmsg(size, socket.CMSG_LEN(most * 4), socket.MSG_CMSG_CLOEXEC)
    fds = array.array("i")
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    return msg, list(fds)


@functools.cache
def _syscall_filter() -> tuple[bytes, list[str], str]:
    return seccomp.build_filter()


_SLOTS: weakref.WeakSet[Slot] = weakref.WeakSet()


def _drop_in_forked_child() -> None:
    """In a process forked from the grader's (``multiprocessing``, a library's helper pool): close every
    slot's zygote socket and pending run. Kept, they held the pending run's payload pipe open (its child,
    reading its payload to the end, waited, and an honest solution was a time_limit) and the zygote's
    socket (it saw no end of its grader). A forked copy of an evaluator grades nothing."""
    for slot in list(_SLOTS):
        if slot.pending is not None:
            slot.pending[1].close()
            slot.pending = None
        slot.sock.close()


os.register_at_fork(after_in_child=_drop_in_forked_child)


class Slot:
    """Grader-side handle on one zygote: take a child with pipes; learn its end (killing it after a grace)."""

    def __init__(self, hidden: tuple[str, ...] = DEFAULT_HIDDEN, start_timeout: float = 60.0, cpu: int = -1):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "LANG")}
        env.update({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"})
        bpf, denied, why = _syscall_filter()
        config = ZygoteConfig((*hidden, *grader_trees(os.getcwd())), bpf.hex(), tuple(denied), why, cpu)
        self.cpu = cpu
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _BOOT, _PACKAGE_ROOT, str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            cwd="/",
            start_new_session=True,  # no controlling terminal: /dev/tty (TIOCSTI, ^C to the grader) is gone
        )
        theirs.close()
        self.pending: tuple[int, RunFds] | None = None
        self.killed = False  # whether the last run `exited` waited for had to be killed
        self.limits = Limits()
        self.sock = ours
        _SLOTS.add(self)
        try:
            self._send(config)
            obj, _ = self._recv_fds(start_timeout)
            self.isolation = self._parse(obj, Isolation)
        except BaseException:  # a zygote that did not start leaves no process or socket behind
            ours.close()
            self.proc.kill()
            self.proc.wait()
            raise

    def _recv_fds(self, timeout: float = 30.0) -> tuple[dict, list[int]]:
        """One message from the zygote and the descriptors attached to it (TimeoutError after ``timeout``)."""
        self.sock.settimeout(timeout)
        try:
            msg, fds = _recv_fds(self.sock, 1 << 16, 3)
        except TimeoutError:
            raise
        except OSError as err:
            raise SandboxError(f"zygote did not answer: {err}") from err
        finally:
            self.sock.settimeout(30.0)
        if not msg:
            _close(fds)
            raise SandboxError(f"zygote exited (status {self.proc.poll()})")
        try:
            obj = json.loads(msg)
        except ValueError as err:
            _close(fds)
            raise SandboxError(f"zygote answered out of protocol: {msg[:80]!r}") from err
        if not isinstance(obj, dict):
            _close(fds)
            raise SandboxError(f"zygote answered out of protocol: {msg[:80]!r}")
        return obj, fds

    def _parse(self, obj: dict, reply: type[R]) -> R:
        try:
            return reply(**obj)
        except TypeError as err:  # a zygote starts from the code on disk, the grader runs what it imported
            raise SandboxError(
                f"zygote answered out of protocol ({err}): {obj!r:.80}; if mcsweep changed on disk since this "
                "process started, its zygotes run the new code: start the process again"
            ) from err

    def _send(self, message: ZygoteConfig | SpawnRequest | KillRequest, fds: list[int] | None = None) -> None:
        try:
            socket.send_fds(self.sock, [encode(message)], fds or [])
        except OSError as err:
            raise SandboxError(f"zygote unreachable: {err}") from err

    def take_run(self, limits: Limits) -> tuple[int, RunFds]:
        """Run number and grader's ends of a child waiting for its payload: the pre-forked one, or (for
        the first test, new limits, or after a failed pre-fork) one started now."""
        if self.pending is not None and limits != self.limits:
            self.pending[1].close()  # its child reads no payload and ends; the zygote kills it anyway
            self.pending = None
        if self.pending is None:
            self.limits = limits
            self._send(SpawnRequest(limits))
            while True:  # ends of runs we gave up (each with its own next run's descriptors) come first
                obj, fds = self._recv_fds()
                if "status" not in obj:
                    break
                _close(fds)
            spawned = self._parse(obj, Spawned)
            if spawned.error or len(fds) != 3:
                _close(fds)
                raise SandboxError(f"zygote could not start a run: {spawned.error}")
            self.pending = (spawned.run, RunFds(*fds))
        run, self.pending = self.pending, None
        return run

    def exited(self, run: int, grace: float) -> Exited:
        """The run's end as the zygote tells it unasked once the child exits (with the next run, pre-forked);
        after ``grace`` s, ask it to kill the run's tree first (``Exited.error`` names a failure to;
        ``killed`` then says the run did not end by itself)."""
        self.killed = False
        try:
            obj, fds = self._recv_fds(max(grace, 1e-6))
        except TimeoutError:
            self.killed = True
            self._send(KillRequest(run))
            obj, fds = self._recv_fds()
        exited = self._parse(obj, Exited)
        if exited.next and len(fds) == 3:
            self.pending = (exited.next, RunFds(*fds))
        else:
            _close(fds)
        if exited.run != run:
            raise SandboxError(f"zygote told the end of run {exited.run} while run {run} was going")
        return exited

    def cpu_s(self) -> float:
        """CPU seconds of the zygote plus its reaped children (the runs), from /proc. As init of a PID
        namespace the zygote proper is the one child of the process started here."""
        pids = [self.proc.pid]
        if self.isolation.pid_namespace:
            with contextlib.suppress(OSError), open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as stream:
                pids += [int(p) for p in stream.read().split()]
        return sum(_cpu_s(pid) for pid in pids)

    def close(self) -> None:
        """Stop the zygote (it kills and cleans up its current run); remove its cgroup if it could not."""
        self.sock.close()
        if self.pending is not None:
            self.pending[1].close()
            self.pending = None
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for path in self.isolation.cgroup_paths:
            _remove_cgroup(path)
