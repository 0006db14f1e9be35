"""Linux isolation primitives (libc calls the standard library lacks): mounts, namespaces, prctl,
rlimits, dropping privileges, closing inherited descriptors."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import importlib.util
import math
import os
import re
import resource
import site
import socket
import sys
import sysconfig

from .limits import UID_BASE, UID_BLOCKS, Isolation, Limits, SandboxError

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER = 0x00020000, 0x08000000, 0x10000000
CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP = 0x20000000, 0x40000000, 0x02000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_NOATIME = 1, 2, 4, 8, 32, 1024
MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 4096, 8192, 16384, 1 << 18
MS_NODIRATIME, MS_RELATIME = 2048, 1 << 21
MNT_DETACH = 2
MOUNT_FLAGS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
}
"""Per-mount flags as /proc/self/mountinfo names them. A remount or a new proc keeps the host's: in a user
namespace they are locked, and changing one is EPERM."""
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 4, 36, 38
CAP_VERSION_3 = 0x20080522  # capset(2)'s header: two 32-bit words per set
SYSTEM_DIRS = frozenset({"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "sys"})
"""The top-level entries of the host's a run's root shows: its programs, libraries and configuration,
and /sys (the zygote's cgroup). With them only the Python installation, a fresh /proc, /dev and /tmp.
Nothing else (/opt, /var, /run, /srv, a cluster's /lustre or /scratch, files at the top: wherever
datasets, checkpoints, expected outputs or service sockets live) is there: a run sees what it needs,
not all that nobody thought to hide."""
BUILT_DIRS = ("/proc", "/dev", "/tmp")  # the new root's own
STAGE = "/tmp"  # where the new root is assembled (a tmpfs over it, in this namespace only)
OLD_ROOT = "/.old-root"
WRITABLE_TMP = ("/tmp", "/dev/shm")  # the root's own tmpfs, not the host's: /tmp is sealed once set up
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}  # pivot_root(2)'s number: the C library has no wrapper
DEVICES = ("null", "zero", "full", "random", "urandom")
"""The devices a program reads or writes as data. The rest of the host's /dev (a GPU, the kernel log, a
syslog socket, terminals, whose writes stamp the host's /dev/ptmx) is not there."""
DEV_LINKS = {
    "fd": "/proc/self/fd",
    "stdin": "/proc/self/fd/0",
    "stdout": "/proc/self/fd/1",
    "stderr": "/proc/self/fd/2",
}
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


def _bind(fd: int, target: str, flags: int, sealed: int | None = None) -> None:
    """Bind what ``fd`` (an ``O_PATH`` descriptor, opened while the path was in sight) names at ``target``,
    with ``flags`` (``MS_REC``: the mounts below it too); with ``sealed``, remount it read-only with those."""
    mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | flags)
    if sealed is not None:
        mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | sealed)


def _inside(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip("/") + "/")


def _cover(path: str, expose: list[str], data: str) -> None:
    """Cover ``path`` with an empty read-only tmpfs (runs that share the zygote's uid own it), then bind the
    ``expose`` paths inside it back, read-only."""
    keep = [(p, os.open(p, os.O_PATH)) for p in expose if _inside(p, path) and p != path]
    mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOATIME, data)  # a listing leaves no trace
    for target, fd in keep:
        os.makedirs(target, mode=0o755, exist_ok=True)
        _bind(fd, target, MS_REC, sealed=MS_NOSUID | MS_NODEV)
        os.close(fd)
    mount(None, path, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOATIME, data)


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


def can_switch_uid() -> bool:
    """Whether runs can each get a uid of their own: root, in a user namespace that maps their uids."""
    return os.geteuid() == 0 and _run_uids_mapped()


