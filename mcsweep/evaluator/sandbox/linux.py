"""Linux isolation primitives (libc calls the standard library lacks): mounts, namespaces, prctl,
rlimits, dropping privileges, closing inherited descriptors."""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import re
import resource
import site
import sys
import sysconfig

from .limits import Isolation, Limits

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET = 0x00020000, 0x08000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_NOATIME = 1, 2, 4, 8, 32, 1024
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
WRITABLE_TMP = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
PSEUDO_TERMINALS = "/dev/pts"  # covered: a pty's writes stamp the host's /dev/ptmx (mtime), which any run reads
KERNEL_MOUNTS = ("/proc", "/sys")  # our own /proc; the cgroup files the zygote writes
JUDGE_PACKAGES = ("numpy",)  # what a judge offers besides the standard library (AtCoder: numpy)
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


def umount(target: str) -> None:
    check(libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")


def unshare(flags: int, what: str) -> None:
    check(libc.unshare(flags), what)


def _inside(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip("/") + "/")


def _cover(path: str, expose: list[str], data: str) -> None:
    """Cover ``path`` with an empty tmpfs, then bind the ``expose`` paths inside it back, read-only."""
    keep = [(p, os.open(p, os.O_PATH)) for p in expose if _inside(p, path) and p != path]
    mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOATIME, data)  # a listing leaves no trace
    for target, fd in keep:
        os.makedirs(target, mode=0o755, exist_ok=True)
        mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
        mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        os.close(fd)


def python_paths() -> list[str]:
    """Where the interpreter, its standard library and the packages a judge offers live (every
    site-packages, and each judge package's own directory and bundled libraries, wherever installed)."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, *sysconfig.get_paths().values(), *site.getsitepackages()}
    paths |= {p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")}
    for name in JUDGE_PACKAGES:
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            paths |= {location, location.rstrip("/") + ".libs"}
    return sorted({os.path.realpath(p) for p in paths if os.path.exists(p)})


def grader_trees(cwd: str) -> list[str]:
    """The project tree and the grader's working directory, wherever they live (a CI checkout, say).

    The system Python's own prefix is never among them: children need it to run at all.
    """
    system = os.path.realpath(sys.base_prefix)
    trees = {os.path.realpath(p) for p in (_PACKAGE_ROOT, cwd)}
    return sorted(t for t in trees if t != "/" and not _inside(system, t))


def setup_isolation(hidden: tuple[str, ...]) -> Isolation:
    """Enter fresh network and mount namespaces where allowed; record what worked and what hides what."""
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
        covered = _cover_all(hidden, iso)
        _read_only_host_mounts(covered, iso)
        iso.mount_namespace = True
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV, "hidepid=invisible")
        iso.proc_hidepid = True
    except OSError as err:
        iso.errors.append(str(err))
    return iso


def _cover_all(hidden: tuple[str, ...], iso: Isolation) -> list[str]:
    """Fresh tmpfs over the shared writable directories, the pseudo-terminals and the hidden trees; record,
    for each requested tree, the mount that hides it (itself, or a covered directory above it). Returns
    the covered paths."""
    expose = python_paths()
    covered: list[str] = []
    for path in (*WRITABLE_TMP, PSEUDO_TERMINALS):
        if os.path.isdir(path) and not os.path.islink(path):
            _cover(path, expose, "mode=0755,size=2g")
            covered.append(path)
    for path in hidden:
        real = os.path.realpath(path)
        above = next((c for c in covered if _inside(real, c)), None)
        if above is None and os.path.isdir(real) and real != "/":
            _cover(real, expose, "mode=0755,size=1m")
            covered.append(real)
            above = real
        if above is not None and not any(_inside(real, p) for p in expose):
            iso.hidden_paths.append(path)
            iso.hidden_by[path] = above
    return covered


def _mount_points() -> list[tuple[str, set[str]]]:
    """(mount point, per-mount options) of each mount of this namespace, from /proc/self/mountinfo."""
    points = []
    with open("/proc/self/mountinfo") as stream:
        for line in stream:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            points.append((point, set(fields[5].split(","))))
    return points


def _read_only_host_mounts(covered: list[str], iso: Isolation) -> None:
    """Remount every mount a run sees of the host's (the root filesystem above all) read-only, keeping its
    other flags: no write of a run's reaches them anyway (its uid), but a read of a file or a directory
    listing stamps its access time (relatime: once a day) on disk, where another run, of another grader
    too, reads it with ``stat``: a store of a bit per file that outlives everything (it carried a bit
    between two graders). A read-only mount writes no access times. Our own mounts (the covers and what
    they bind back, read-only already) and /proc and /sys stay as they are."""
    flag_of = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC}
    for point, options in _mount_points():
        if any(_inside(point, tree) for tree in (*covered, *KERNEL_MOUNTS)) or "ro" in options:
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for name, flag in flag_of.items():
            flags |= flag if name in options else 0
        try:
            mount(None, point, None, flags)
        except OSError as err:
            iso.warnings.append(f"{point} not read-only ({err}): a run's reads stamp access times others see")


def mount_run_root(path: str, limits: Limits) -> None:
    """The tmpfs that holds a zygote's run directories (one run at a time): as large as the memory limit
    and with at most ``max_files`` inodes; its pages are charged to the writing run's memory cgroup."""
    data = f"mode=0711,size={limits.memory_mb}m,nr_inodes={limits.max_files}"
    mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, data)


def resize_run_root(path: str, limits: Limits) -> None:
    data = f"mode=0711,size={limits.memory_mb}m,nr_inodes={limits.max_files}"
    mount(None, path, None, MS_REMOUNT | MS_NOSUID | MS_NODEV, data)


def remove_workdir(path: str) -> None:
    """Remove a run's directory: the usual empty one directly, anything else with ``rm -rf``, which
    handles any depth and (as root) any permissions."""
    try:
        os.rmdir(path)
    except FileNotFoundError:
        return
    except OSError:
        import subprocess  # loaded on first use: a zygote's forks stay small

        subprocess.run(["rm", "-rf", "--one-file-system", "--", path], check=False, stdin=subprocess.DEVNULL)
        if os.path.lexists(path):
            raise OSError(f"could not remove {path}") from None


def run_fds() -> tuple[list[int], list[int]]:
    """A run's descriptors: the child's three (payload pipe, read end; report pipe, write end; the
    stdout memfd) and the grader's three (payload, write end; report, read end; the same memfd)."""
    job_r, job_w = os.pipe()
    res_r, res_w = os.pipe()
    out = os.memfd_create("stdout")
    return [job_r, res_w, out], [job_w, res_r, os.dup(out)]


def close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def set_limits(limits: Limits, extra_files: int) -> None:
    mem = limits.memory_mb << 20
    out = limits.output_mb << 20
    cpu = int(limits.timeout_s) + 1
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
    """Close every descriptor but ``keep``: close_range(2) over the gaps, no listing of /proc/self/fd."""
    low = 0
    for fd in sorted(keep):
        if low < fd:  # os.closerange(n, n) would close n and above (close_range with last < first)
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
