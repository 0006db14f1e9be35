"""Grader side: one ``Slot`` per zygote, to spawn a child with pipes and wait for it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from typing import TypeVar

from .limits import DEFAULT_HIDDEN, Isolation, Limits, SandboxError
from .linux import _PACKAGE_ROOT, grader_trees
from .messages import Exited, Spawned, SpawnRequest, WaitRequest, ZygoteConfig, encode

R = TypeVar("R")
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from mcsweep.evaluator.sandbox.zygote import zygote_main; zygote_main(int(sys.argv[2]), sys.argv[3])"
)


class Slot:
    """Grader-side handle on one zygote: spawn a child with pipes; wait for it (killing it after a grace)."""

    def __init__(self, hidden: tuple[str, ...] = DEFAULT_HIDDEN, start_timeout: float = 60.0):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "LANG")}
        env.update({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"})
        config = encode(ZygoteConfig((*hidden, *grader_trees(os.getcwd())))).decode()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _BOOT, _PACKAGE_ROOT, str(theirs.fileno()), config],
            pass_fds=[theirs.fileno()],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            cwd="/",
        )
        theirs.close()
        self.sock = ours
        self.sock.settimeout(start_timeout)
        self.isolation = self._recv(Isolation)
        self.sock.settimeout(30.0)

    def _recv(self, reply: type[R]) -> R:
        try:
            msg = self.sock.recv(1 << 16)
        except OSError as err:
            raise SandboxError(f"zygote did not answer: {err}") from err
        if not msg:
            raise SandboxError(f"zygote exited (status {self.proc.poll()})")
        try:
            return reply(**json.loads(msg))
        except (ValueError, TypeError) as err:
            raise SandboxError(f"zygote answered out of protocol: {msg[:80]!r}") from err

    def _call(self, req: SpawnRequest | WaitRequest, reply: type[R], fds: list[int] | None = None) -> R:
        try:
            socket.send_fds(self.sock, [encode(req)], fds or [])
        except OSError as err:
            raise SandboxError(f"zygote unreachable: {err}") from err
        return self._recv(reply)

    def spawn(self, limits: Limits, fds: list[int]) -> int:
        return self._call(SpawnRequest(limits), Spawned, fds).pid

    def wait(self, grace: float = 1.0) -> int | None:
        return self._call(WaitRequest(grace), Exited).status

    def cpu_s(self) -> float:
        """CPU seconds of the zygote plus its reaped children (the runs), from /proc."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as stream:
                fields = stream.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            return 0.0
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        self.sock.close()
        try:
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
