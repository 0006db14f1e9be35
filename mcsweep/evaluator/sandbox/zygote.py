"""The zygote: a warm fork server, one per pool slot, that never sees code, inputs or outputs.

It sets up isolation once (namespaces, hidden trees, a cgroup, the syscall filter), then serves
``SpawnRequest`` (start runs under these limits) and ``KillRequest`` (the run's wall time is over). It
watches the running child itself (a pidfd): the moment the child exits, or is killed, it kills the run's
whole tree, reaps, accounts, removes its working directory and sends ``Exited`` unasked, with the grader's
descriptors of the next run, whose child it then forks (pre-forked: set up and waiting for its payload
when the grader needs it). So a test costs no round trip to the zygote, and no message for the next. An error while
handling one run is answered, not raised: the zygote lives on for the next run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import importlib
import os
import random
import resource
import select
import signal
import socket
import sys
import time
import traceback
from typing import NamedTuple

from . import cgroups, linux, seccomp
from .cgroups import PREFIX, Cgroup, open_cgroup
from .child import ChildSetup, child_main, load_prelude
from .limits import UID_BASE, UID_BLOCKS, Isolation, Limits
from .messages import Exited, KillRequest, Spawned, ZygoteConfig, decode_request, encode

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


class _Confines(NamedTuple):
    """What confines every run of a zygote besides its namespaces."""

    cgroup: Cgroup | None
    bpf: seccomp.Program | None
    pids: _PidDraw
    uid_base: int
    """The first of the 1000 uids this zygote's runs take (``_claim_uids``); 0 without a uid switch."""


