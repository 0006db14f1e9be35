"""The child: a forked, confined, unprivileged process that runs one solution's tests (hostile code).

It reads its ``Payload`` from a pipe, confines itself, then writes one ``Report`` line per test to
another pipe; everything the solution writes to fd 1 lands in a memfd the grader can read too.
"""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import sys
import threading
from typing import Any

from . import linux
from .limits import SETUP_FAILED, Limits
from .messages import Payload

# What LeetCode's Python environment has imported for call-based code.
LEETCODE_PRELUDE = (
    "from typing import *\nfrom collections import *\nfrom heapq import *\nfrom bisect import *\n"
    "from itertools import *\nfrom functools import *\nfrom math import *\n"
    "import collections, heapq, bisect, itertools, functools, math, string, re, random, operator, sys\n"
)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _tag(value: Any, depth: int = 0) -> Any:
    """Plain JSON data from a result, tagging tuples and sets; anything else is not data."""
    if depth > 200:
        raise ValueError("result nested too deeply")
    kind = type(value)
    if kind.__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value, kind = value.item(), type(value.item())
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is list:
        return [_tag(v, depth + 1) for v in value]
    if kind is tuple:
        return {"$tuple": [_tag(v, depth + 1) for v in value]}
    if kind in (set, frozenset):
        return {"$set": [_tag(v, depth + 1) for v in value]}
    if kind is dict and all(type(k) is str for k in value):
        return {k: _tag(v, depth + 1) for k, v in value.items()}
    raise TypeError(f"result of type {kind.__name__} is not JSON data")


def _join_threads() -> None:
    """Wait for non-daemon threads, as the interpreter does at exit (solutions run main() in a thread)."""
    current = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not current and not thread.daemon:
            thread.join()


class _Child:
    """Runs a solution's tests in this (forked, limited, unprivileged) process and reports each."""

    def __init__(self, res_fd: int, out_fd: int, stdin_fds: dict[int, int], payload: Payload) -> None:
        self.res_fd, self.out_fd, self.stdin_fds, self.p = res_fd, out_fd, stdin_fds, payload
        # Bound before the solution runs, so monkeypatching os/json/resource cannot reach them.
        self.write, self.dumps = os.write, json.dumps
        self.setrlimit, self.getrusage = resource.setrlimit, resource.getrusage

    def report(self, i: int, status: str, out: str = "", err: str = "") -> None:
        data = (self.dumps({"i": i, "status": status, "out": out, "err": err[:500]}) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[self.write(self.res_fd, view) :]

    def arm_cpu(self) -> None:
        """Soft CPU limit = CPU used so far + this test's limit (SIGXCPU ends the run)."""
        usage = self.getrusage(resource.RUSAGE_SELF)
        soft = int(usage.ru_utime + usage.ru_stime + self.p.timeout_s) + 1
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        self.setrlimit(resource.RLIMIT_CPU, (min(soft, hard), hard))

    def fresh_stdio(self, i: int) -> io.TextIOWrapper:
        """Test ``i``'s input as fd 0 (its own memfd), an empty fd 1, and new sys.stdin/sys.stdout."""
        fd = self.stdin_fds.pop(i, None)
        if fd is not None:
            os.dup2(fd, 0)
            os.close(fd)
        os.ftruncate(self.out_fd, 0)
        os.lseek(self.out_fd, 0, os.SEEK_SET)
        os.dup2(self.out_fd, 1)
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "rb", closefd=False)), encoding="utf-8")
        out = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "wb", closefd=False)), encoding="utf-8")
        sys.stdout = sys.__stdout__ = out
        return out

    def captured(self) -> str:
        size = os.fstat(self.out_fd).st_size
        return os.pread(self.out_fd, size, 0).decode("utf-8", errors="replace")

    def run_stdin(self, code: Any, i: int) -> None:
        out = self.fresh_stdio(i)
        self.arm_cpu()
        status, err = "ok", ""
        try:
            exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
            _join_threads()
        except SystemExit as exc:
            if exc.code not in (None, 0):
                status, err = "runtime_error", f"exit status {exc.code!r}"
        except MemoryError:
            status, err = "memory_limit", "MemoryError"
        except BaseException as exc:  # the solution's failure, whatever it raised
            status, err = "runtime_error", f"{type(exc).__name__}: {exc}"
        try:
            out.flush()
        except (OSError, ValueError) as exc:
            status, err = "runtime_error", f"output lost: {exc}"
        self.report(i, status, self.captured(), err)

    def run_call(self, ns: dict[str, Any], i: int, text: str) -> None:
        self.fresh_stdio(i)
        self.arm_cpu()
        try:
            args = [json.loads(line) for line in text.split("\n") if line.strip()]
            result = getattr(ns["Solution"](), self.p.fn_name)(*args)  # type: ignore[arg-type]
        except MemoryError:
            return self.report(i, "memory_limit", err="MemoryError")
        except BaseException as exc:  # the solution's failure, whatever it raised
            return self.report(i, "runtime_error", err=f"{type(exc).__name__}: {exc}")
        try:
            tagged = self.dumps(_tag(result))
        except Exception as exc:  # not data, whatever the object does when inspected
            return self.report(i, "bad_output", err=f"{type(exc).__name__}: {exc}")
        return self.report(i, "ok", tagged)

    def main(self) -> None:
        start, inputs = self.p.start, self.p.inputs
        try:
            code = compile(self.p.code, "<solution>", "exec")
        except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
            return self.report(start, "compile_error", err=f"{type(exc).__name__}: {exc}")
        if self.p.fn_name is None:
            for i in range(start, len(inputs)):
                self.run_stdin(code, i)
            return None
        ns: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
        try:
            self.arm_cpu()
            exec(LEETCODE_PRELUDE, ns)
            exec(code, ns)
            if "Solution" not in ns:
                raise NameError("no class Solution")
        except BaseException as exc:  # every test fails the same way
            status = "memory_limit" if isinstance(exc, MemoryError) else "runtime_error"
            for i in range(start, len(inputs)):
                self.report(i, status, err=f"{type(exc).__name__}: {exc}")
            return None
        for i in range(start, len(inputs)):
            self.run_call(ns, i, inputs[i])
        return None


