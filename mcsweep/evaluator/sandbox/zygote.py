"""The zygote: a warm fork server, one per pool slot, that never sees code, inputs or outputs.

It sets up isolation once, then serves ``SpawnRequest`` (fork a child with the three descriptors the
grader passed) and ``WaitRequest`` (wait, kill, reap, sweep the run's uid, remove its directory).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import select
import shutil
import signal
import socket
import tempfile
import time

from . import linux
from .child import LEETCODE_PRELUDE, child_main
from .limits import UID_BASE, Limits
from .messages import Exited, Spawned, SpawnRequest, ZygoteConfig, decode_request, encode

PRELOAD = [
    "array",
    "bisect",
    "collections",
    "copy",
    "datetime",
    "decimal",
    "fractions",
    "functools",
    "heapq",
    "itertools",
    "json",
    "math",
    "operator",
    "random",
    "re",
    "statistics",
    "string",
    "sys",
    "typing",
    "io",
]


class _Zygote:
    """Fork server: one child at a time; forks, kills, reaps, sweeps the child's uid, removes its dir."""

    def __init__(self, sock: socket.socket, tmp_root: str) -> None:
        self.sock, self.tmp_root = sock, tmp_root
        self.counter = 0
        self.pid: int | None = None
        self.uid = 0
        self.workdir = ""

    def next_uid(self) -> int:
        self.counter += 1
        return UID_BASE + (os.getpid() % 4_000_000) * 1000 + self.counter % 1000

    def spawn(self, limits: Limits, fds: list[int]) -> Spawned:
        self.uid = self.next_uid() if os.geteuid() == 0 else os.geteuid()
        self.workdir = tempfile.mkdtemp(prefix="run-", dir=self.tmp_root)
        if os.geteuid() == 0:
            os.chown(self.workdir, self.uid, self.uid)
        os.chmod(self.workdir, 0o700)
        pid = os.fork()
        if pid == 0:
            self.sock.close()
            child_main(fds[0], fds[1], fds[2], self.workdir, self.uid, limits)
        for fd in fds:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        self.pid = pid
        return Spawned(pid)

    def kill(self) -> None:
        if self.pid is not None:
            for target in (-self.pid, self.pid):
                with contextlib.suppress(OSError):
                    os.kill(target, signal.SIGKILL)

    def wait(self, grace: float) -> Exited:
        if self.pid is None:
            return Exited(None)
        pidfd = os.pidfd_open(self.pid)
        ready, _, _ = select.select([pidfd], [], [], grace)
        os.close(pidfd)
        if not ready:
            self.kill()
        _, status = os.waitpid(self.pid, 0)
        self.kill()
        self.pid = None
        self.cleanup()
        return Exited(status)

    def cleanup(self) -> None:
        """Kill whatever the run left running, then remove its directory.

        We are the subreaper of every child, so a descendant that outlived the run is our child: when
        ``waitpid`` finds none, nothing escaped and no sweep (an extra fork) is needed.
        """
        while _children_alive():
            self.sweep()
            _reap_orphans()
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = ""

    def sweep(self) -> None:
        """As root: kill everything running as the run's uid. Otherwise: kill our direct children."""
        if os.geteuid() != 0:
            for pid in _child_pids():
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            return
        sweeper = os.fork()
        if sweeper == 0:
            try:
                os.setresgid(self.uid, self.uid, self.uid)
                os.setresuid(self.uid, self.uid, self.uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(sweeper, 0)

    def serve(self) -> None:
        while True:
            msg, fds, _, _ = socket.recv_fds(self.sock, 1 << 16, 4)
            if not msg:
                break
            req = decode_request(msg)
            reply = self.spawn(req.limits, fds) if isinstance(req, SpawnRequest) else self.wait(req.grace)
            self.sock.sendall(encode(reply))
        self.kill()
        if self.pid is not None:
            self.wait(0)


def _children_alive() -> bool:
    """Reap finished children; True if some child is still running."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def _child_pids() -> list[int]:
    pid = os.getpid()
    with open(f"/proc/{pid}/task/{pid}/children") as stream:
        return [int(p) for p in stream.read().split()]


def _reap_orphans(patience: float = 2.0) -> None:
    """Reap killed grandchildren that were reparented to us (we are their subreaper)."""
    end = time.monotonic() + patience
    while time.monotonic() < end:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.001)


def zygote_main(sock_fd: int, config_json: str) -> None:
    """Entry point of a zygote process (a fresh interpreter started by ``Slot``)."""
    config = ZygoteConfig.decode(config_json)
    sock = socket.socket(fileno=sock_fd)
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)  # orphans of a run come back to us to be reaped
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the grader; we exit when it closes the socket
    iso = linux.setup_isolation(config.hidden)
    for name in PRELOAD:
        importlib.import_module(name)
    exec(compile(LEETCODE_PRELUDE, "<prelude>", "exec"), {})
    tmp_root = tempfile.mkdtemp(prefix="mcsweep-eval-")
    os.chmod(tmp_root, 0o711)  # children may enter their own 0700 dir, not list the others
    sock.sendall(encode(iso))
    gc.collect()
    gc.freeze()
    try:
        _Zygote(sock, tmp_root).serve()
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)