def enter_user_namespace() -> None:
    """Without root: become the owner of a user namespace that maps this process's uid and gid alone (to
    themselves), so that the namespaces and mounts of ``setup_isolation`` need no privilege on the host."""
    uid, gid = os.geteuid(), os.getegid()
    unshare(CLONE_NEWUSER, "unshare(CLONE_NEWUSER)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as stream:
            stream.write(text)


def setup_isolation(hidden: tuple[str, ...], user_namespace: bool = False) -> Isolation:
    """Enter fresh network and mount namespaces where allowed (as root, or as the init of a user and PID
    namespace of our own: ``user_namespace``); record what worked and what hides what."""
    iso = Isolation(uid_switch=can_switch_uid(), user_namespace=user_namespace)
    if not (iso.uid_switch or iso.user_namespace):
        return iso
    try:
        unshare(CLONE_NEWNET, "unshare(CLONE_NEWNET)")
        iso.net_namespace = True
    except OSError as err:
        iso.errors.append(str(err))
    try:
        unshare(CLONE_NEWNS, "unshare(CLONE_NEWNS)")
        mount(None, "/", None, MS_REC | MS_PRIVATE)
    except OSError as err:  # nothing changed yet: the host in view, said loudly (Evaluator logs an error)
        iso.errors.append(str(err))
        return iso
    os.umask(0o022)  # the directories the new root is built of: every run's uid must pass through them
    # Resolved in the host's tree, before the new root replaces it: a hidden path reached through a
    # link the new root does not copy (/data -> /usr/local/data) is hidden where its files are.
    real = {path: os.path.realpath(path) for path in hidden}
    expose = python_paths()
    try:
        _enter_new_root(expose, iso)
        _cover_hidden(real, expose, iso)
    except OSError as err:  # a half-built root may show anything: no solution runs in it
        raise SandboxError(f"the sandbox's root is half-built ({err}): refusing to run solutions") from err
    iso.mount_namespace = True
    return iso


def _run_uids_mapped() -> bool:
    """Whether this user namespace maps every uid a run may take (``UID_BASE`` up): the host's does; a
    container's remapped root (enroot, podman) maps one uid, and switching to another fails."""
    lo, hi = UID_BASE, UID_BASE + UID_BLOCKS * 1000
    with open("/proc/self/uid_map") as stream:
        extents = [tuple(int(x) for x in line.split()) for line in stream if line.strip()]
    return any(inside <= lo and hi <= inside + count for inside, _, count in extents)


def _enter_new_root(expose: list[str], iso: Isolation, pivot: bool = True) -> None:
    """Make a fresh tmpfs this namespace's root and show in it only what a run needs of the host's: the
    ``SYSTEM_DIRS``, the Python installation (``expose``) and the libraries the interpreter has loaded
    (bound from the host's, read-only), a minimal /dev and an empty /tmp. Nothing else of the host's,
    present or made later, is in it. Records the host paths shown and whether /proc is there (without a
    uid per run, a /proc the kernel refuses leaves it empty: ``_mount_proc``). ``pivot=False`` takes
    the fallback path."""
    shown, links = _host_view(expose)
    # Every source is opened first: the new root is assembled on a tmpfs over /tmp, which may hold some
    # of them (a virtual environment in a temporary checkout).
    sources = [(path, os.open(path, os.O_PATH)) for path in shown]
    devices = [(name, os.open(f"/dev/{name}", os.O_PATH)) for name in DEVICES if os.path.exists(f"/dev/{name}")]
    try:
        mount("tmpfs", STAGE, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOATIME, "mode=0755,size=1m")
        for path in BUILT_DIRS:
            os.mkdir(STAGE + path, 0o755)
        _minimal_dev(STAGE + "/dev", devices)
        iso.proc_pids_only = _mount_proc(STAGE + "/proc", iso.uid_switch)
        mount("tmpfs", STAGE + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOATIME, "mode=0755,size=2g")
        for path, fd in sources:  # after /tmp: a Python path in the temporary directory goes into the new one
            os.makedirs(STAGE + path, mode=0o755, exist_ok=True)
            _bind(fd, STAGE + path, MS_REC)
    finally:
        close_all([fd for _, fd in (*sources, *devices)])
    for path, target in links.items():
        os.symlink(target, STAGE + path)
    _read_only_host_mounts(iso)  # while /proc/self/mountinfo is in view: the root's own may be empty
    _switch_root(STAGE, pivot)
    mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOATIME, "mode=0755,size=1m")
    iso.host_view = shown
    iso.proc_hidepid = os.path.isdir("/proc/self")
    if not iso.proc_hidepid:
        iso.warnings.append(
            "no /proc in the runs' root (this kernel mounts none in a user namespace where the host's is "
            "partly covered, as in some containers): runs see no process at all, and /dev/stdin is missing"
        )
    elif not iso.proc_pids_only:
        iso.warnings.append("the runs' /proc shows the host-wide files too (no subset=pid before Linux 5.8)")