def child_main(job_fd: int, res_fd: int, out_fd: int, workdir: str, uid: int, limits: Limits) -> None:
    """Body of the forked child; never returns. Exit status SETUP_FAILED means our own setup failed;
    1 means our reporting broke after the solution ran (it tampered with the process)."""
    try:
        payload, stdin_fds = _prepare(job_fd, res_fd, out_fd, workdir, uid, limits)
    except BaseException:
        os._exit(SETUP_FAILED)
    code = 1
    try:
        _Child(res_fd, out_fd, stdin_fds, payload).main()
        code = 0
    finally:
        os._exit(code)


def _prepare(
    job_fd: int, res_fd: int, out_fd: int, workdir: str, uid: int, limits: Limits
) -> tuple[Payload, dict[int, int]]:
    """Read the payload, then confine this process: descriptors, directory, environment, rlimits, uid."""
    os.setpgid(0, 0)
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # die with the zygote
    linux.check(linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1), "prctl(PR_SET_NO_NEW_PRIVS)")  # setuid bits inert
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    payload = Payload.decode(_read_all(job_fd))
    os.close(job_fd)
    os.dup2(out_fd, 1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    linux.close_except({0, 1, 2, res_fd, out_fd})
    stdin_fds = _stdin_memfds(payload)  # before RLIMIT_FSIZE, which caps output, not input
    os.chdir(workdir)
    os.environ.clear()
    os.environ.update({"HOME": workdir, "TMPDIR": workdir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    linux.set_limits(limits, len(stdin_fds))
    linux.drop_privileges(uid)
    return payload, stdin_fds


def _stdin_memfds(payload: Payload) -> dict[int, int]:
    """One memfd per stdin test still to run; call-based code keeps /dev/null as its stdin."""
    if payload.fn_name is not None:
        return {}
    fds = {}
    for i in range(payload.start, len(payload.inputs)):
        fd = os.memfd_create(f"stdin-{i}")
        data = memoryview(payload.inputs[i].encode())
        while data:
            data = data[os.write(fd, data) :]
        os.lseek(fd, 0, os.SEEK_SET)
        fds[i] = fd
    return fds
