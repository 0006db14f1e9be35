"""Linux isolation primitives (libc calls the standard library lacks): mounts, namespaces, prctl,
rlimits, dropping privileges, closing inherited descriptors."""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import sys

from .limits import Isolation, Limits

CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
WRITABLE_TMP = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

libc = ctypes.CDLL(None, use_errno=True)


def check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def prctl(option: int, arg: int) -> int:
    return libc.prctl(option, arg, 0, 0, 0)


def mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if s is None else s.encode() for s in (src, target, fstype, data)]
    check(libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {target}")


def unshare(flags: int, what: str) -> None:
    check(libc.unshare(flags), what)


def _hide(path: str, expose: list[str]) -> None:
    """Cover ``path`` with an empty tmpfs, then bind the ``expose`` paths inside it back in place."""
    keep = [(p, os.open(p, os.O_PATH)) for p in expose if p.startswith(path.rstrip("/") + "/")]
    mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    for target, fd in keep:
        os.makedirs(target, mode=0o755, exist_ok=True)
        mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
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
        unshare(CLONE_NEWNET, "unshare(CLONE_NEWNET)")
        iso.net_namespace = True
    except OSError as err:
        iso.errors.append(str(err))
    try:
        unshare(CLONE_NEWNS, "unshare(CLONE_NEWNS)")
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        for path in WRITABLE_TMP:
            if os.path.isdir(path):
                mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=2g")
        expose = _python_paths()
        for path in hidden:
            if os.path.isdir(path) and not os.path.islink(path) and path != "/":
                _hide(path, expose)
                iso.hidden_paths.append(path)
        iso.mount_namespace = True
    except OSError as err:
        iso.errors.append(str(err))
    return iso


def set_limits(limits: Limits, extra_files: int) -> None:
    mem = limits.memory_mb << 20
    out = limits.output_mb << 20
    cpu = int(limits.total_timeout_s) + 1
    for res, value in (
        (resource.RLIMIT_AS, mem),
        (resource.RLIMIT_FSIZE, out),
        (resource.RLIMIT_NOFILE, limits.nofile + extra_files),
        (resource.RLIMIT_NPROC, limits.nproc),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_CPU, cpu),
    ):
        resource.setrlimit(res, (value, value))


def drop_privileges(uid: int) -> None:
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)


def close_except(keep: set[int]) -> None:
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)
