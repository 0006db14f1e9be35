"""The child: a forked, confined, unprivileged process that runs ONE test of a solution (hostile code).

Each test gets a fresh child, so nothing a solution starts (threads, helper processes, files, IPC
objects) survives into another test, no other test's input is anywhere within its reach, and its CPU and
wall time are its own. It reads its ``Payload`` from a pipe, confines itself, compiles the solution and
says so (a first ``Report`` line), runs the test, ends it as the interpreter would (non-daemon threads
joined, ``atexit`` handlers run, files flushed), then writes the outcome (a second line); everything the
solution writes to fd 1 lands in a memfd that the grader reads.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import linux, seccomp
from .limits import SETUP_FAILED, Limits
from .messages import Payload

# What LeetCode's Python environment has imported for call-based code.
LEETCODE_PRELUDE = (
    "from typing import *\nfrom collections import *\nfrom heapq import *\nfrom bisect import *\n"
    "from itertools import *\nfrom functools import *\nfrom math import *\n"
    "import collections, heapq, bisect, itertools, functools, math, string, re, random, operator, sys\n"
)
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full")
_PRELUDE: dict[str, Any] = {}


def load_prelude() -> None:
    """Run the prelude once (in the zygote, before it forks): each call-based test copies its names
    instead of running its imports again."""
    ns: dict[str, Any] = {}
    exec(compile(LEETCODE_PRELUDE, "<prelude>", "exec"), ns)
    ns.pop("__builtins__", None)
    _PRELUDE.update(ns)


@dataclass(frozen=True)
class ChildSetup:
    """What the zygote hands a child besides its descriptors: where and as whom it runs, under what."""

    workdir: str
    uid: int
    limits: Limits
    seccomp: seccomp.Program | None
    ipc_namespace: bool
    hide_sys: bool
    landlock: bool


def exit_status(code: object) -> int:
    """The status CPython exits with for ``SystemExit(code)``: None is 0; an int (a bool, an int subclass)
    is its value as a C long, -1 when it does not fit, modulo 256; anything else is printed, status 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        value = int.__int__(code)
        return (value if _LONG_MIN <= value <= _LONG_MAX else -1) & 0xFF
    return 1


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def tag(value: Any, depth: int = 0) -> Any:
    """Plain JSON data from a result with every container but the list tagged, so that no returned value
    can pass for another type: {"$tuple": [...]}, {"$set": [...]}, {"$dict": [[key, value], ...]}."""
    if depth > 200:
        raise ValueError("result nested too deeply")
    kind = type(value)
    if kind.__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value, kind = value.item(), type(value.item())
    if value is None or kind in (bool, int, float, str):
        return value
    if kind is list:
        return [tag(v, depth + 1) for v in value]
    if kind is tuple:
        return {"$tuple": [tag(v, depth + 1) for v in value]}
    if kind in (set, frozenset):
        return {"$set": [tag(v, depth + 1) for v in value]}
    if kind is dict and all(type(k) is str for k in value):
        return {"$dict": [[k, tag(v, depth + 1)] for k, v in value.items()]}
    raise TypeError(f"result of type {kind.__name__} is not JSON data")


def _join_threads() -> None:
    """Wait for threads as the interpreter does at exit: ``threading._shutdown`` runs the thread exit hooks
    (a ``ThreadPoolExecutor`` finishes its queued work there) and joins every non-daemon thread (solutions
    run main() in a thread). ``threading`` is not in the zygote's image (its at-fork handler costs each fork
    ~100 page faults): a solution that started threads has imported it."""
    threading = sys.modules.get("threading")
    if threading is not None:
        threading._shutdown()


def _outcome(run: Callable[[], object]) -> tuple[str, str, int]:
    """How ``run()`` ended, as a status, an error text and the exit status the interpreter would give."""
    try:
        run()
    except SystemExit as exc:
        code = exit_status(exc.code)
        return ("runtime_error", f"exit status {code}", code) if code else ("ok", "", 0)
    except MemoryError:
        return "memory_limit", "MemoryError", 1
    except BaseException as exc:  # the solution's failure, whatever it raised
        return "runtime_error", f"{type(exc).__name__}: {exc}", 1
    return "ok", "", 0


class _Child:
    """Runs one test in this (forked, limited, unprivileged) process and reports it."""

    def __init__(self, res_fd: int, out_fd: int, payload: Payload) -> None:
        self.res_fd, self.out_fd, self.p = res_fd, out_fd, payload
        # Bound before the solution runs, so monkeypatching os/json cannot reach them.
        self.write, self.dumps = os.write, json.dumps

    def report(self, status: str, err: str = "", result: str = "") -> None:
        line = {"i": self.p.index, "status": status, "err": err[:500], "result": result}
        view = memoryview((self.dumps(line) + "\n").encode())
        while view:
            view = view[self.write(self.res_fd, view) :]

    def stdio(self) -> io.TextIOWrapper:
        """The test's input on fd 0 (already there), fd 1 into the output memfd, fresh sys.stdin/stdout."""
        os.dup2(self.out_fd, 1)
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "rb", closefd=False)), encoding="utf-8")
        out = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "wb", closefd=False)), encoding="utf-8")
        sys.stdout = sys.__stdout__ = out
        return out

    def run_stdin(self, code: Any) -> int:
        out = self.stdio()
        ns = {"__name__": "__main__", "__builtins__": __builtins__}
        status, err, exit_code = _outcome(lambda: exec(code, ns))
        joined = _outcome(_join_threads)  # however the program ended, as at interpreter exit
        if status == "ok":
            status, err, exit_code = joined
        lost = _finalize(ns, out)
        if lost and status == "ok":
            status, err, exit_code = "runtime_error", f"output lost: {lost}", 1
        self.report(status, err)
        return exit_code

    def run_call(self, code: Any) -> int:
        self.stdio()
        ns: dict[str, Any] = {**_PRELUDE, "__name__": "__main__", "__builtins__": __builtins__}
        try:
            if not _PRELUDE:  # not loaded in a zygote
                exec(LEETCODE_PRELUDE, ns)
            exec(code, ns)
            if "Solution" not in ns:
                raise NameError("no class Solution")
            args = [json.loads(line) for line in self.p.input.split("\n") if line.strip()]
            result = getattr(ns["Solution"](), self.p.fn_name or "")(*args)
        except MemoryError:
            self.report("memory_limit", "MemoryError")
            return 1
        except BaseException as exc:  # the solution's failure, whatever it raised
            self.report("runtime_error", f"{type(exc).__name__}: {exc}")
            return 1
        try:
            tagged = self.dumps(tag(result))
        except Exception as exc:  # not data, whatever the object does when inspected
            self.report("bad_output", f"{type(exc).__name__}: {exc}")
            return 1
        self.report("ok", result=tagged)
        return 0

    def main(self) -> int:
        try:
            code = compile(self.p.code, "<solution>", "exec")
        except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
            self.report("compile_error", f"{type(exc).__name__}: {exc}")
            return 1
        # Before any of the solution's code runs: the one line the solution cannot have written. What
        # it writes later the grader believes only as far as the exit status bears it out.
        self.report("compiled")
        return self.run_call(code) if self.p.fn_name is not None else self.run_stdin(code)