def _mount_proc(target: str, required: bool) -> bool:
    """The root's own /proc: this PID namespace's processes, each hidden from the runs that may not trace
    it (``hidepid=invisible``), and nothing else (``subset=pid``): the host-wide files' cumulative
    counters were a store a run set and a later one read exactly (``/proc/vmstat``'s
    ``unevictable_pgs_mlocked`` moved by ``mlock``, ``thp_fault_alloc`` by touching huge pages), and so
    were ``stat``, ``interrupts`` and their kin. Mounted while the host's is still in view and with its
    per-mount flags: in a user namespace the kernel mounts a proc only then (and not at all where the
    host's is partly covered). Returns whether ``subset=pid`` took (Linux 5.8 and later); a refusal of
    any proc is raised where ``required``, else leaves ``target`` an empty directory."""
    host = next((options for point, options in _mount_points() if point == "/proc"), set())
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    for name, flag in MOUNT_FLAGS.items():
        flags |= flag if name in host else 0
    refusal: OSError | None = None
    for options in ("hidepid=invisible,subset=pid", "hidepid=invisible"):
        try:
            mount("proc", target, "proc", flags, options)
            return options.endswith("subset=pid")
        except OSError as err:
            refusal = err
    if required and refusal is not None:
        raise refusal
    return False


def _host_view(expose: list[str]) -> tuple[list[str], dict[str, str]]:
    """The host directories the new root shows (the system's, the Python paths and the directories of
    the shared libraries loaded here outside them, no path inside another) and the top-level links it
    copies (/bin -> usr/bin)."""
    tops = [f"/{name}" for name in sorted(os.listdir("/")) if name in SYSTEM_DIRS]
    links = {path: os.readlink(path) for path in tops if os.path.islink(path)}
    shown = [path for path in tops if path not in links and os.path.isdir(path)]
    for path in sorted({*expose, *_loaded_library_dirs()}):  # sorted: a directory before what is in it
        if not any(_inside(path, top) for top in shown):
            shown.append(path)
    return shown, links


def _loaded_library_dirs() -> set[str]:
    """Directories of the shared libraries mapped into this process (libpython's and the C extensions'
    dependencies, wherever a Python built with RPATHs, as Spack's or conda's, keeps them)."""
    with open("/proc/self/maps") as stream:
        fields = [line.split(maxsplit=5) for line in stream]
    files = {f[5].strip() for f in fields if len(f) == 6 and f[5].startswith("/")}
    return {os.path.dirname(os.path.realpath(f)) for f in files if ".so" in os.path.basename(f) and os.path.isfile(f)}


def _switch_root(new_root: str, pivot: bool) -> None:
    """Make ``new_root`` the namespace's root and leave the old one. pivot_root drops it from the
    namespace; where pivot_root cannot (a root file system that is not a mount, as an initramfs; an
    architecture without a known number) the new root is moved over the old one and entered with
    chroot: the old stays beneath, on no path (runs cannot chroot: the filter denies it)."""
    number = PIVOT_ROOT.get(os.uname().machine) if pivot else None
    if number is not None:
        os.mkdir(new_root + OLD_ROOT, 0o700)
        if libc.syscall(number, new_root.encode(), (new_root + OLD_ROOT).encode()) == 0:
            os.chdir("/")
            umount(OLD_ROOT)
            os.rmdir(OLD_ROOT)
            return
        err = ctypes.get_errno()
        if err != errno.EINVAL:
            raise OSError(err, f"pivot_root: {os.strerror(err)}")
        os.rmdir(new_root + OLD_ROOT)
    os.chdir(new_root)
    mount(new_root, "/", None, MS_MOVE)
    os.chroot(".")
    os.chdir("/")


def _minimal_dev(dev: str, devices: list[tuple[str, int]]) -> None:
    """A read-only tmpfs /dev holding only ``DEVICES`` (bound from the host's, read-only: no access times;
    the caller closes their descriptors), the standard descriptors' links and an empty read-only /dev/shm
    (runs that share the zygote's uid own these tmpfs: writable, they would carry files between runs)."""
    mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC | MS_NOATIME, "mode=0755,size=64k,nr_inodes=64")
    for name, fd in devices:
        target = f"{dev}/{name}"
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o666))  # the mount point
        _bind(fd, target, 0, sealed=MS_NOSUID | MS_NOEXEC)
    for name, link in DEV_LINKS.items():
        os.symlink(link, f"{dev}/{name}")
    os.mkdir(f"{dev}/shm", 0o755)
    mount("tmpfs", f"{dev}/shm", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOATIME, "mode=0755,size=4k")
    mount(None, dev, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC | MS_NOATIME, "mode=0755")


def _cover_hidden(real_paths: dict[str, str], expose: list[str], iso: Isolation) -> None:
    """Cover the hidden trees the new root still shows (inside a system directory) with an empty tmpfs,
    binding the Python paths (``expose``) inside them back; record, for each requested tree, what hides
    it: itself or a covered tree above it, /tmp, /dev or /proc (the new root's own), or ``/`` (the new
    root has no such path). ``real_paths``: each hidden path as the host resolves it."""
    covered = list(BUILT_DIRS)
    for path, real in real_paths.items():
        if any(_inside(real, p) for p in expose):
            continue
        above = next((c for c in covered if _inside(real, c)), None)
        if above is None and any(_inside(real, top) for top in iso.host_view):
            if not os.path.isdir(real):
                continue
            _cover(real, expose, "mode=0755,size=1m")
            covered.append(real)
            above = real
        iso.hidden_paths.append(path)
        iso.hidden_by[path] = above or "/"