class _Zygote:
    """Fork server: one child at a time; forks, kills, reaps, empties the run's cgroup, removes its dir."""

    def __init__(self, sock: socket.socket, tmp_root: str, iso: Isolation, confines: _Confines):
        self.sock, self.tmp_root, self.iso = sock, tmp_root, iso
        self.cgroup, self.bpf, self.pids, self.uid_base = confines
        self.counter = 0
        # A run's uid is no count of the runs before it: a later solution read "how many tests ran" from it.
        self.uid_order = random.SystemRandom().sample(range(1000), 1000)
        self.hide_sys = iso.mount_namespace and os.path.isdir("/sys")
        self.pid: int | None = None
        self.pidfd = -1
        self.run = 0
        self.uid = 0
        self.workdir = ""
        self.run_limits = Limits()
        # Without a cgroup: the CPU time of every process we had reaped when the run's child was forked, and
        # that of the run's whole tree once it is reaped (``cleanup``).
        self.reaped_cpu_s = 0.0
        self.tree_cpu_s = 0.0

    def next_uid(self) -> int:
        self.counter += 1
        return self.uid_base + self.uid_order[self.counter % 1000]

    def _make_workdir(self, limits: Limits) -> None:
        """Each run's directory is a fresh tmpfs's root, its parent read-only: nothing a run leaves there,
        not even the tmpfs's inode counter (a run set it, a later one read it), reaches the next (``cleanup``
        unmounts it). Without a tmpfs, a directory of the same name each time."""
        if self.iso.workdir_tmpfs:
            linux.mount_run_root(self.tmp_root, limits, mode=0o700)
            self.workdir = self.tmp_root
        else:
            self.workdir = os.path.join(self.tmp_root, "run")
            os.mkdir(self.workdir, 0o700)
        if self.iso.uid_switch:
            os.chown(self.workdir, self.uid, self.uid)

    def spawn(self, limits: Limits, fds: list[int]) -> str:
        """Fork the current run's child with its three descriptors; why not, if it could not."""
        try:
            self.uid = self.next_uid() if self.iso.uid_switch else os.geteuid()
            self._make_workdir(limits)
            if self.cgroup is not None:
                self.cgroup.configure(limits)
                self.cgroup.start()
            ipc = self.iso.ipc_namespace
            setup = ChildSetup(self.workdir, self.uid, limits, self.bpf, ipc, self.hide_sys, self.iso.landlock)
            self.pids.draw()
            self.reaped_cpu_s, self.tree_cpu_s = _reaped_cpu_s(), 0.0
            pid = os.fork()
            if pid == 0:
                self.sock.close()
                child_main(fds[0], fds[1], fds[2], setup)
            with contextlib.suppress(OSError):
                os.setpgid(pid, pid)
            self.pid, self.pidfd = pid, os.pidfd_open(pid)
            return ""
        except Exception:
            self.cleanup()
            return traceback.format_exc(limit=3)[-2000:]
        finally:
            linux.close_all(fds)

    def begin(self, ended: Exited | None) -> None:
        """Start the next run under ``self.run_limits``. Its grader's descriptors go out first, with
        ``ended`` (the end of the previous run: the pre-fork) or else with ``Spawned``, and are closed here
        before the fork, so that no child ever holds another end of its own pipes; a fork that fails ends
        the run at once (its ``Exited`` says why)."""
        try:
            child_fds, grader_fds = linux.run_fds()
        except OSError as err:
            self.send(ended or Spawned(0, f"descriptors for a run: {err}"))
            return
        self.run += 1
        self.send(dataclasses.replace(ended, next=self.run) if ended else Spawned(self.run), grader_fds)
        linux.close_all(grader_fds)
        error = self.spawn(self.run_limits, child_fds)
        if error:
            self.send(Exited(self.run, None, error=error))

    def kill(self) -> None:
        if self.pid is not None:
            for target in (-self.pid, self.pid):
                with contextlib.suppress(OSError):
                    os.kill(target, signal.SIGKILL)

    def end_run(self) -> Exited:
        """End the current run: kill its tree, reap, account, clean up."""
        self.kill()
        try:
            os.close(self.pidfd)
            _, status = os.waitpid(self.pid, 0)  # type: ignore[arg-type]
        except Exception:
            self.pid = None
            return Exited(self.run, None, error=self.cleanup() + traceback.format_exc(limit=3)[-2000:])
        self.pid = None
        usage = self.cgroup.usage() if self.cgroup is not None else None
        error = self.cleanup()  # without a cgroup, it counts the tree's CPU once every process is reaped
        cpu_s, oom = usage or (self.tree_cpu_s, False)
        return Exited(self.run, status, cpu_s, oom, error)

    def send(self, message: Spawned | Exited, fds: list[int] | None = None) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the grader is gone: recv tells us
            socket.send_fds(self.sock, [encode(message)], fds or [])

    def cleanup(self) -> str:
        """Kill whatever the run left running (its whole cgroup, else every descendant, which come back to
        us as their subreaper), then remove its directory. Returns what went wrong, if anything."""
        errors = []
        try:
            if self.cgroup is not None and not self.cgroup.kill_all():
                errors.append("tasks of the run's cgroup survived SIGKILL")
            while _children_alive():
                self.sweep()
                _reap_orphans()
            # Every process of the run is reaped now (ours, or, as init of its PID namespace, orphans too),
            # so their CPU time is our children's: the tree's without a cgroup (before any rm -rf below).
            self.tree_cpu_s = _reaped_cpu_s() - self.reaped_cpu_s
        except Exception as err:
            errors.append(f"killing the run: {err!r}")
        try:
            # Before the run's end is told: freeing a tmpfs the run filled (1 GB) took up to 0.3 s, which,
            # done as the next run started, came out of the next solution's wall time.
            if self.workdir and self.iso.workdir_tmpfs:
                linux.umount(self.tmp_root)
            elif self.workdir:
                linux.remove_workdir(self.workdir)
        except Exception as err:
            errors.append(f"removing {self.workdir}: {err!r}")
        self.workdir = ""
        try:
            if self.cgroup is not None:  # after the unmount, before the run's end is told (as above)
                self.cgroup.trim()
        except Exception as err:
            errors.append(f"trimming the cgroup: {err!r}")
        return "; ".join(errors)

    def sweep(self) -> None:
        """As init of a PID namespace: kill everything in it but us. Else, with a uid per run: kill
        everything running as the run's uid. Otherwise: kill our direct children."""
        if self.iso.pid_namespace:
            with contextlib.suppress(ProcessLookupError):
                os.kill(-1, signal.SIGKILL)
            return
        if not self.iso.uid_switch:
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
        """Requests in order; while a child runs, its exit too (whichever comes first). A run that ends
        is told at once, with the next run already ordered (pre-forked under the same limits)."""
        watch = select.poll()
        watch.register(self.sock, select.POLLIN)
        while True:
            if self.pid is not None:
                watch.register(self.pidfd, select.POLLIN)
                ready = {fd for fd, _ in watch.poll()}
                watch.unregister(self.pidfd)
                if self.pidfd in ready:
                    self.begin(self.end_run())
                    continue
            msg = self.sock.recv(1 << 16)
            if not msg:
                break
            req = decode_request(msg)
            if isinstance(req, KillRequest):
                if self.pid is not None and req.run == self.run:
                    self.begin(self.end_run())
                continue
            if self.pid is not None:  # a pre-forked child the grader will not use
                self.send(self.end_run())
            self.run_limits = req.limits
            self.begin(None)
        if self.pid is not None:
            self.end_run()  # the grader is gone


