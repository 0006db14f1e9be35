"""Sandboxed execution: a warm zygote process forks one child per solution run.

Trust boundaries. The grader (the process that holds expected outputs) starts one zygote per pool slot
as a fresh interpreter, so the zygote never inherits the grader's memory. The zygote never sees code,
inputs or outputs either: it only forks, limits, waits and cleans up. A run's payload (code and test
inputs) goes from the grader straight to the child through a pipe, and the child's outputs come straight
back through another, so a hostile child cannot find expected outputs, or other solutions' code or
outputs, anywhere in its own memory. The grader compares outputs as data.

Isolation (reported by ``Isolation``), as root: the zygote unshares a network namespace (no interfaces
up) and a mount namespace in which /tmp, /var/tmp, /dev/shm and /run/lock are fresh root-owned tmpfs
and the hidden paths (home directories, the project tree wherever it lives, the grader's cwd) are empty,
except the Python installation bound back in place (writable by root only). Each child runs as its own
unprivileged uid (so it cannot write outside its 0700 working directory, signal other runs, or read
their files), with no_new_privs (setuid programs stay unprivileged), in its own process group, under
rlimits (CPU, address space, file size, processes, open files). After each run the process group is
killed; if any descendant escaped it, everything running as the run's uid is killed; the working
directory is removed. Without root, only rlimits, the process group and the temporary directory apply.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import os
import resource
import select
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any

CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18
UID_BASE = 1_000_000
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
SETUP_FAILED = 70  # a child's exit status when it failed before running the solution
DEFAULT_HIDDEN = ("/root", "/home", "/work", "/mnt", "/srv", "/data", "/scratch")
WRITABLE_TMP = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
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
# What LeetCode's Python environment has imported for call-based code.
LEETCODE_PRELUDE = (
    "from typing import *\nfrom collections import *\nfrom heapq import *\nfrom bisect import *\n"
    "from itertools import *\nfrom functools import *\nfrom math import *\n"
    "import collections, heapq, bisect, itertools, functools, math, string, re, random, operator, sys\n"
)


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


# ---------------------------------------------------------------- isolation (zygote side) --------

_libc = ctypes.CDLL(None, use_errno=True)


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if s is None else s.encode() for s in (src, target, fstype, data)]
    _check(_libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {target}")


def _hide(path: str, expose: list[str]) -> None:
    """Cover ``path`` with an empty tmpfs, then bind the ``expose`` paths inside it back in place."""
    keep = [(p, os.open(p, os.O_PATH)) for p in expose if p.startswith(path.rstrip("/") + "/")]
    _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    for target, fd in keep:
        os.makedirs(target, mode=0o755, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
        os.close(fd)


def _python_paths() -> list[str]:
    """The interpreter and its site-packages: children may import the standard library and packages."""
    paths = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    paths |= {os.path.realpath(p) for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")}
    return sorted(paths)


def grader_trees(cwd: str) -> list[str]:
    """The project tree and the grader's working directory, wherever they live (a CI checkout, say).

    The system Python's own prefix is never among them: children need it to run at all.
    """
    system = os.path.realpath(sys.base_prefix)
    trees = {os.path.realpath(p) for p in (_PACKAGE_ROOT, cwd)}
    return sorted(t for t in trees if t != "/" and not (system + "/").startswith(t.rstrip("/") + "/"))


def setup_isolation(hidden: tuple[str, ...]) -> Isolation:
    """Enter fresh network and mount namespaces where allowed; record what worked."""
    iso = Isolation(uid_switch=os.geteuid() == 0)
    if not iso.uid_switch:
        iso.errors.append("not root: no uid switch or namespaces")
        return iso
    try:
        _check(_libc.unshare(CLONE_NEWNET), "unshare(CLONE_NEWNET)")
        iso.net_namespace = True
    except OSError as err:
        iso.errors.append(str(err))
    try:
        _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
        for path in WRITABLE_TMP:
            if os.path.isdir(path):
                _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=2g")
        expose = _python_paths()
        for path in hidden:
            if os.path.isdir(path) and not os.path.islink(path) and path != "/":
                _hide(path, expose)
                iso.hidden_paths.append(path)
        iso.mount_namespace = True
    except OSError as err:
        iso.errors.append(str(err))
    return iso


# ---------------------------------------------------------------- the child (hostile code) -------


def _set_limits(limits: dict[str, Any]) -> None:
    mem = limits["memory_mb"] << 20
    out = limits["output_mb"] << 20
    cpu = int(limits["total_timeout_s"]) + 1
    for res, value in (
        (resource.RLIMIT_AS, mem),
        (resource.RLIMIT_FSIZE, out),
        (resource.RLIMIT_NOFILE, limits["nofile"]),
        (resource.RLIMIT_NPROC, limits["nproc"]),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_CPU, cpu),
    ):
        resource.setrlimit(res, (value, value))


def _drop_privileges(uid: int) -> None:
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)


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

    def __init__(self, res_fd: int, out_fd: int, stdin_fds: dict[int, int], payload: dict[str, Any]) -> None:
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
        soft = int(usage.ru_utime + usage.ru_stime + self.p["timeout_s"]) + 1
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
            result = getattr(ns["Solution"](), self.p["fn_name"])(*args)
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
        start, inputs = self.p["start"], self.p["inputs"]
        try:
            code = compile(self.p["code"], "<solution>", "exec")
        except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
            return self.report(start, "compile_error", err=f"{type(exc).__name__}: {exc}")
        if self.p["fn_name"] is None:
            for i in range(start, len(inputs)):
                self.run_stdin(code, i)
            return None
        ns: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
        try:
            self.arm_cpu()
            exec(self.p["prelude"], ns)
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


def _child(job_fd: int, res_fd: int, out_fd: int, workdir: str, uid: int, limits: dict[str, Any]) -> None:
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
    job_fd: int, res_fd: int, out_fd: int, workdir: str, uid: int, limits: dict[str, Any]
) -> tuple[dict[str, Any], dict[int, int]]:
    """Read the payload, then confine this process: descriptors, directory, environment, rlimits, uid."""
    os.setpgid(0, 0)
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # die with the zygote
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")  # setuid bits inert
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    payload = json.loads(_read_all(job_fd))
    os.close(job_fd)
    payload["prelude"] = LEETCODE_PRELUDE
    os.dup2(out_fd, 1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    _close_except({0, 1, 2, res_fd, out_fd})
    stdin_fds = _stdin_memfds(payload)  # before RLIMIT_FSIZE, which caps output, not input
    os.chdir(workdir)
    os.environ.clear()
    os.environ.update({"HOME": workdir, "TMPDIR": workdir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    _set_limits({**limits, "nofile": limits["nofile"] + len(stdin_fds)})
    _drop_privileges(uid)
    return payload, stdin_fds


def _stdin_memfds(payload: dict[str, Any]) -> dict[int, int]:
    """One memfd per stdin test still to run; call-based code keeps /dev/null as its stdin."""
    if payload["fn_name"] is not None:
        return {}
    fds = {}
    for i in range(payload["start"], len(payload["inputs"])):
        fd = os.memfd_create(f"stdin-{i}")
        data = memoryview(payload["inputs"][i].encode())
        while data:
            data = data[os.write(fd, data) :]
        os.lseek(fd, 0, os.SEEK_SET)
        fds[i] = fd
    return fds


def _close_except(keep: set[int]) -> None:
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)


# ---------------------------------------------------------------- the zygote ---------------------


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

    def spawn(self, limits: dict[str, Any], fds: list[int]) -> dict[str, Any]:
        self.uid = self.next_uid() if os.geteuid() == 0 else os.geteuid()
        self.workdir = tempfile.mkdtemp(prefix="run-", dir=self.tmp_root)
        if os.geteuid() == 0:
            os.chown(self.workdir, self.uid, self.uid)
        os.chmod(self.workdir, 0o700)
        pid = os.fork()
        if pid == 0:
            self.sock.close()
            _child(fds[0], fds[1], fds[2], self.workdir, self.uid, limits)
        for fd in fds:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        self.pid = pid
        return {"pid": pid}

    def kill(self) -> None:
        if self.pid is not None:
            for target in (-self.pid, self.pid):
                with contextlib.suppress(OSError):
                    os.kill(target, signal.SIGKILL)

    def wait(self, grace: float) -> dict[str, Any]:
        if self.pid is None:
            return {"status": None}
        pidfd = os.pidfd_open(self.pid)
        ready, _, _ = select.select([pidfd], [], [], grace)
        os.close(pidfd)
        if not ready:
            self.kill()
        _, status = os.waitpid(self.pid, 0)
        self.kill()
        self.pid = None
        self.cleanup()
        return {"status": status}

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
            req = json.loads(msg)
            reply = self.spawn(req["limits"], fds) if req["op"] == "run" else self.wait(req["grace"])
            self.sock.sendall(json.dumps(reply).encode())
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
    import gc
    import importlib

    config = json.loads(config_json)
    sock = socket.socket(fileno=sock_fd)
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # orphans of a run come back to us to be reaped
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the grader; we exit when it closes the socket
    iso = setup_isolation(tuple(config["hidden"]))
    for name in PRELOAD:
        importlib.import_module(name)
    exec(compile(LEETCODE_PRELUDE, "<prelude>", "exec"), {})
    tmp_root = tempfile.mkdtemp(prefix="mcsweep-eval-")
    os.chmod(tmp_root, 0o711)  # children may enter their own 0700 dir, not list the others
    sock.sendall(json.dumps(asdict(iso)).encode())
    gc.collect()
    gc.freeze()
    try:
        _Zygote(sock, tmp_root).serve()
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)


# ---------------------------------------------------------------- grader side --------------------

_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from mcsweep.evaluator.sandbox import zygote_main; zygote_main(int(sys.argv[2]), sys.argv[3])"
)
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Slot:
    """Grader-side handle on one zygote: spawn a child with pipes; wait for it (killing it after a grace)."""

    def __init__(self, hidden: tuple[str, ...] = DEFAULT_HIDDEN, start_timeout: float = 60.0):
        import subprocess

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "LANG")}
        env.update({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"})
        config = json.dumps({"hidden": list(hidden) + grader_trees(os.getcwd())})
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
        self.isolation = Isolation(**self._recv())
        self.sock.settimeout(30.0)

    def _recv(self) -> dict[str, Any]:
        try:
            msg = self.sock.recv(1 << 16)
        except OSError as err:
            raise SandboxError(f"zygote did not answer: {err}") from err
        if not msg:
            raise SandboxError(f"zygote exited (status {self.proc.poll()})")
        return json.loads(msg)

    def _call(self, req: dict[str, Any], fds: list[int] | None = None) -> dict[str, Any]:
        try:
            socket.send_fds(self.sock, [json.dumps(req).encode()], fds or [])
        except OSError as err:
            raise SandboxError(f"zygote unreachable: {err}") from err
        return self._recv()

    def spawn(self, limits: Limits, fds: list[int]) -> int:
        return int(self._call({"op": "run", "limits": asdict(limits)}, fds)["pid"])

    def wait(self, grace: float = 1.0) -> int | None:
        return self._call({"op": "wait", "grace": grace})["status"]

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