def _mount_points() -> list[tuple[str, set[str]]]:
    """(mount point, per-mount options) of each mount of this namespace, from /proc/self/mountinfo."""
    points = []
    with open("/proc/self/mountinfo") as stream:
        for line in stream:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            points.append((point, set(fields[5].split(","))))
    return points


def _read_only_host_mounts(iso: Isolation) -> None:
    """Remount every mount of the host's that the staged root shows read-only, keeping its other flags:
    no write of a run's reaches them anyway (its uid), but a read of a file or a directory listing stamps
    its access time (relatime: once a day) on disk, where another run, of another grader too, reads it
    with ``stat``: a store of a bit per file that outlives everything (it carried a bit between two
    graders). A read-only mount writes no access times. /tmp and /dev/shm (the root's own) and /proc stay
    as they are, and /sys where the zygote has a cgroup to write there. Without a uid per run /sys is
    read-only too: runs have the grader's uid, and a cgroup delegated to it (systemd's user slices, a
    rootless container) let a run freeze or kill the grader and the trainer, or raise their limits."""
    kept = KERNEL_MOUNTS if iso.uid_switch else ("/proc",)
    for point, options in _mount_points():
        path = point.removeprefix(STAGE)
        if not _inside(point, STAGE) or point == STAGE or "ro" in options:
            continue
        if path in WRITABLE_TMP or any(_inside(path, tree) for tree in kept):
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for name, flag in MOUNT_FLAGS.items():
            flags |= flag if name in options else 0
        try:
            mount(None, point, None, flags)
        except OSError as err:
            harm = "runs may write the grader's cgroup" if _inside(path, "/sys") else "reads stamp access times"
            iso.warnings.append(f"{path} not read-only ({err}): {harm}")


LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF = 444, 445, 446  # every architecture
LANDLOCK_CREATE_RULESET_VERSION, LANDLOCK_RULE_PATH_BENEATH, LANDLOCK_ACCESS_FS_WRITE_FILE = 1, 1, 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # packed in the kernel's header
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """Landlock's ABI version here (0 where the kernel has none or it is off)."""
    return max(0, libc.syscall(LANDLOCK_CREATE_RULESET, None, 0, LANDLOCK_CREATE_RULESET_VERSION))