def _children_alive() -> bool:
    """Reap finished children; True if some child is still running."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def _reaped_cpu_s() -> float:
    """CPU seconds of every process we have reaped, and of those each of them reaped in turn: without a
    cgroup, the only count of a run's whole tree. Per-process limits (RLIMIT_CPU) let a run's helpers
    spend nproc times the limit side by side, and nothing counted them: a solution could pass a test that
    needed several times its CPU limit wherever its processes were not held to one CPU."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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


def _ipc_namespace_works() -> bool:
    """Whether a child can enter a new IPC namespace (tried once, in a throwaway fork)."""
    pid = os.fork()
    if pid == 0:
        try:
            linux.unshare(linux.CLONE_NEWIPC, "unshare(CLONE_NEWIPC)")
            os._exit(0)
        finally:
            os._exit(1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def _become_init(sock: socket.socket, user_namespace: bool) -> str:
    """Enter a PID namespace (without root, in a user namespace of our own first), whose init (pid 1) our
    fork becomes and goes on as the zygote, while this process waits for it and exits with it. Runs then
    see only their zygote's processes and can signal no other (the grader's included), their zygote takes
    no signal of theirs (init's), and their pids are the zygote's to draw (``_PidDraw``). Returns why not,
    or '' in the fork."""
    try:
        if user_namespace:
            linux.enter_user_namespace()
        linux.unshare(linux.CLONE_NEWPID, "unshare(CLONE_NEWPID)")
        pid = os.fork()
    except OSError as err:
        return str(err)
    if pid:
        sock.close()  # the grader sees the zygote's end as soon as the fork's copy closes
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # killed with the process the grader started
    return ""


class _PidDraw:
    """Draws where each run's pids start. Pids are handed out in turn, so a run's pid counted the runs
    before it on its slot (which tests of a solution ran), and a run that forked 1,500 times set the next
    one's. As init of our PID namespace we may set its last pid (``ns_last_pid``, opened while the host's
    /proc is in view; writing it needs CAP_SYS_ADMIN in the namespace's owner, which runs lack)."""

    def __init__(self, why_not: str = "") -> None:
        self.fd, self.top, self.why = -1, 0, ""
        try:
            if why_not:
                raise OSError(why_not)
            with open("/proc/sys/kernel/pid_max") as stream:
                self.top = int(stream.read()) - 1024  # room for a run's processes below the wrap
            self.fd = os.open("/proc/sys/kernel/ns_last_pid", os.O_WRONLY)
            self.draw()
        except (OSError, ValueError) as err:
            self.close()
            self.why = f"runs' pids not drawn at random ({err}): a pid counts the runs before it on its slot"

    def draw(self) -> None:
        """Set the namespace's last pid at random: the next fork gets the one after it."""
        if self.fd >= 0:
            last = 2 + int.from_bytes(os.urandom(4), "little") % (self.top - 2)
            os.pwrite(self.fd, b"%d" % last, 0)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
        self.fd = -1


def _claim_uids() -> tuple[int, socket.socket]:
    """A block of 1000 uids for our runs that no other live zygote holds, drawn at random: named after a
    pid, it showed every run the host's pid counter, which runs move by forking (a store across graders).
    Claimed by an abstract unix socket of the host's network namespace named after it, which the kernel
    lets go when we die; the socket is kept for our life."""
    while True:
        block = int.from_bytes(os.urandom(4), "little") % UID_BLOCKS
        claim = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            claim.bind(f"\0mcsweep-eval-uids-{block}")
            return UID_BASE + block * 1000, claim
        except OSError:
            claim.close()


def _without_uid_switch(iso: Isolation, why_no_namespace: str) -> None:
    """Record what a zygote that cannot give runs a uid of their own falls back to."""
    who = "root in a user namespace that maps no uids for the runs (a container's remapped root)"
    who = who if os.geteuid() == 0 else "not root"
    if iso.user_namespace:
        iso.warnings.append(
            f"{who}: runs share the grader's uid, in user, PID, mount and network namespaces of their own; "
            "no cgroup: memory and process limits per process (rlimits)"
        )
    else:
        iso.errors.append(f"{who}: no uid switch or namespaces ({why_no_namespace}): rlimits only")


def _join_cgroup(iso: Isolation, host_pid: int) -> Cgroup | None:
    """Make and enter our cgroup, then a cgroup namespace rooted there: the runs' /proc/self/cgroup shows
    "/", not the cgroup's name, which holds the host pid (a counter a run can move by forking)."""
    cgroup, why = open_cgroup(f"{PREFIX}{host_pid}")
    if cgroup is not None:
        try:
            cgroup.enter()
            linux.unshare(linux.CLONE_NEWCGROUP, "unshare(CLONE_NEWCGROUP)")
        except OSError as err:
            cgroup.remove()
            cgroup, why = None, f"could not enter the cgroup ({err}): memory and process limits per process"
    if cgroup is not None:
        iso.cgroup, iso.cgroup_paths = cgroup.version, list(cgroup.dirs.values())
    if why:
        iso.warnings.append(why)
    return cgroup


def _isolate(
    config: ZygoteConfig, user_namespace: bool, why_no_pid_namespace: str, host_pid: int
) -> tuple[Isolation, Cgroup | None, seccomp.Program | None]:
    iso = linux.setup_isolation(config.hidden, user_namespace)
    iso.pid_namespace = not why_no_pid_namespace
    if iso.uid_switch or iso.user_namespace:
        iso.ipc_namespace = _ipc_namespace_works()
        if not iso.ipc_namespace:
            iso.warnings.append("no IPC namespace per run: System V objects are shared between runs")
    cgroup = _join_cgroup(iso, host_pid) if iso.uid_switch else None
    if not iso.uid_switch:
        _without_uid_switch(iso, why_no_pid_namespace)
    elif why_no_pid_namespace:
        iso.warnings.append(f"no PID namespace ({why_no_pid_namespace}): runs see the host's process ids")
    iso.landlock = linux.landlock_abi() >= 1
    if not iso.landlock:
        iso.warnings.append("no Landlock (Linux 5.13+): a run may write its own /proc files (its OOM score)")
    iso.seccomp = list(config.seccomp_denied)
    if config.seccomp_error:
        iso.warnings.append(config.seccomp_error)
    program = bytes.fromhex(config.seccomp_bpf)
    if config.cpu >= 0 and program:  # a solution cannot widen it: the filter denies sched_setaffinity
        try:
            os.sched_setaffinity(0, {config.cpu})
            iso.cpu = config.cpu
        except OSError as err:
            iso.warnings.append(f"runs not held to CPU {config.cpu} ({err}): a busy solution slows its neighbours")
    return iso, cgroup, seccomp.Program(program, linux.libc) if program else None


def preload() -> None:
    """What every child starts with: the standard library a judge offers and LeetCode's prelude, loaded
    once here so that no child pays for its imports (benchmarks/bench_evaluator.py forks the same image)."""
    for name in PRELOAD:
        importlib.import_module(name)
    load_prelude()


def _make_root() -> str:
    """A fresh private directory for the runs under /tmp (the zygote's own tmpfs; its environment has no
    TMPDIR). ``tempfile.mkdtemp`` would bring ``random`` and its at-fork reseed into every fork."""
    while True:
        path = f"/tmp/mcsweep-eval-{os.urandom(6).hex()}"
        try:
            os.mkdir(path, 0o700)
            return path
        except FileExistsError:
            continue


def zygote_main(sock_fd: int) -> None:
    """Entry point of a zygote process (a fresh interpreter started by ``Slot``; its configuration comes
    over the socket, so nothing of the grader's is on its command line for a child to read)."""
    sock = socket.socket(fileno=sock_fd)
    config = ZygoteConfig.decode(sock.recv(1 << 20))
    linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)  # orphans of a run come back to us to be reaped
    # Ctrl-C, and the SIGTERM a scheduler sends the whole job, are for the grader: killed, it closes the
    # socket, and we end by cleaning up (a zygote killed first would leave its cgroup on the host).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # The import path through links, resolved while they are still in sight: the sandbox binds the
    # installation back at its real place, so a venv reached through a link in a covered directory (/tmp,
    # a checkout whose .venv links to another's) stays importable. Entries that are not paths (import
    # hooks' names) stay as they are.
    sys.path[:] = [os.path.realpath(p) if os.path.isabs(p) and os.path.exists(p) else p for p in sys.path]
    host_pid = os.getpid()
    uid_switch = linux.can_switch_uid()
    uid_base, claim = _claim_uids() if uid_switch else (0, None)
    cgroups.remove_stale_cgroups()  # while the host's pids are in view
    why_no_pid_namespace = _become_init(sock, user_namespace=not uid_switch)
    pids = _PidDraw("no PID namespace of our own" if why_no_pid_namespace else "")
    # Without a uid per run, runs share ours: a non-dumpable zygote's memory (/proc/1/mem) is not theirs.
    linux.prctl(linux.PR_SET_DUMPABLE, 0)
    user_namespace = not uid_switch and not why_no_pid_namespace
    iso, cgroup, bpf = _isolate(config, user_namespace, why_no_pid_namespace, host_pid)
    iso.random_pids, iso.uid_base = pids.fd >= 0, uid_base
    if pids.why:
        iso.warnings.append(pids.why)
    preload()
    tmp_root = _make_root()
    os.chmod(tmp_root, 0o711)  # children may enter their own 0700 dir, not list the others
    if iso.mount_namespace:
        try:
            linux.mount_run_root(tmp_root, Limits())  # each run mounts its own: this one only tries
            linux.umount(tmp_root)
            iso.workdir_tmpfs = True
        except OSError as err:
            iso.warnings.append(f"run directories not on a tmpfs of their own ({err}): files not capped")
    if iso.workdir_tmpfs:
        linux.seal_tmp()  # should it fail, the zygote ends, and the grader says it did not start
    sock.sendall(encode(iso))
    gc.collect()
    gc.freeze()
    zygote = _Zygote(sock, tmp_root, iso, _Confines(cgroup, bpf, pids, uid_base))
    try:
        zygote.serve()
    finally:
        zygote.cleanup()
        if not iso.mount_namespace:  # else it is in the namespace's own /tmp, which ends with it
            linux.remove_workdir(tmp_root)
        if cgroup is not None:
            cgroup.remove()
        if claim is not None:  # held until here: our runs' uids are ours while any may still run
            claim.close()