def _finalize(ns: dict[str, Any], out: io.TextIOWrapper) -> str:
    """End the run as the interpreter ends a program: exit handlers, then the standard streams flushed,
    then the module's globals dropped (open files flush as they are freed, finalizers run; no full garbage
    collection, which would cost a scan of every object per test), then the streams flushed again.
    Returns why output was lost, if it was."""
    with contextlib.suppress(BaseException):  # CPython reports an exit handler's error and carries on
        atexit._run_exitfuncs()
    lost = ""
    for stream in (sys.stdout, sys.stderr, out):
        try:
            if stream is out and out.closed:  # closing flushed it, as CPython skips a closed stdout at exit
                continue
            stream.flush()
        except BaseException as exc:  # a broken or replaced stream
            if stream is out:
                lost = f"{type(exc).__name__}: {exc}"
    with contextlib.suppress(BaseException):
        ns.clear()
    for stream in (sys.stdout, out):  # what finalizers printed, as CPython flushes again at the end
        with contextlib.suppress(BaseException):
            stream.flush()
    return lost


def child_main(job_fd: int, res_fd: int, out_fd: int, setup: ChildSetup) -> None:
    """Body of the forked child; never returns. Exit status SETUP_FAILED means our own setup failed; else
    the status the interpreter would exit with (1 too when our reporting broke: the solution tampered)."""
    try:
        payload = _prepare(job_fd, res_fd, out_fd, setup)
    except BaseException:
        os._exit(SETUP_FAILED)
    code = 1
    try:
        code = _Child(res_fd, out_fd, payload).main()
    finally:
        os._exit(code)


def _prepare(job_fd: int, res_fd: int, out_fd: int, setup: ChildSetup) -> Payload:
    """Read the payload, then confine this process: cgroup, IPC and mount namespaces, descriptors,
    directory, environment, rlimits, uid, syscall filter."""
    os.setpgid(0, 0)
    _oom_first()
    if setup.ipc_namespace:  # System V objects and POSIX message queues of this run only
        linux.unshare(linux.CLONE_NEWIPC, "unshare(CLONE_NEWIPC)")
    if setup.hide_sys:
        linux.hide_sys()
    atexit._clear()  # exit handlers the zygote's modules registered are not the solution's
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # die with the zygote
    linux.check(linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1), "prctl(PR_SET_NO_NEW_PRIVS)")  # setuid bits inert
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    payload = Payload.decode(_read_all(job_fd))
    os.close(job_fd)
    stdin = _memfd(payload.input if payload.fn_name is None else "")  # before RLIMIT_FSIZE (caps output)
    os.dup2(stdin, 0)
    os.dup2(out_fd, 1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    linux.close_except({0, 1, 2, res_fd, out_fd})
    os.chdir(setup.workdir)
    if setup.landlock:  # after our own oom_score_adj write: writes beneath the run's directory and /dev only
        linux.write_only_beneath([setup.workdir, *(p for p in WRITABLE_DEVICES if os.path.exists(p))])
    os.environ.clear()
    os.environ.update({"HOME": setup.workdir, "TMPDIR": setup.workdir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    linux.set_limits(setup.limits, 0)
    linux.drop_privileges(setup.uid)
    if setup.seccomp is not None:
        setup.seccomp.load()
    return payload


def _oom_first() -> None:
    """Be the OOM killer's first pick: in the zygote's cgroup, before the zygote; without one, on the host,
    before the trainer and the grader. A zygote's child is not dumpable, so its /proc files are root's:
    without a uid switch the write failed (EACCES) and runs kept the grader's score, and the host's OOM
    killer took the trainer. Dumpable for the write alone (no run is alive beside this child); a runs'
    root without /proc (a container that covers some of the host's) has no such file."""
    linux.prctl(linux.PR_SET_DUMPABLE, 1)
    try:
        adj = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        try:
            os.write(adj, b"1000")
        finally:
            os.close(adj)
    except FileNotFoundError:
        pass
    finally:
        linux.prctl(linux.PR_SET_DUMPABLE, 0)


def _memfd(text: str) -> int:
    fd = os.memfd_create("stdin")
    data = memoryview(text.encode())
    while data:
        data = data[os.write(fd, data) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