def write_only_beneath(paths: list[str]) -> None:
    """Let this process and its descendants open files for writing only beneath ``paths`` (Landlock;
    no_new_privs must be set). A process's own /proc files are writable by it once it is dumpable, which
    a solution can make itself (prctl, or any exec): it set its oom_score_adj back from 1000 to 0 and the
    host's OOM killer took the trainer. Descriptors it holds (fd 1, pipes, sockets) are not paths."""
    attr = _RulesetAttr(LANDLOCK_ACCESS_FS_WRITE_FILE)
    ruleset = libc.syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if ruleset < 0:
        check(ruleset, "landlock_create_ruleset")
    try:
        for path in paths:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneathAttr(LANDLOCK_ACCESS_FS_WRITE_FILE, fd)
                check(libc.syscall(LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(rule), 0), path)
            finally:
                os.close(fd)
        check(libc.syscall(LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def hide_sys() -> None:
    """In a mount namespace of this run's own, cover /sys with an empty read-only tmpfs. Its counters
    outlive a run and are exact: a run set its slot's memory cgroup's peak, and a later solution read there
    how many tests the earlier one passed (another grader's too, through the parent's directory); the
    per-node ``vmstat`` files are the host's event counters. The zygote keeps the tree (its cgroup)."""
    unshare(CLONE_NEWNS, "unshare(CLONE_NEWNS)")
    mount("tmpfs", "/sys", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0555,size=4k,nr_inodes=1")


def mount_run_root(path: str, limits: Limits, mode: int = 0o711) -> None:
    """The tmpfs that holds a zygote's run directories (one run at a time), or one run's directory: as
    large as the memory limit and with at most ``max_files`` inodes; its pages are charged to the writing
    run's memory cgroup."""
    data = f"mode={mode:o},size={limits.memory_mb}m,nr_inodes={limits.max_files}"
    mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, data)


def seal_tmp() -> None:
    """Make the root's /tmp read-only once the runs' tmpfs is mounted in it. Without a uid per run the runs
    share the zygote's uid, which owns /tmp: a file one left there would be read by the next."""
    mount(None, "/tmp", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOATIME, "mode=0755")


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
    """A run's descriptors: the child's three (payload pipe, read end; report socket, its end; the stdout
    memfd) and the grader's three (payload, write end; report, the other end; the same memfd).

    The report channel is a socket pair, not a pipe: a pipe's end can be opened again through
    /proc/self/fd in the other direction by its owner, so a run sharing the grader's uid read the child's
    first line (written before the solution runs) and wrote its own; a socket cannot be opened that way,
    and what the child sends reaches only the grader's end."""
    job_r, job_w = os.pipe()
    grader_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    grader_end.shutdown(socket.SHUT_WR)  # the child reads nothing from its end
    # An urgent byte (send MSG_OOB) is data like any other, read in its place: out of line, it left the
    # grader's end readable for poll with nothing for a read (which, blocking, waited past every limit).
    grader_end.setsockopt(socket.SOL_SOCKET, socket.SO_OOBINLINE, 1)
    res_r, res_w = grader_end.detach(), child_end.detach()
    out = os.memfd_create("stdout")
    return [job_r, res_w, out], [job_w, res_r, os.dup(out)]


def close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


# Quotas the kernel counts per uid, through the user namespaces: without root a run's uid is the grader's
# (and a trainer's under the same user), and one run that queued ~96k blocked signals left the grader
# none (timer_create: EAGAIN). A run's own limit caps what it can add to its uid's count.
PER_UID_QUOTAS = ((resource.RLIMIT_SIGPENDING, 64), (resource.RLIMIT_MSGQUEUE, 0), (resource.RLIMIT_MEMLOCK, 0))
# No core dump, to a file or to a pipe. A pipe (core_pattern "|...": systemd-coredump, apport, the default
# on most distributions) ignores a limit of 0: a run that made itself dumpable (prctl, or any exec) and
# crashed started the helper as root in the host's namespaces and piped it its memory (222 MB, either
# mode). The kernel skips a piped dump only for a soft limit of exactly 1 (its guard against recursive
# dumps), and a file dump needs a page; the filter denies changing this limit (lowering it to 0 too).
RLIMIT_CORE_NONE = 1
# No scheduling above the grader's: the limits are inherited, so a grader started with raised ones (a
# cluster's realtime or nice allowances) gave runs SCHED_FIFO or nice -20, to starve its CPU and the zygote's.
SCHEDULING = ((resource.RLIMIT_RTPRIO, 0), (resource.RLIMIT_NICE, 0))


def set_limits(limits: Limits, extra_files: int) -> None:
    mem = limits.memory_mb << 20
    out = limits.output_mb << 20
    for res, value in (
        (resource.RLIMIT_AS, mem),
        (resource.RLIMIT_FSIZE, out),
        (resource.RLIMIT_NOFILE, limits.nofile + extra_files),
        (resource.RLIMIT_NPROC, limits.nproc),
        (resource.RLIMIT_CORE, RLIMIT_CORE_NONE),
        *PER_UID_QUOTAS,
        *SCHEDULING,
    ):
        resource.setrlimit(res, (value, value))
    # SIGXCPU (time_limit) at the first whole second past the limit, SIGKILL a second later (a run may
    # catch SIGXCPU). The wall limit is 3x the CPU limit, so this, not the wall, ends an endless loop: at
    # int(limit) + 1 s it spent 2 s of a 1 s limit's worker, and 3 s of a 2 s one (round 14).
    cpu = math.ceil(limits.timeout_s)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def drop_privileges(uid: int) -> None:
    """Become the run's own uid (which leaves no capability); without a uid per run (``uid`` is the
    zygote's own), drop the capabilities a zygote without root holds in its user namespace."""
    if uid != os.geteuid():
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    else:
        drop_capabilities()


def drop_capabilities() -> None:
    """Empty the effective, permitted and inheritable sets (no_new_privs keeps an exec from refilling
    them): a run cannot use its namespace's powers (mounts, network settings), filter or no filter."""
    header = (ctypes.c_uint32 * 2)(CAP_VERSION_3, 0)
    check(libc.capset(header, (ctypes.c_uint32 * 6)()), "capset")


def close_except(keep: set[int]) -> None:
    """Close every descriptor but ``keep``: close_range(2) over the gaps, no listing of /proc/self/fd."""
    low = 0
    for fd in sorted(keep):
        if low < fd:  # os.closerange(n, n) would close n and above (close_range with last < first)
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
