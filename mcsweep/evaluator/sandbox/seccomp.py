"""A seccomp filter (built with pyseccomp, the ctypes bindings of libseccomp) that denies a solution the
system calls no contest solution needs: new namespaces, mounts, tracing other processes, kernel keyrings,
BPF, io_uring (which would bypass the filter), module loading, clocks, reboot, terminal injection, socket
families other than unix, passing descriptors, file locks and watches, memory no rlimit sees, another
process's limits... Denied calls fail with
EPERM (a socket family with EAFNOSUPPORT), so the solution sees an ordinary OSError; flushes to disk succeed
without effect (see ``FLUSH_CALLS``); everything else is allowed."""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import signal

DENIED = (
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "kcmp",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "fanotify_init",
    "open_by_handle_at",
    "name_to_handle_at",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "syslog",
    "iopl",
    "ioperm",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "sethostname",
    "setdomainname",
    "vhangup",
    "sched_setaffinity",  # each zygote's runs are held to one CPU, so that one cannot slow the others
    # A new session is a new autogroup, which the kernel's scheduler gives a CPU share of its own: a hog's 8
    # processes, each in a session of its own, took 8 shares of their CPU, and honest runs of another grader
    # held to it got a ninth (30 solutions of 0.3 s CPU: median wall 2.85 s, 3 time_limit at a 3 s wall
    # limit; 0.93 s and none beside the same hog in one session; round 14). A run stays in its zygote's.
    "setsid",
    # Cross-run stores and signals in state every run shares: evicting or probing a shared file's page
    # cache (a store that outlives the run, its zygote and the grader), Linux AIO (which can probe it
    # too), file locks and inotify watches on the shared standard library.
    "fadvise64",
    "readahead",
    "cachestat",
    "process_madvise",
    "io_setup",
    "flock",
    "inotify_init",
    "inotify_init1",
    # Passing descriptors (SCM_RIGHTS): sockets that hold each other in flight outlive every process of
    # the run, and with them the memfds sent along, still charged to the zygote's memory cgroup: the
    # next solution on the slot ran out of memory (840 MB left by one run of a 1024 MB limit).
    "sendmsg",
    "sendmmsg",
    # Host-wide disk flushes: a run's own files are on a tmpfs, so all these do is make every other
    # process of the host (the trainer's checkpoints, other graders) wait on the disk.
    "sync",
    "syncfs",
    # Memory that no process maps, so that RLIMIT_AS never sees it: memfds (each up to RLIMIT_FSIZE, as
    # many as descriptors allow) and System V segments, messages and semaphores. Without a memory cgroup
    # (a grader without root) a run held 1 GB this way under a 128 MB limit, and the host's OOM killer
    # picks by what processes map: the trainer, not the run.
    "memfd_create",
    "memfd_secret",
    # vmsplice puts a run's own pages into a pipe by reference: unmapped, a huge page held whole per slot,
    # they left RLIMIT_AS and stayed (0.9 GB under a 128 MB limit, without a cgroup).
    "vmsplice",
    "shmget",
    "msgget",
    "semget",
    # A listening unix socket queues connections not yet accepted, each holding what its client sent before
    # closing: kernel memory without end behind one descriptor (without a memory cgroup, 1,500 connections
    # held 333 MB past a 128 MB limit; up to 4096 of them, each up to the largest send buffer). See
    # SOCKET_BUFFER_OPTIONS for the other ways.
    "listen",
)
# Counters the kernel hands out once and never again, which tell how many runs came before: the ids of
# namespaces (a run's own IPC and mount namespaces are new each run: nsfs's NS_GET_ID and kin, ioctl type
# 0xb7), socket cookies (SO_COOKIE, from a per-CPU counter that nothing else moves: a run set it with as
# many sockets as its test's index, and a later run on its CPU, another grader's too, read it exactly;
# SO_NETNS_COOKIE, the namespace's id), and unique mount ids (statx's STATX_MNT_ID_UNIQUE; statmount and
# listmount, which libseccomp 2.5 does not name: by their numbers, the same on every architecture).
NSFS_IOCTL_TYPE = 0xB7
SOL_SOCKET, DENIED_SOCKOPTS = 1, {"SO_COOKIE": 57, "SO_NETNS_COOKIE": 71}
STATX_MNT_ID_UNIQUE = 0x4000
DENIED_BY_NUMBER = {"statmount": 457, "listmount": 458}
# ioctl requests that act on a terminal beyond the caller: TIOCSTI types into its input queue (commands
# for the shell that owns it), TIOCLINUX reaches the console. A solution has no terminal (its zygote
# has no controlling one); these deny it even one that leaked.
DENIED_IOCTLS = {"TIOCSTI": 0x5412, "TIOCLINUX": 0x541C}
# fcntl commands that act on state of the file every run reads (a signal to the runs beside it, as with
# flock and inotify): POSIX and open-file record locks (a read lock on the standard library is seen by
# another run's F_GETLK) and dnotify (F_NOTIFY: a signal when another run reads a file of a directory).
DENIED_FCNTLS = {
    "F_GETLK": 5,
    "F_SETLK": 6,
    "F_SETLKW": 7,
    "F_OFD_GETLK": 36,
    "F_OFD_SETLK": 37,
    "F_OFD_SETLKW": 38,
    "F_NOTIFY": 1026,
    # Pipe capacity is counted per uid: without root, runs share the grader's, and one that grew its pipes
    # to the cap left every other process of the uid (a run beside it, the grader) unable to grow theirs,
    # a signal between runs; and each grown pipe holds more pages outside RLIMIT_AS.
    "F_SETPIPE_SZ": 1031,
}
# Kernel memory a socket holds (its queued data) is in no process's address space, so RLIMIT_AS misses
# it, and without a memory cgroup it was bounded by nothing a run could not raise: growing a send buffer
# (up to net.core.wmem_max, 4 MiB here, doubled: a socketpair end held 8 MiB, 219 MB a process within
# its 64 descriptors) and datagram sockets, whose one bound receiver takes messages from any number of
# senders that each then close (11 messages of up to a send buffer each, 2.1 MB a descriptor at the
# default sizes). Denied both (setsockopt of a buffer size, datagram sockets made
# by socket or socketpair), a socket holds at most its default send buffer (net.core.wmem_default).
# A run's flushes of host files it can only read still reach the host's disk: the binding is read-only, the
# filesystem under it is not, and ext4 answers fsync or fdatasync of a file with nothing to write (msync with
# MS_SYNC of a shared mapping of it, too) with a cache flush of the whole device. A run calling fsync on
# /usr/lib/os-release in a loop sent the disk 37k flushes in 2.5 s (none at rest; round 15), as sync and
# syncfs did. These succeed without effect (errno 0): everything a run can write is on a tmpfs or a memfd,
# where they do nothing anyway, so honest code that flushes its own files works as before.
FLUSH_CALLS, MS_SYNC = ("fsync", "fdatasync"), 4
SOCKET_BUFFER_OPTIONS = {"SO_SNDBUF": 7, "SO_RCVBUF": 8, "SO_SNDBUFFORCE": 32, "SO_RCVBUFFORCE": 33}
SOCK_DGRAM, SOCK_TYPE_MASK = 2, 0xF
# AF_UNIX only. IP sockets reach nothing (the zygote's network namespace has no interface up), but a
# failed send still counts in that namespace's /proc/net/snmp, which every later run of the zygote reads:
# an exact store a run set (777 sends) and the next one read.
ALLOWED_SOCKET_FAMILIES = (1,)
RWF_NOWAIT = 0x8  # preadv2/pwritev2: fail rather than wait for the disk, so it tells a cached page apart
MADV_COLD, MADV_PAGEOUT = 20, 21  # drop a file's pages from the cache (the writer's side of the store)
# Kernel same-page merging: where a host runs KSM, pages two runs marked mergeable and filled alike are merged,
# and a write to one is then slow (copy on write), a timing channel between runs side by side (round 15).
MADV_MERGEABLE, PR_SET_MEMORY_MERGE = 12, 67
# clone() with any of these flags makes a new namespace; clone3 hides its flags in memory the filter
# cannot read, so it fails with ENOSYS and the C library falls back to clone().
CLONE_NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


# The CPU time of a process the kernel reaps by itself (its parent ignores SIGCHLD or set SA_NOCLDWAIT) is
# added to no one's: without a cgroup, the zygote counts a run's tree by what it and the run's processes
# reap, and a run whose helpers spent 0.6 s so was charged 0.005 s. Setting SIGCHLD's action is denied
# (asking for it, with no new action, is not): every child is waited for, by its parent or the zygote.
SIGCHLD = int(signal.SIGCHLD)


PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def build_filter() -> tuple[bytes, list[str], str]:
    """The compiled BPF program (for ``load`` in each child: ~1 ms less per run than libseccomp's own
    load, which recompiles), the names it denies, or why there is none."""
    try:
        import pyseccomp
    except (ImportError, OSError) as err:  # the bindings, or libseccomp itself, missing
        return b"", [], f"no seccomp filter: {err}"
    try:
        flt = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
        denied = []
        for name in DENIED:
            try:
                flt.add_rule(pyseccomp.ERRNO(errno.EPERM), name)
            except (OSError, ValueError, RuntimeError):  # not a system call on this architecture
                continue
            denied.append(name)
        for request in DENIED_IOCTLS.values():
            # the kernel reads the request as 32 bits: compare those, whatever the upper ones hold
            flt.add_rule(
                pyseccomp.ERRNO(errno.EPERM), "ioctl", pyseccomp.Arg(1, pyseccomp.MASKED_EQ, 0xFFFFFFFF, request)
            )
        for command in DENIED_FCNTLS.values():  # the kernel reads the command as 32 bits, as an ioctl's
            flt.add_rule(
                pyseccomp.ERRNO(errno.EPERM), "fcntl", pyseccomp.Arg(1, pyseccomp.MASKED_EQ, 0xFFFFFFFF, command)
            )
        _deny_run_counters(pyseccomp, flt)
        for call in FLUSH_CALLS:
            flt.add_rule(pyseccomp.ERRNO(0), call)
        flt.add_rule(pyseccomp.ERRNO(0), "msync", pyseccomp.Arg(2, pyseccomp.MASKED_EQ, MS_SYNC, MS_SYNC))
        _allow_socket_families(pyseccomp, flt)
        _bound_socket_memory(pyseccomp, flt)
        for call in ("preadv2", "pwritev2"):
            flt.add_rule(
                pyseccomp.ERRNO(errno.EPERM), call, pyseccomp.Arg(5, pyseccomp.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT)
            )
        for advice in (MADV_COLD, MADV_PAGEOUT, MADV_MERGEABLE):  # an int to the kernel: compare its 32 bits
            flt.add_rule(
                pyseccomp.ERRNO(errno.EPERM), "madvise", pyseccomp.Arg(2, pyseccomp.MASKED_EQ, 0xFFFFFFFF, advice)
            )
        flt.add_rule(
            pyseccomp.ERRNO(errno.EPERM),
            "prctl",
            pyseccomp.Arg(0, pyseccomp.MASKED_EQ, 0xFFFFFFFF, PR_SET_MEMORY_MERGE),
        )
        # prlimit on another process needs only the same uid: without a uid per run, a run lowered its
        # zygote's limits (pid 1 of its PID namespace), and every later run on the slot inherited them.
        flt.add_rule(pyseccomp.ERRNO(errno.EPERM), "prlimit64", pyseccomp.Arg(0, pyseccomp.NE, 0))
        # Nor its own core limit, which is 1 (``linux.RLIMIT_CORE_NONE``): lowered to 0, a crash is piped to
        # the host's core handler (systemd-coredump, apport), a root process outside the sandbox.
        limit = pyseccomp.Arg(1, pyseccomp.MASKED_EQ, 0xFFFFFFFF, resource.RLIMIT_CORE)
        flt.add_rule(pyseccomp.ERRNO(errno.EPERM), "prlimit64", limit, pyseccomp.Arg(2, pyseccomp.NE, 0))
        flt.add_rule(
            pyseccomp.ERRNO(errno.EPERM),
            "setrlimit",
            pyseccomp.Arg(0, pyseccomp.MASKED_EQ, 0xFFFFFFFF, resource.RLIMIT_CORE),
        )
        for flag in CLONE_NAMESPACE_FLAGS:
            flt.add_rule(pyseccomp.ERRNO(errno.EPERM), "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, flag, flag))
        flt.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
        sigchld = pyseccomp.Arg(0, pyseccomp.MASKED_EQ, 0xFFFFFFFF, SIGCHLD)
        flt.add_rule(pyseccomp.ERRNO(errno.EPERM), "rt_sigaction", sigchld, pyseccomp.Arg(1, pyseccomp.NE, 0))
        program = _export(flt)
    except (OSError, ValueError, RuntimeError) as err:
        return b"", [], f"no seccomp filter: {err}"
    extra = (
        [f"ioctl({name})" for name in DENIED_IOCTLS]
        + [f"fcntl({name})" for name in DENIED_FCNTLS]
        + [
            "socket families but AF_UNIX",
            "preadv2/pwritev2(RWF_NOWAIT)",
            "madvise(MADV_COLD/MADV_PAGEOUT/MADV_MERGEABLE)",
            "prctl(PR_SET_MEMORY_MERGE)",
            "prlimit64(another process)",
            "prlimit64/setrlimit(RLIMIT_CORE)",
            "ioctl(namespace ids)",
            *(f"getsockopt({name})" for name in DENIED_SOCKOPTS),
            "statx(STATX_MNT_ID_UNIQUE)",
            *DENIED_BY_NUMBER,
            *(f"setsockopt({name})" for name in SOCKET_BUFFER_OPTIONS),
            "socket/socketpair(SOCK_DGRAM)",
            "rt_sigaction(SIGCHLD, a new action)",
            "fsync/fdatasync/msync(MS_SYNC) (succeed without effect)",
        ]
    )
    return program, [*denied, *extra, "clone(namespace flags)", "clone3"], ""


def _deny_run_counters(pyseccomp, flt) -> None:
    """The calls that read a counter of runs (see ``NSFS_IOCTL_TYPE``): each int compared on its 32 bits."""
    deny = pyseccomp.ERRNO(errno.EPERM)
    flt.add_rule(deny, "ioctl", pyseccomp.Arg(1, pyseccomp.MASKED_EQ, 0xFF00, NSFS_IOCTL_TYPE << 8))
    for option in DENIED_SOCKOPTS.values():
        level = pyseccomp.Arg(1, pyseccomp.MASKED_EQ, 0xFFFFFFFF, SOL_SOCKET)
        flt.add_rule(deny, "getsockopt", level, pyseccomp.Arg(2, pyseccomp.MASKED_EQ, 0xFFFFFFFF, option))
    mask = STATX_MNT_ID_UNIQUE
    flt.add_rule(deny, "statx", pyseccomp.Arg(3, pyseccomp.MASKED_EQ, mask, mask))
    for number in DENIED_BY_NUMBER.values():
        flt.add_rule(deny, number)


def _bound_socket_memory(pyseccomp, flt) -> None:
    """No socket holds more than its default send buffer (see ``SOCKET_BUFFER_OPTIONS``): buffer sizes
    are not set (at SOL_SOCKET, the one level unix sockets have), datagram sockets are not made (the
    kernel reads the type's low 4 bits, flags above them)."""
    deny = pyseccomp.ERRNO(errno.EPERM)
    level = pyseccomp.Arg(1, pyseccomp.MASKED_EQ, 0xFFFFFFFF, SOL_SOCKET)
    for option in SOCKET_BUFFER_OPTIONS.values():
        flt.add_rule(deny, "setsockopt", level, pyseccomp.Arg(2, pyseccomp.MASKED_EQ, 0xFFFFFFFF, option))
    for call in ("socket", "socketpair"):
        unix = pyseccomp.Arg(0, pyseccomp.EQ, 1)  # other families fail with EAFNOSUPPORT already
        flt.add_rule(deny, call, unix, pyseccomp.Arg(1, pyseccomp.MASKED_EQ, SOCK_TYPE_MASK, SOCK_DGRAM))


def _allow_socket_families(pyseccomp, flt) -> None:
    """socket() and socketpair() only for AF_UNIX: IP (whose counters outlive a run in the zygote's network
    namespace), a family the namespace does not isolate (AF_VSOCK, the hypervisor's channel) or one that
    talks to the kernel (netlink, packet, bluetooth...) fails with EAFNOSUPPORT. A family with any upper
    bit set is above AF_UNIX too, so the kernel's 32-bit reading cannot slip by."""
    deny = pyseccomp.ERRNO(errno.EAFNOSUPPORT)
    for call in ("socket", "socketpair"):
        flt.add_rule(deny, call, pyseccomp.Arg(0, pyseccomp.GT, max(ALLOWED_SOCKET_FAMILIES)))
        for family in set(range(max(ALLOWED_SOCKET_FAMILIES))) - set(ALLOWED_SOCKET_FAMILIES):
            flt.add_rule(deny, call, pyseccomp.Arg(0, pyseccomp.EQ, family))


def _export(flt: object) -> bytes:
    """The filter's BPF program (libseccomp writes it to a descriptor: a memfd here, so that no temporary
    file, and no ``tempfile`` with the ``random`` it imports, is needed)."""
    fd = os.memfd_create("seccomp-bpf")
    with os.fdopen(fd, "w+b") as stream:
        flt.export_bpf(stream)  # type: ignore[attr-defined]
        stream.seek(0)
        return stream.read()


class Program:
    """A filter ready to install: its ctypes structures are built once, in the zygote, so that each child
    only makes the one ``prctl`` call (fewer of the zygote's pages touched, so copied, per test)."""

    def __init__(self, program: bytes, libc: ctypes.CDLL) -> None:
        self.buffer = ctypes.create_string_buffer(program, len(program))
        self.prog = _SockFprog(len(program) // 8, ctypes.cast(self.buffer, ctypes.c_char_p))
        self.ref, self.prctl = ctypes.byref(self.prog), libc.prctl

    def load(self) -> None:
        """Install the filter on this process (no_new_privs must be set); it is inherited by every fork."""
        if self.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, self.ref, 0, 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"prctl(PR_SET_SECCOMP): {os.strerror(err)}")
