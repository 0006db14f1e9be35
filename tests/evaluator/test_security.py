"""Hostile solutions: each must be judged failing and contained, and the grader left unharmed.

Probes print what they could reach; the expected output is the contained answer, so a probe that
passes proves containment, and one that fails names the hole.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcsweep.evaluator import Evaluator, GradeRequest, api, pool
from mcsweep.evaluator.sandbox import UID_BASE, SandboxError, grader_trees, linux
from mcsweep.evaluator.sandbox.limits import UID_BLOCKS

ONE_IO = json.dumps({"inputs": ["1 2\n"], "outputs": ["3\n"]})
FAILING = {"wrong_answer", "time_limit", "memory_limit", "runtime_error", "compile_error"}


def _uid_bases(ev: Evaluator) -> set[int]:
    """The uid blocks ``ev``'s zygotes hand out (one per zygote: base + run counter % 1000)."""
    return {slot.isolation.uid_base for slot in ev._all if slot.isolation.uid_switch}


def _sandbox_processes(bases: set[int]) -> list[int]:
    """Pids of processes running as a uid in one of ``bases``."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                uid = os.stat(f"/proc/{name}").st_uid
            except FileNotFoundError:
                continue
            if uid - uid % 1000 in bases:
                pids.append(int(name))
    return pids


def _host_tmp_dirs() -> set[str]:
    return {p for p in os.listdir("/tmp") if p.startswith("mcsweep-eval-")}


@pytest.fixture(scope="module")
def hostile() -> Iterator[Evaluator]:
    before = _host_tmp_dirs()
    ev = Evaluator(comparator="microcoder", workers=2, timeout_s=1.0, total_timeout_s=5.0)
    procs, bases = [slot.proc for slot in ev._all], _uid_bases(ev)
    yield ev
    ev.close()
    assert all(p.poll() is not None for p in procs), "a zygote outlived close()"
    assert _sandbox_processes(bases) == [], "sandboxed processes outlived the suite"
    assert _host_tmp_dirs() <= before, "working directories were left in /tmp"


def _project_env() -> dict[str, str]:
    """This environment with the project importable: for graders started in a process of their own."""
    return {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


def needs_isolation(ev: Evaluator) -> None:
    """Skip where the sandbox has no namespaces: neither root nor a user namespace of its own."""
    iso = ev.isolation
    if not ((iso.uid_switch or iso.user_namespace) and iso.mount_namespace and iso.net_namespace):
        pytest.skip(f"containment needs root or user namespaces here: {ev.isolation.errors}")


def run(ev: Evaluator, code: str, io: str = ONE_IO):
    return ev.grade(GradeRequest("hostile", code=code, input_output=io))


HOSTILE = {
    "fork_bomb": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    "fork_and_escape_group": "import os, time\nfor _ in range(4):\n"
    "    if os.fork() == 0:\n        os.setsid()\n"
    "        time.sleep(600)\nprint(0)\n",
    "memory_bomb": "a = []\nwhile True:\n    a.append(bytearray(10 ** 7))\n",
    "python_infinite_loop": "while True:\n    pass\n",
    "c_loop_alarm_cannot_interrupt": "import re, signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
    "re.match(r'(a+)+$', 'a' * 64 + 'b')\n",
    "c_blocking_call_signals_blocked": "import ctypes, signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, "
    "set(signal.Signals))\nctypes.CDLL(None).sleep(600)\n",
    "stdout_flood": "import sys\nwhile True:\n    sys.stdout.write('x' * 1000000)\n",
    "fd1_flood": "import os\nwhile True:\n    os.write(1, b'x' * 1000000)\n",
    "forged_reports_flood": "import os\nfor fd in range(3, 64):\n"
    "    try:\n        os.write(fd, b'{' * 10 ** 6)\n"
    "    except OSError:\n        pass\n",
    "os_exit_zero": "import os\nos._exit(0)\n",
    "replace_sys_stdout": "import sys, io\nsys.stdout = io.StringIO()\nprint(3)\n",
    "monkeypatch_grader_modules": "import json, os, builtins, resource\njson.dumps = lambda *a, **k: '3'\n"
    "os.write = lambda *a: 0\nresource.setrlimit = lambda *a: None\nbuiltins.print = lambda *a, **k: None\n",
    "keyboard_interrupt": "raise KeyboardInterrupt\n",
    "system_exit_zero_early": "raise SystemExit(0)\n",
    "custom_base_exception": "class Boom(BaseException):\n    pass\nraise Boom('bye')\n",
    "generator_exit": "raise GeneratorExit\n",
    "comparator_breaking_output": "print('sNaN')\n",
    "kill_the_parent": "import os, signal\nfor pid in (os.getppid(), 1, -1):\n"
    "    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGUSR1, signal.SIGTERM, signal.SIGSTOP, signal.SIGKILL):\n"
    "        try:\n            os.kill(pid, sig)\n"
    "        except OSError:\n            pass\nprint(0)\n",
}


# Without namespaces (a uid of its own or a PID namespace), kill(-1) from a solution would kill the test runner.
NEEDS_UID = {"kill_the_parent"}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_solution_fails_and_grader_survives(hostile, name):
    if name in NEEDS_UID:
        needs_isolation(hostile)
    result = run(hostile, HOSTILE[name])
    assert result.verdict in FAILING, (name, result)
    assert run(hostile, "a, b = map(int, input().split())\nprint(a + b)").passed


def test_no_two_live_zygotes_share_a_block_of_uids_and_no_run_sees_a_host_pid():
    """A zygote's runs took the uids of its pid's block, and its cgroup is named after that pid: both showed
    every run the host's pid counter, which a run moves by forking (the next grader's runs read how many
    times). Blocks are drawn at random, each claimed while its zygote lives, and runs see their cgroup as
    "/" (a cgroup namespace)."""
    assert UID_BASE + UID_BLOCKS * 1000 < 2**32 - 1
    with Evaluator(workers=2, timeout_s=2.0) as ev:
        if not ev.isolation.uid_switch:
            pytest.skip("runs have no uid of their own here")
        bases = [slot.isolation.uid_base for slot in ev._all]
        assert len(set(bases)) == 2 and all((b - UID_BASE) % 1000 == 0 for b in bases), bases
        for base in bases:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as taken, pytest.raises(OSError):
                taken.bind(f"\0mcsweep-eval-uids-{(base - UID_BASE) // 1000}")
        code = "print(all(line.endswith(':/') for line in open('/proc/self/cgroup').read().split()))"
        assert not ev.isolation.cgroup or probe(ev, code, "True").passed, run(ev, code).tests[0].error


def test_escaped_processes_are_killed(hostile):
    run(hostile, HOSTILE["fork_and_escape_group"])
    assert _sandbox_processes(_uid_bases(hostile)) == []


def test_hostile_call_based_monkeypatching_cannot_fake_a_result(hostile):
    io = json.dumps({"inputs": ["1"], "outputs": ["42"], "fn_name": "f"})
    code = (
        "import json\njson.dumps = lambda *a, **k: '42'\n"
        "class Solution:\n    def f(self, x):\n        return object()\n"
    )
    assert run(hostile, code, io).verdict == "wrong_answer"


def probe(ev: Evaluator, body: str, answer: str = "contained"):
    io = json.dumps({"inputs": [""], "outputs": [answer + "\n"]})
    return run(ev, body, io)


def test_files_outside_the_working_directory_cannot_be_written_or_deleted(hostile, tmp_path):
    needs_isolation(hostile)
    sentinel = tmp_path / "sentinel"
    sentinel.write_text("keep")
    targets = [
        str(tmp_path / "pwned"),
        "/etc/mcsweep-pwned",
        "/tmp/pwned",
        "../pwned",
        "/var/tmp/pwned",
        "/dev/shm/pwned",
        str(Path.cwd() / "pwned"),
    ]
    code = (
        "import os\nok = True\n"
        f"for t in {targets!r}:\n"
        "    try:\n        open(t, 'w').write('x')\n        ok = False\n    except OSError:\n        pass\n"
        f"for t in [{str(sentinel)!r}, '/etc/hostname', '/etc/passwd']:\n"
        "    try:\n        os.remove(t)\n        ok = False\n    except OSError:\n        pass\n"
        "open('inside.txt', 'w').write('fine')\n"
        "print('contained' if ok else 'escaped')\n"
    )
    assert probe(hostile, code).passed
    assert sentinel.read_text() == "keep"
    assert not (tmp_path / "pwned").exists() and not Path("/etc/mcsweep-pwned").exists()
    assert not (Path.cwd() / "pwned").exists()


def test_project_tree_and_home_are_hidden(hostile):
    needs_isolation(hostile)
    secret = str(Path(__file__).resolve())
    code = (
        "import os\nseen = []\n"
        f"for p in [{secret!r}, '/root/.bashrc', os.path.expanduser('~root')]:\n"
        "    try:\n        open(p).read(1)\n        seen.append(p)\n    except OSError:\n        pass\n"
        "print('contained' if not seen else seen)\n"
    )
    assert probe(hostile, code).passed


def test_project_tree_is_hidden_wherever_it_lives():
    """With no fixed hidden paths at all (a checkout outside /work, say), the project tree stays hidden."""
    with Evaluator(workers=1, timeout_s=1.0, hidden_paths=()) as ev:
        needs_isolation(ev)
        code = (
            f"import os\nfor p in [{str(Path(__file__).resolve())!r}, {os.getcwd()!r} + '/pyproject.toml']:\n"
            "    try:\n        open(p).read(1)\n        print(p)\n    except OSError:\n        pass\n"
            "print('contained')\n"
        )
        assert probe(ev, code).passed
        assert set(grader_trees(os.getcwd())) <= set(ev.isolation.hidden_paths)


def test_system_python_is_never_hidden():
    assert grader_trees("/") == grader_trees(sys.base_prefix) == grader_trees(os.path.dirname(sys.base_prefix))


def test_other_runs_files_cannot_be_read(hostile):
    needs_isolation(hostile)
    writer = "import time\nopen('mine.txt', 'w').write('secret')\ntime.sleep(0.8)\nprint('contained')\n"
    reader = (
        "import glob, os, time\ntime.sleep(0.3)\nfound = []\n"
        "for pattern in ['/tmp/*/*/mine.txt', '/tmp/*/*', '/tmp/*', '../*']:\n"
        "    for p in glob.glob(pattern):\n"
        "        try:\n            found.append(open(p).read())\n        except OSError:\n            pass\n"
        "print('contained' if 'secret' not in found else 'leaked')\n"
    )
    io = json.dumps({"inputs": [""], "outputs": ["contained\n"]})
    results = hostile.grade_many([GradeRequest(n, code=c, input_output=io) for n, c in (("w", writer), ("r", reader))])
    assert [r.passed for r in results] == [True, True]


def test_network_is_unreachable_even_to_the_hosts_loopback(hostile):
    needs_isolation(hostile)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        code = (
            "import socket\nok = True\n"
            f"for addr in [('127.0.0.1', {port}), ('1.1.1.1', 80), ('8.8.8.8', 53)]:\n"
            "    try:\n        socket.create_connection(addr, timeout=0.3)\n"
            "        ok = False\n    except OSError:\n"
            "        pass\nprint('contained' if ok else 'connected')\n"
        )
        assert probe(hostile, code).passed


def test_setuid_programs_cannot_raise_privileges(hostile):
    needs_isolation(hostile)
    code = (
        "import os, subprocess\nstatus = open('/proc/self/status').read()\n"
        "flag = [ln for ln in status.splitlines() if ln.startswith('NoNewPrivs')]\n"
        "uid = subprocess.run(['/usr/bin/env', 'id', '-u'], capture_output=True, text=True).stdout.strip()\n"
        "print('contained' if flag == ['NoNewPrivs:\\t1'] and uid != '0' and os.getuid() != 0 else status)\n"
    )
    assert probe(hostile, code).passed


def test_grader_memory_and_processes_are_out_of_reach(hostile):
    """Neither the grader's nor the zygote's memory, nor a signal to either. Without root the zygote is
    init of the runs' PID namespace: a signal to it is let through (kill(1, 0) succeeds) and dropped, and
    ``kill_the_parent`` shows the zygote survives the real ones."""
    needs_isolation(hostile)
    code = (
        "import os, signal\nok = True\n"
        f"for pid in [os.getppid(), {os.getpid()}]:\n"
        "    try:\n        open(f'/proc/{pid}/mem', 'rb').read(1)\n"
        "        ok = False\n    except OSError:\n        pass\n"
        "    try:\n        os.kill(pid, 0)\n        ok = pid == 1 and ok\n    except OSError:\n        pass\n"
        "print('contained' if ok else 'reached')\n"
    )
    assert probe(hostile, code).passed


NEEDLE = "ZQX7781SECRET"
# Scans every readable byte of its own memory for the expected output of another test. The regex never
# holds the needle as contiguous bytes, so only a real copy can match.
MEMORY_SCAN = r"""
import ctypes, re
pattern = re.compile(rb"Z(Q)X7781SECRET")
found = False
with open('/proc/self/maps') as maps:
    regions = [line.split() for line in maps]
for fields in regions:
    lo, hi = (int(x, 16) for x in fields[0].split('-'))
    name = fields[5] if len(fields) > 5 else ''
    special = name in ('[vvar]', '[vsyscall]', '[vvar_vclock]')
    if not fields[1].startswith('r') or special or hi - lo > 1 << 30:
        continue
    if pattern.search(ctypes.string_at(lo, hi - lo)):
        found = True
        break
import gc, sys
for obj in gc.get_objects():
    if isinstance(obj, dict) and any(isinstance(v, str) and 'Z' + 'QX7781' in v for v in obj.values()):
        found = True
frame = sys._getframe()
while frame:
    if any(isinstance(v, str) and 'Z' + 'QX7781' in v for v in frame.f_locals.values() if v is not frame):
        found = True
    frame = frame.f_back
print('found' if found else 'absent')
"""


def test_expected_outputs_never_reach_the_solutions_memory(hostile):
    io = json.dumps({"inputs": ["", ""], "outputs": ["absent\n", NEEDLE + "\n"]})
    result = run(hostile, MEMORY_SCAN, io)
    assert result.tests[0].verdict == "accepted", result
    assert not result.passed


def test_memory_scan_finds_what_the_child_does_hold(hostile):
    """Control for the test above: the same scan finds the needle when it is the test's input."""
    io = json.dumps({"inputs": [NEEDLE], "outputs": ["found\n"]})
    assert run(hostile, MEMORY_SCAN, io).passed


# ------------------------------------------------------------------ issue 14: attack classes -------


def io_of(inputs: list[str], outputs: list[str], **extra) -> str:
    return json.dumps({"inputs": inputs, "outputs": outputs, **extra})


# Class 1: work outside a test's own time, state across tests, other tests' inputs within reach.
LATER_INPUT = "LATERINPUT9931"
SCAN_FDS_AND_MEMORY = MEMORY_SCAN.replace("Z(Q)X7781SECRET", "L(A)TERINPUT9931").replace(
    "'Z' + 'QX7781'", "'L' + 'ATERINPUT'"
) + (
    "import os\nfor fd in os.listdir('/proc/self/fd'):\n"
    "    try:\n        if b'LATERINPUT' in os.pread(int(fd), 1 << 16, 0):\n            print('found')\n"
    "    except OSError:\n        pass\n"
)


def test_a_test_cannot_read_a_later_tests_input(hostile):
    io = io_of(["", LATER_INPUT], ["absent\n", "absent\n"])
    result = run(hostile, SCAN_FDS_AND_MEMORY, io)
    assert result.tests[0].verdict == "accepted", result


STASHES = ("../stash", "../locked/stash", "/tmp/stash", "/dev/shm/stash", "/dev/stash")
"""Where a run might leave a file for the next, beside its own directory (which runs that share a uid
own) as well as in it."""


def test_nothing_survives_from_one_test_to_the_next(hostile):
    """Module state, daemon threads, files (in its directory or anywhere a run can write, in any mode)
    and helper processes of test 0 are all gone in test 1."""
    code = (
        "import builtins, contextlib, os, socket, sys, threading, time\n"
        "first = sys.stdin.read().strip() == 'first'\n"
        "if first:\n"
        "    builtins.stash = 1\n"
        "    threading.Thread(target=lambda: setattr(sys, 'precomputed', 1) or time.sleep(60), daemon=True).start()\n"
        "    open('mark', 'w').write('x')\n"
        "    with contextlib.suppress(OSError):\n"
        "        os.chmod('..', 0o777)\n"
        "        os.mkdir('../locked')\n"
        f"    for path in {STASHES!r}:\n"
        "        with contextlib.suppress(OSError):\n"
        "            open(path, 'w').write('x')\n"
        "    with contextlib.suppress(OSError):\n"
        "        os.chmod('../locked', 0)\n"
        "    if os.fork() == 0:\n"
        "        s = socket.socket(socket.AF_UNIX)\n"
        "        s.bind('\\0mcsweep-helper')\n"
        "        s.listen()\n"
        "        time.sleep(60)\n"
        "    time.sleep(0.3)\n"
        "    print('fresh')\n"
        "else:\n"
        "    left = [hasattr(builtins, 'stash'), hasattr(sys, 'precomputed'), os.path.exists('mark')]\n"
        f"    left += [os.path.lexists(p) for p in {(*STASHES, '../locked')!r}]\n"
        "    try:\n"
        "        socket.socket(socket.AF_UNIX).connect('\\0mcsweep-helper')\n"
        "        left.append(True)\n"
        "    except OSError:\n"
        "        pass\n"
        "    print('fresh' if not any(left) else left)\n"
    )
    result = run(hostile, code, io_of(["first", "second"], ["fresh\n", "fresh\n"]))
    assert result.passed, result


def test_cpu_of_helper_processes_is_charged_to_the_test():
    """Four processes spinning in parallel for 0.6 s each: 2.4 s of CPU in a 1 s test."""
    code = (
        "import os, time\npids = []\n"
        "for _ in range(4):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        end = time.process_time() + 0.6\n"
        "        while time.process_time() < end:\n            pass\n"
        "        os._exit(0)\n"
        "    pids.append(pid)\n"
        "for pid in pids:\n    os.waitpid(pid, 0)\nprint(3)\n"
    )
    with Evaluator(workers=1, timeout_s=1.0) as ev:
        if not ev.isolation.cgroup:
            pytest.skip(f"no cgroup here: {ev.isolation.warnings}")
        result = run(ev, code, ONE_IO)
    assert result.verdict == "time_limit", result


# Class 2: memory of the whole process tree, files in the run's tmpfs included.
@pytest.fixture(scope="module")
def small_memory() -> Iterator[Evaluator]:
    with Evaluator(workers=1, timeout_s=3.0, memory_mb=256) as ev:
        if not ev.isolation.cgroup:
            pytest.skip(f"no cgroup here: {ev.isolation.warnings}")
        yield ev


@pytest.mark.parametrize(
    "code",
    [
        "import os, time\nfor _ in range(4):\n    if os.fork() == 0:\n        a = bytearray(150 << 20)\n"
        "        a[::4096] = b'x' * len(a[::4096])\n        time.sleep(2)\n        os._exit(0)\n"
        "time.sleep(1.5)\nprint(3)\n",
        "for k in range(12):\n    with open(f'f{k}', 'wb') as f:\n        f.write(b'x' * (30 << 20))\nprint(3)\n",
    ],
    ids=["forked_workers", "tmpfs_files"],
)
def test_memory_limit_covers_the_whole_tree_and_its_files(small_memory, code):
    result = run(small_memory, code)
    assert result.verdict in FAILING, result
    assert run(small_memory, "print(sum(map(int, input().split())))").passed


# Class 3: IPC objects shared between runs, and memory that no rlimit sees.
IPC = "import ctypes, errno\nlibc = ctypes.CDLL(None, use_errno=True)\nKEY = 0x6d637377\n"


def _host_ipc() -> dict[str, list[str]]:
    return {k: open(f"/proc/sysvipc/{k}").read().splitlines()[1:] for k in ("shm", "msg", "sem")}


def _charged_mb(ev: Evaluator) -> int:
    """What the memory cgroup of ``ev``'s one slot has charged now, in MiB."""
    for path in ev.isolation.cgroup_paths:
        for name in ("memory.usage_in_bytes", "memory.current"):
            if os.path.exists(os.path.join(path, name)):
                return int(Path(path, name).read_text()) >> 20
    raise AssertionError(f"no memory cgroup among {ev.isolation.cgroup_paths}")


def test_a_run_leaves_no_page_cache_charged_to_the_next_ones_memory(small_memory):
    """The host files a run reads into the page cache stay charged to the slot's memory cgroup after every
    task of the run is gone: the next run had to reclaim them within its own time and limit (after a run
    that read 1 GB of /usr, a 900 MB allocation took 1.3-1.8 s instead of 0.5-0.9 s). The zygote gives
    them back before it tells the run's end: at most its allowance and the output cap stay charged."""
    from mcsweep.evaluator.sandbox.cgroups import ZYGOTE_ALLOWANCE

    size = 200 << 20
    target = _unread_host_file()
    if target is None:
        pytest.skip("no writable host directory outside the covered ones to put a file in")
    try:
        os.truncate(target, size)  # sparse: reading its holes fills the page cache, writing nothing to disk
        code = f"with open({str(target)!r}, 'rb') as f:\n    print(len(f.read()))"
        assert probe(small_memory, code, str(size)).passed
        bound = (ZYGOTE_ALLOWANCE >> 20) + small_memory.limits.output_mb + 8
        assert _charged_mb(small_memory) < bound
    finally:
        target.unlink()


def test_ipc_objects_neither_cross_runs_nor_outlive_them(hostile):
    """System V objects cannot be made at all, nor POSIX message queues (no queue bytes: the quota is the
    uid's, the grader's without root); one made anyway would live in the run's IPC namespace."""
    needs_isolation(hostile)
    before = _host_ipc()
    plant = IPC + (
        "made = [libc.shmget(KEY, 4096, 0o1666), libc.msgget(KEY, 0o1666), libc.semget(KEY, 1, 0o1666)]\n"
        "made = [m >= 0 for m in made]\n"
        "queue = libc.mq_open(b'/mcsweep', 0o100 | 0o1, 0o666, None)\n"
        "print('contained' if not any(made) and queue < 0 else (made, queue, ctypes.get_errno()))\n"
    )
    look = IPC + (
        "found = [libc.shmget(KEY, 0, 0) >= 0, libc.msgget(KEY, 0) >= 0, libc.semget(KEY, 0, 0) >= 0]\n"
        "found.append(libc.mq_open(b'/mcsweep', 0o1, 0, None) >= 0)\n"
        "print('contained' if not any(found) else found)\n"
    )
    assert probe(hostile, plant).passed
    assert probe(hostile, look).passed
    assert _host_ipc() == before
    assert hostile.isolation.ipc_namespace


def test_memory_that_no_rlimit_sees_cannot_be_made(hostile):
    """memfds, System V segments, messages and semaphores, and pages given to a pipe (vmsplice: a huge page
    held whole per slot of a pipe grown to 1 MiB) hold memory no process maps, so RLIMIT_AS misses it:
    without a memory cgroup (a grader without root) a run held about 1 GB under a 128 MB limit each way,
    which the host's OOM killer charges to no process of the run. Each is denied, and so is growing a
    pipe (its pages count per uid: without root, one run's full quota stopped the grader's pipes growing)."""
    needs_isolation(hostile)
    if os.uname().machine != "x86_64":
        pytest.skip("the probe calls memfd_secret by its x86_64 number")
    code = IPC + (
        "import os\ngot = []\n"
        "for name, call in [\n"
        "    ('memfd_create', lambda: libc.memfd_create(b'x', 0)),\n"
        "    ('memfd_secret', lambda: libc.syscall(447, 0)),\n"
        "    ('shmget', lambda: libc.shmget(0, 1 << 20, 0o1600)),\n"
        "    ('msgget', lambda: libc.msgget(0, 0o1600)),\n"
        "    ('semget', lambda: libc.semget(0, 1, 0o1600)),\n"
        "    ('vmsplice', lambda: libc.syscall(278, -1, None, 0, 0)),\n"  # EBADF where it is allowed
        "    ('pipe_size', lambda: libc.fcntl(os.pipe()[1], 1031, 1 << 20)),\n"
        "]:\n"
        "    ok = call() >= 0\n"
        "    got.append(name + (' made' if ok else ' ' + errno.errorcode.get(ctypes.get_errno(), '?')))\n"
        "print(', '.join(got))\n"
    )
    answer = (
        "memfd_create EPERM, memfd_secret EPERM, shmget EPERM, msgget EPERM, semget EPERM, vmsplice EPERM, "
        "pipe_size EPERM"
    )
    assert probe(hostile, code, answer).passed, run(hostile, code).tests[0].error
    assert {"memfd_create", "shmget", "msgget", "semget", "vmsplice"} <= set(hostile.isolation.seccomp)


def test_no_run_can_change_the_limits_of_another_process(hostile):
    """prlimit on another process needs only its uid: without a uid per run, a run lowered the limits of its
    zygote (pid 1 of its namespace, the run's uid), and every later run on the slot inherited them (a stack
    too small for the next solution's recursion; too few descriptors for any run to start). Its own limits
    a run may still set."""
    needs_isolation(hostile)
    code = (
        "import errno, os, resource\ngot = []\n"
        "for pid in (1, os.getppid(), os.getpid()):\n"
        "    try:\n        resource.prlimit(pid, resource.RLIMIT_STACK, (1 << 16, 1 << 16))\n"
        "        got.append('changed')\n"
        "    except OSError as err:\n        got.append(errno.errorcode[err.errno])\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16))\n"
        "print(' '.join(got), resource.getrlimit(resource.RLIMIT_NOFILE)[0])\n"
    )
    assert probe(hostile, code, "EPERM EPERM EPERM 16").passed, run(hostile, code).tests[0].error
    deep = "import sys\nsys.setrecursionlimit(10 ** 6)\ndef f(n):\n    return n and 1 + f(n - 1)\nprint(f(3000) - 2997)"
    assert all(run(hostile, deep).passed for _ in hostile._all)


def test_a_crash_reaches_no_core_handler_of_the_host(hostile):
    """A core_pattern that pipes (systemd-coredump, apport: most distributions' default) ignores a core limit
    of 0: a run that made itself dumpable and crashed started the handler as root in the host's namespaces
    and piped it its memory (222 MB a crash, either mode, with a handler of ours in core_pattern). The
    kernel skips a piped dump only for a soft limit of exactly 1; runs get 1 (too small for a core file)
    and cannot change it, to 0 least of all."""
    needs_isolation(hostile)
    code = (
        "import errno, resource\nC = resource.RLIMIT_CORE\ngot = [resource.getrlimit(C)]\n"
        "for call in (lambda: resource.setrlimit(C, (0, 1)), lambda: resource.prlimit(0, C, (0, 0))):\n"
        "    try:\n        call()\n        got.append('lowered')\n"
        "    except OSError as err:\n        got.append(errno.errorcode[err.errno])\n"
        "    except ValueError:\n        got.append('refused')\n"  # Python's word for setrlimit's EPERM
        "got.append(resource.prlimit(0, C))\nprint(*got)\n"
    )
    assert probe(hostile, code, "(1, 1) refused EPERM (1, 1)").passed, run(hostile, code).tests[0].error


def test_a_zygote_that_cannot_set_up_runs_is_replaced_and_its_solution_is_a_sandbox_error():
    """A run's setup that fails before the solution runs is the sandbox's failure: that solution gets
    ``sandbox_error`` and the slot a fresh zygote, so a zygote left unable to start runs (its descriptor
    limit lowered below a run's) fails one solution, not every later one as its own runtime error."""
    with Evaluator(workers=1, timeout_s=2.0) as ev:
        slot = ev._all[0]
        inner = Path(f"/proc/{slot.proc.pid}/task/{slot.proc.pid}/children").read_text().split()
        zygote = int(inner[0]) if ev.isolation.pid_namespace else slot.proc.pid  # init of its PID namespace
        resource.prlimit(zygote, resource.RLIMIT_NOFILE, (32, 32))
        results = ev.grade_many([GradeRequest(str(k), code="print(3)", input_output=ONE_IO) for k in range(3)])
        verdicts = [r.verdict for r in results]
        assert verdicts.count("sandbox_error") == 1 and verdicts[-1] == "accepted", verdicts
        assert ev.sandbox_errors == 1 and ev._all[0] is not slot


def test_sys_is_read_only_for_runs_that_share_the_graders_uid(hostile):
    """Without a uid per run, a run has the grader's uid: in a cgroup delegated to that user (systemd's user
    slices, a rootless container) it froze the grader and itself through /sys (cgroup.freeze, freezer.state)
    and could kill the trainer (cgroup.kill). Every mount under the runs' /sys is read-only then."""
    needs_isolation(hostile)
    if hostile.isolation.uid_switch:
        pytest.skip("runs have a uid of their own: nothing in /sys is theirs to write")
    code = (
        "rw = [f[4] for f in (line.split() for line in open('/proc/self/mountinfo'))\n"
        "      if (f[4] == '/sys' or f[4].startswith('/sys/')) and 'ro' not in f[5].split(',')]\n"
        "print('contained' if not rw else rw)\n"
    )
    assert probe(hostile, code).passed, run(hostile, code).tests[0].error


# Class 4: a returned value forging the tag of another type.
@pytest.mark.parametrize(
    ("returned", "expected"),
    [
        ('{"$tuple": [1, 2]}', "[1, 2]"),
        ('{"$set": [1, 2]}', "[1, 2]"),
        ('[{"$tuple": [1]}]', "[[1]]"),
    ],
)
def test_returned_dicts_cannot_forge_the_tags(hostile, returned, expected):
    io = io_of(["1"], [expected], fn_name="f", order_irrelevant=True)
    code = f"class Solution:\n    def f(self, x):\n        return {returned}\n"
    assert run(hostile, code, io).verdict == "wrong_answer"


# Class 5: exit status as CPython really reports it.
EXIT_CODES = ["0", "None", "0.0", "False", "True", "256", "-256", "512 + 1", "2 ** 64", "'0'", "[]", "Zero(0)"]
ZERO = "class Zero(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n"


@pytest.mark.parametrize("expr", EXIT_CODES)
def test_exit_status_is_the_interpreters(hostile, expr):
    code = f"{ZERO}print(3)\nraise SystemExit({expr})\n"
    real = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False).returncode
    assert run(hostile, code).passed == (real == 0), (expr, real)


# Class 6: the grader's command line, environment and open files.
def test_grader_argv_environment_and_files_are_out_of_sight(hostile, tmp_path):
    needs_isolation(hostile)
    code = (
        "import os\nseen = []\n"
        f"for pid in [{os.getpid()}, os.getppid(), 1]:\n"
        "    for what in ('cmdline', 'environ', 'fd', 'maps'):\n"
        "        try:\n            p = f'/proc/{pid}/{what}'\n"
        "            os.listdir(p) if what == 'fd' else open(p, 'rb').read(1)\n"
        "            seen.append(p)\n"
        "        except OSError:\n            pass\n"
        "others = [p for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()]\n"
        "me = open('/proc/self/cmdline', 'rb').read()\n"
        "print('contained' if not seen and not others and b'hidden' not in me else (seen, others[:5], me))\n"
    )
    assert probe(hostile, code).passed


# Class 7: nothing a solution does ends the batch; an unexpected error is that solution's verdict.
def test_death_by_a_real_time_signal_is_a_runtime_error(hostile):
    result = run(hostile, "import os, signal\nos.kill(os.getpid(), signal.SIGRTMIN + 3)\n")
    assert (result.verdict, result.tests[0].error) == ("runtime_error", "killed by SIGRTMIN+3"), result


def test_a_deep_directory_tree_is_cleaned_up(hostile):
    code = "import os\nfor _ in range(3000):\n    os.mkdir('d')\n    os.chdir('d')\nprint('contained')\n"
    assert probe(hostile, code).passed
    assert run(hostile, "print(sum(map(int, input().split())))").passed
    assert hostile.sandbox_errors == 0


def test_a_sandbox_failure_is_the_solutions_verdict_and_the_batch_goes_on():
    with Evaluator(workers=1, timeout_s=1.0) as ev:
        ev._all[0].proc.kill()  # the zygote dies under the grader
        ev._all[0].proc.wait()
        results = ev.grade_many([GradeRequest(str(k), code="print(3)", input_output=ONE_IO) for k in range(3)])
        assert [r.verdict for r in results] == ["sandbox_error", "accepted", "accepted"]
        assert ev.sandbox_errors == 1


def test_a_zygote_that_will_not_start_again_fails_one_solution_and_the_evaluator_goes_on(monkeypatch):
    """After a sandbox error the worker's zygote is started afresh; where that start fails too, that job
    is a sandbox_error and the next one tries again. The closed zygote was put back in the pool before,
    and every later batch raised (the reward of every training step after it)."""
    real, starts = api.Slot, []

    def start_failing_once(*args, **kwargs):
        starts.append(1)
        if len(starts) == 1:
            raise SandboxError("zygote did not start (injected)")
        return real(*args, **kwargs)

    with Evaluator(workers=1, timeout_s=1.0) as ev:
        ev._all[0].proc.kill()  # the zygote dies under the grader
        ev._all[0].proc.wait()
        monkeypatch.setattr(api, "Slot", start_failing_once)
        requests = [GradeRequest(str(k), code="print(3)", input_output=ONE_IO) for k in range(3)]
        assert [r.verdict for r in ev.grade_many(requests)] == ["sandbox_error", "sandbox_error", "accepted"]
        assert [r.verdict for r in ev.grade_many(requests)] == ["accepted"] * 3
        assert ev.sandbox_errors == 2 and len(ev._all) == 1 and len(starts) == 2


def test_a_report_line_of_the_wrong_shape_is_the_solutions_error_not_the_sandboxs(hostile):
    """A status that is no string (a list raised TypeError in the lookup) made every such solution a
    sandbox_error and a zygote restart, at the solution's choosing."""
    before = hostile.sandbox_errors
    for status in ([], {}, 1, None):
        result = run(hostile, "print(3)\n" + forge_line(status) + "import os\nos._exit(0)\n")
        assert result.verdict == "runtime_error", (status, result)
    assert hostile.sandbox_errors == before


def test_a_report_written_a_byte_at_a_time_costs_the_grader_one_wake_up_per_pace(monkeypatch):
    """A child wrote its report a byte at a time, each once the grader had read the last, and was accepted
    (the bytes were spaces before its real line): a grader thread woke once per byte for the whole wall
    time, and an honest solution beside it went past its limit. The reader now waits ``PACE_S`` after a
    short piece without a line end, so its reads are bounded by the time taken, whatever the child does
    (the old reader read once per byte here: thousands of reads in 0.3 s)."""
    ours, theirs = socket.socketpair()
    reads = []
    real_read = os.read

    def counted(fd: int, n: int) -> bytes:
        reads.append(n)
        return real_read(fd, n)

    def trickle() -> None:
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            theirs.send(b" ")
            while fcntl.ioctl(ours.fileno(), termios.FIONREAD, b"\0\0\0\0") != b"\0\0\0\0":
                time.sleep(0)  # until the grader has read it: one byte per read
        theirs.send(b'{"status": "compiled"}\n{"status": "ok"}\n')

    monkeypatch.setattr(pool.os, "read", counted)
    writer = threading.Thread(target=trickle)
    start = time.monotonic()
    writer.start()
    lines, short = pool.read_report(ours.fileno(), 1 << 16, 5.0)
    took = time.monotonic() - start
    writer.join()
    ours.close()
    theirs.close()
    assert short == "" and [line.strip() for line in lines] == [b'{"status": "compiled"}', b'{"status": "ok"}']
    assert len(reads) <= took / pool.PACE_S + 10, (len(reads), took)


def test_a_flood_behind_the_first_report_line_does_not_hide_it(hostile):
    """The child's first line and a flood past the report cap arrived in one read; the cap was checked
    before lines were split off, so the first line was lost and the solution, exiting with the sandbox's
    setup-failure status, was the sandbox's failure: a sandbox_error and a zygote restart at its choosing
    (6-37 of 100 tries). Whole lines count before the cap does."""
    ours, theirs = socket.socketpair()
    theirs.sendall(b'{"status": "compiled"}\n' + b"x" * 70_000)
    theirs.close()
    assert pool.read_report(ours.fileno(), 1 << 16, 5.0) == ([b'{"status": "compiled"}'], "overflow")
    ours.close()
    before = hostile.sandbox_errors
    code = (
        "import os, stat\nfor fd in range(3, 64):\n    try:\n        if stat.S_ISSOCK(os.fstat(fd).st_mode):\n"
        "            os.write(fd, b'x' * 70000)\n    except OSError:\n        pass\nos._exit(70)\n"
    )
    verdicts = {run(hostile, code).verdict for _ in range(20)}
    assert verdicts == {"runtime_error"} and hostile.sandbox_errors == before, verdicts


URGENT_THEN_SLEEP = (
    "import os, socket, stat, time\nfor fd in range(3, 64):\n    try:\n"
    "        if stat.S_ISSOCK(os.fstat(fd).st_mode):\n"
    "            s = socket.socket(fileno=fd)\n            s.send(b'x', socket.MSG_OOB)\n            s.detach()\n"
    "    except OSError:\n        pass\ntime.sleep({sleep})\nprint(3)\n"
)


def test_an_urgent_byte_on_the_report_channel_cannot_hold_the_grader_past_the_wall_limit(hostile):
    """An urgent byte (``send(MSG_OOB)``, unix stream sockets since Linux 5.15) makes the grader's end
    readable for ``poll`` while a plain read finds no data and, blocking, waited for the child's next byte:
    a solution that sent one and slept held its grader thread for as long as it slept, past the wall and
    total limits (a 1 s test held it 20 s; sleeping forever, forever, and the batch with it). The grader's
    end is read without blocking, urgent bytes inline, so the wall limit holds and an urgent byte is a
    write to the report channel like any other."""
    start = time.monotonic()
    result = run(hostile, URGENT_THEN_SLEEP.format(sleep=10))
    took = time.monotonic() - start
    assert result.verdict == "time_limit" and took < 4.0, (result, took)
    before = hostile.sandbox_errors  # the byte lands before the outcome line: the solution's own doing
    assert run(hostile, URGENT_THEN_SLEEP.format(sleep=0)).verdict == "runtime_error"
    assert hostile.sandbox_errors == before
    for after in (b"", b'{"status": "ok"}\n'):
        child_fds, grader_fds = linux.run_fds()  # the channel as a run gets it
        theirs = socket.socket(fileno=child_fds[1])
        theirs.send(b'{"status": "compiled"}\n')
        theirs.send(b"x", socket.MSG_OOB)
        if after:
            theirs.send(after)
        start = time.monotonic()
        got = pool.read_report(grader_fds[1], 1 << 16, 0.5)
        assert time.monotonic() - start < 2.0, got
        second = [b'x{"status": "ok"}'] if after else []
        assert got == ([b'{"status": "compiled"}', *second], "" if after else "timeout")
        theirs.close()
        linux.close_all([child_fds[0], child_fds[2], *grader_fds])


def test_a_program_the_graders_process_starts_holds_no_descriptor_of_a_run():
    """The grader received each run's descriptors (payload pipe, report socket, output memfd) without
    close-on-exec, so a program its process started while a run was pending (``os.system``, a spawn that
    keeps descriptors) held the payload pipe's write end: the child, reading its payload to the end, waited
    for that program, and an honest solution was a time_limit. A process forked without exec held them too."""
    with Evaluator(workers=1, timeout_s=1.0, total_timeout_s=3.0) as ev:
        code = "a, b = map(int, input().split())\nprint(a + b)\n"
        assert run(ev, code).passed
        pending = ev._all[0].pending
        assert pending is not None and all(not os.get_inheritable(fd) for fd in vars(pending[1]).values())
        helper = subprocess.Popen(["sleep", "4"], close_fds=False)
        try:
            assert run(ev, code).passed
        finally:
            helper.kill()
            helper.wait()
        forked = os.fork()  # a helper forked without exec (multiprocessing's default on Linux)
        if forked == 0:
            time.sleep(4)
            os._exit(0)
        try:
            assert run(ev, code).passed
        finally:
            os.kill(forked, signal.SIGKILL)
            os.waitpid(forked, 0)


def test_no_run_reads_a_counter_of_the_runs_before_it(hostile):
    """Counters the kernel hands out once tell how many runs came before, and socket cookies are a store:
    per CPU, moved by nothing else, so a run set its CPU's to its test's index with as many sockets and a
    later run on that CPU (another grader's too) read it exactly. Denied: SO_COOKIE and SO_NETNS_COOKIE,
    the namespace id ioctls, statx's unique mount id, statmount."""
    needs_isolation(hostile)
    code = (
        "import ctypes, errno, fcntl, os, socket\ngot = []\ns = socket.socket(socket.AF_UNIX)\n"
        "for opt in (57, 71):\n    try:\n        s.getsockopt(socket.SOL_SOCKET, opt, 8)\n"
        "        got.append('read')\n    except OSError as e:\n        got.append(errno.errorcode[e.errno])\n"
        "fd = os.open('/proc/self/ns/ipc', os.O_RDONLY)\n"
        "try:\n    fcntl.ioctl(fd, 0xB701, 0)\n    got.append('read')\n"
        "except OSError as e:\n    got.append(errno.errorcode[e.errno])\n"
        "libc = ctypes.CDLL(None, use_errno=True)\nbuf = ctypes.create_string_buffer(256)\n"
        "for mask in (0x4000, 0x7FF):\n    r = libc.statx(-100, b'.', 0, mask, buf)\n"
        "    got.append(errno.errorcode[ctypes.get_errno()] if r else 'read')\n"
        "libc.syscall(457, 0, 0, 0, 0)\ngot.append(errno.errorcode[ctypes.get_errno()])\nprint(got)\n"
    )
    want = "['EPERM', 'EPERM', 'EPERM', 'EPERM', 'read', 'EPERM']"
    assert probe(hostile, code, want).passed, run(hostile, code).tests[0].error


def test_a_run_cannot_use_up_a_per_uid_quota_it_would_share_with_the_grader(hostile):
    """Queued signals are counted per uid through the user namespaces: without root a run's uid is the
    grader's, and one run that queued ~96k blocked real-time signals left the grader none (timer_create
    failed with EAGAIN). A run's own limits bound what it adds: 64 signals, no message queue bytes, no
    locked memory."""
    code = (
        "import os, resource, signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})\n"
        "for _ in range(1000):\n    os.kill(os.getpid(), signal.SIGRTMIN)\n"
        "[queued] = [line.split()[1] for line in open('/proc/self/status') if line.startswith('SigQ')]\n"
        "count, limit = map(int, queued.split('/'))\n"
        "limits = [resource.getrlimit(r)[1] for r in (resource.RLIMIT_MSGQUEUE, resource.RLIMIT_MEMLOCK)]\n"
        "print(count <= 64, limit, limits)\n"
    )
    assert probe(hostile, code, "True 64 [0, 0]").passed, run(hostile, code).tests[0].error


def test_a_run_cannot_schedule_itself_above_the_grader(hostile):
    """Scheduling limits are inherited: under a grader started with realtime or nice allowances, a run
    could take SCHED_FIFO or nice -20 and starve the grader's CPU and its zygote's. Both limits are 0 (on
    this machine the grader's are 0 too, so this guards the setting, not a difference seen here)."""
    code = (
        "import os, resource\ngot = [resource.getrlimit(r) for r in (resource.RLIMIT_RTPRIO, resource.RLIMIT_NICE)]\n"
        "for call in (lambda: os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1)),\n"
        "             lambda: os.setpriority(os.PRIO_PROCESS, 0, -5)):\n"
        "    try:\n        call()\n        got.append('allowed')\n    except PermissionError:\n"
        "        got.append('EPERM')\nprint(got)\n"
    )
    assert probe(hostile, code, "[(0, 0), (0, 0), 'EPERM', 'EPERM']").passed, run(hostile, code).tests[0].error


def test_each_run_is_the_oom_killers_first_pick(hostile):
    """Without root a zygote's child is not dumpable, so its /proc files were root's and its write of 1000
    to oom_score_adj failed, unsaid: runs kept the grader's score, and the host's OOM killer took the
    trainer beside a grader whose run had filled the memory."""
    assert probe(hostile, "print(open('/proc/self/oom_score_adj').read().strip())", "1000").passed


def test_a_run_cannot_lower_its_oom_score_again(hostile):
    """Dumpable again (prctl, or any exec), a run's /proc files are its own to write: it set its
    oom_score_adj back to 0, in both modes, and the host's OOM killer took a 700 MB trainer beside a run
    that filled the memory. Runs open files for writing only beneath their directory and /dev (Landlock)."""
    needs_isolation(hostile)
    assert hostile.isolation.landlock, hostile.isolation.warnings
    code = (
        "import ctypes\nctypes.CDLL(None).prctl(4, 1, 0, 0, 0)\ngot = []\n"
        "for path in ('/proc/self/oom_score_adj', 'here', '/dev/null', '/dev/stdout'):\n"
        "    try:\n        with open(path, 'w') as f:\n            f.write('0' if 'oom' in path else '')\n"
        "        got.append('wrote')\n    except OSError as e:\n        got.append(e.strerror)\n"
        "print(got, open('/proc/self/oom_score_adj').read().strip())\n"
    )
    want = "['Permission denied', 'wrote', 'wrote', 'wrote'] 1000"
    assert probe(hostile, code, want).passed, run(hostile, code).tests[0].error


def test_an_output_far_longer_than_the_expected_one_or_not_utf8_is_wrong_unread(hostile):
    """32 MiB of invalid UTF-8 after one 4-byte character decoded to 128 MB of text (every character 4
    bytes) and cost the grader 2 s of CPU a test; two at once took it to 532 MB. An output longer than 16x
    the expected one plus 1 MiB is wrong before it is read, and one that is not UTF-8 wrong undecoded."""
    padded = "import sys\nsys.stdout.write('contained' + ' ' * (2 << 20) + '\\n')\n"
    result = probe(hostile, padded)
    assert (result.verdict, result.tests[0].error) == ("wrong_answer", "output far longer than the expected one")
    assert probe(hostile, "import sys\nsys.stdout.write('contained' + ' ' * (1 << 19) + '\\n')\n").passed
    result = probe(hostile, "import sys\nsys.stdout.buffer.write(b'contained\\xff\\n')\n")
    assert result.verdict == "wrong_answer" and result.tests[0].error.startswith("output is not UTF-8"), result


# Class 9: descriptors past 1024 in the grader.
def test_grading_works_with_descriptor_numbers_past_1024(hostile):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
    fds = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        assert run(hostile, "print(sum(map(int, input().split())))").passed
    finally:
        for fd in fds:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


# Class 10: a syscall filter behind the other layers.
def test_namespaces_mounts_ptrace_keyrings_and_bpf_are_denied(hostile):
    needs_isolation(hostile)
    code = (
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nok = []\n"
        "for name, call in [\n"
        "    ('userns', lambda: libc.unshare(0x10000000)),\n"
        "    ('mountns', lambda: libc.unshare(0x00020000)),\n"
        "    ('mount', lambda: libc.mount(b'none', b'.', b'tmpfs', 0, None)),\n"
        "    ('ptrace', lambda: libc.ptrace(0, 0, None, None)),\n"
        "    ('keyctl', lambda: libc.syscall(250, 0, -3, 0, 0, 0)),\n"
        "    ('bpf', lambda: libc.syscall(321, 0, None, 0)),\n"
        "    ('io_uring', lambda: libc.syscall(425, 1, ctypes.create_string_buffer(120))),\n"
        "    ('clone_newuser', lambda: libc.syscall(56, 0x10000000 | 17, None, None, None, None)),\n"
        "]:\n"
        "    if call() >= 0:\n        ok.append(name)\n"
        "        if name == 'clone_newuser' and os.getpid() != os.getpid():\n            os._exit(0)\n"
        "print('contained' if not ok else ok)\n"
    )
    assert probe(hostile, code).passed
    assert {"unshare", "mount", "ptrace", "keyctl", "bpf", "io_uring_setup"} <= set(hostile.isolation.seccomp)


def test_host_wide_disk_flushes_are_denied(hostile):
    """sync and syncfs flush every filesystem of the host (a run's own files are on a tmpfs): in a loop, a
    solution made the trainer and other graders wait on the disk (158 host-wide syncs in 0.5 s). They
    fail; fsync of its own file works."""
    needs_isolation(hostile)
    if os.uname().machine != "x86_64":
        pytest.skip("the probe calls sync and syncfs by their x86_64 numbers")
    code = (
        "import ctypes, errno, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "fd = os.open('f', os.O_CREAT | os.O_WRONLY)\nos.write(fd, b'x')\nos.fsync(fd)\ngot = ['fsync ok']\n"
        "for name, args in [('sync', (162,)), ('syncfs', (306, fd))]:\n"
        "    rc = libc.syscall(*args)\n"
        "    got.append(name + (' ok' if rc == 0 else ' ' + errno.errorcode.get(ctypes.get_errno(), '?')))\n"
        "print(', '.join(got))\n"
    )
    assert probe(hostile, code, "fsync ok, sync EPERM, syncfs EPERM").passed
    assert {"sync", "syncfs"} <= set(hostile.isolation.seccomp)


def _device_flushes(path: str) -> int | None:
    """Cache flushes the disk holding ``path`` has completed (``/sys/block/*/stat``, field 16), or None where
    they cannot be counted or never reach it (no block device, a write-through cache drops them)."""
    dev = os.stat(path).st_dev
    block = Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}")
    if (block / "partition").exists():
        block = block.resolve().parent
    try:
        fields = (block / "stat").read_text().split()
        cache = (block / "queue" / "write_cache").read_text().strip()
    except OSError:
        return None
    return int(fields[15]) if len(fields) > 15 and cache == "write back" else None


def test_flushes_of_host_files_a_run_can_only_read_never_reach_the_disk(hostile):
    """Round 15: the host's files are bound read-only, but the filesystem under them is writable, and ext4
    answers fsync or fdatasync of a file with nothing to write (and msync with MS_SYNC of a shared mapping
    of it) with a cache flush of the whole disk: a run calling fsync on /usr/lib/os-release in a loop sent it
    37k flushes in 2.5 s (none at rest), as sync and syncfs did. They succeed without effect now."""
    needs_isolation(hostile)
    before = _device_flushes("/usr/lib/os-release")
    if before is None:
        pytest.skip("the disk under /usr counts no cache flushes here")
    code = (
        "import ctypes, os, time\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.mmap.restype = ctypes.c_void_p\n"
        "c = ctypes\nlibc.mmap.argtypes = [c.c_void_p, c.c_size_t, c.c_int, c.c_int, c.c_int, c.c_long]\n"
        "libc.msync.argtypes = [c.c_void_p, c.c_size_t, c.c_int]\n"
        "fd, top = os.open('/usr/lib/os-release', os.O_RDONLY), os.open('/usr', os.O_RDONLY)\n"
        "page = libc.mmap(None, 4096, 1, 1, fd, 0)\ncalls, end = 0, time.monotonic() + 0.6\n"
        "while time.monotonic() < end:\n"
        "    os.fsync(fd)\n    os.fdatasync(fd)\n    os.fsync(top)\n"
        "    if libc.msync(page, 4096, 4) != 0:\n        raise OSError(ctypes.get_errno(), 'msync')\n"
        "    calls += 4\n"
        "print('ok' if calls >= 400 else calls)\n"
    )
    result = probe(hostile, code, "ok")
    flushes = _device_flushes("/usr/lib/os-release") - before
    assert result.passed, result
    assert flushes < 50, flushes


def test_terminal_injection_and_socket_families_beyond_unix_are_denied(hostile):
    """TIOCSTI (typing commands into a terminal) and TIOCLINUX fail even on a descriptor that is no
    terminal, also with upper bits set in the request (the kernel reads 32); AF_VSOCK, which no network
    namespace isolates, and netlink fail, also with upper bits in the family; so do IP sockets, whose
    failed sends counted in the zygote's /proc/net/snmp, an exact store the next run read (777 sends).
    Unix sockets work."""
    needs_isolation(hostile)
    code = (
        "import ctypes, errno, fcntl, socket, termios\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "def raw(*args):\n    if libc.syscall(*args) < 0:\n        raise OSError(ctypes.get_errno(), '')\n"
        "got = []\nfor name, call in [\n"
        "    ('tiocsti', lambda: fcntl.ioctl(0, termios.TIOCSTI, b'x')),\n"
        "    ('tiocsti_upper_bits', lambda: raw(16, 0, 0x100005412, ctypes.c_char_p(b'x'))),\n"
        "    ('tioclinux', lambda: raw(16, 0, 0x541C, ctypes.c_char_p(b'x'))),\n"
        "    ('vsock', lambda: socket.socket(40, socket.SOCK_STREAM)),\n"
        "    ('vsock_upper_bits', lambda: raw(41, 0x100000028, 1, 0)),\n"
        "    ('netlink', lambda: socket.socket(16, socket.SOCK_RAW)),\n"
        "    ('unix_pair', socket.socketpair),\n"
        "    ('inet', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)),\n"
        "    ('inet6', lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM)),\n"
        "]:\n"
        "    try:\n        call()\n        got.append(name + ' ok')\n"
        "    except OSError as e:\n        got.append(name + ' ' + errno.errorcode.get(e.errno, '?'))\n"
        "print(', '.join(got))\n"
    )
    answer = (
        "tiocsti EPERM, tiocsti_upper_bits EPERM, tioclinux EPERM, vsock EAFNOSUPPORT, vsock_upper_bits "
        "EAFNOSUPPORT, netlink EAFNOSUPPORT, unix_pair ok, inet EAFNOSUPPORT, inet6 EAFNOSUPPORT"
    )
    assert probe(hostile, code, answer).passed


def test_no_socket_holds_more_than_its_default_buffer(hostile):
    """What a socket queues is kernel memory in no process's address space: RLIMIT_AS misses it, and
    without a memory cgroup (a grader without root) nothing bounded it. A listening socket kept 1,500
    connections whose clients had sent their fill and closed (333 MB behind one descriptor under a 128 MB
    limit; up to 4096 of them, 8 MiB each with a grown send buffer); a socketpair end with its send buffer
    grown to net.core.wmem_max held 8 MiB (219 MB a process); a bound datagram socket took 11 messages
    from senders that each closed (2.1 MB a descriptor). listen, buffer sizes and datagram sockets are
    denied; socketpairs of default size work (asyncio's, multiprocessing.Pipe)."""
    needs_isolation(hostile)
    code = (
        "import errno, socket\ngot = []\n"
        "def listen():\n    s = socket.socket(socket.AF_UNIX)\n    s.bind('\\0rt-listen')\n    s.listen(8)\n"
        "for name, call in [\n"
        "    ('listen', listen),\n"
        "    ('sndbuf', lambda: socket.socketpair()[0].setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 23)),\n"
        "    ('rcvbuf', lambda: socket.socketpair()[0].setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 23)),\n"
        "    ('dgram', lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)),\n"
        "    ('dgram_pair', lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)),\n"
        "    ('stream_pair', socket.socketpair),\n"
        "    ('seqpacket_pair', lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)),\n"
        "]:\n"
        "    try:\n        call()\n        got.append(name + ' ok')\n"
        "    except OSError as e:\n        got.append(name + ' ' + errno.errorcode.get(e.errno, '?'))\n"
        "import asyncio\nasync def main():\n    return 'asyncio ok'\n"
        "print(', '.join(got), asyncio.run(main()))\n"
    )
    answer = (
        "listen EPERM, sndbuf EPERM, rcvbuf EPERM, dgram EPERM, dgram_pair EPERM, stream_pair ok, "
        "seqpacket_pair ok asyncio ok"
    )
    assert probe(hostile, code, answer).passed, run(hostile, code).tests[0].error
    assert "listen" in hostile.isolation.seccomp


def test_shared_page_cache_locks_and_watches_cannot_carry_state_between_runs(hostile):
    """Every run reads the same standard library: which of its pages are cached would be a store that
    outlives the run, its zygote and the grader (written by evicting and reading pages, read by probing
    without waiting), and locks or inotify watches on it a signal to runs beside it. The calls for those
    fail; reading the files still works."""
    needs_isolation(hostile)
    code = (
        "import ctypes, errno, fcntl, mmap, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "fd = os.open(os.__file__, os.O_RDONLY)\nm = mmap.mmap(fd, 4096, prot=mmap.PROT_READ)\n"
        "libc.mmap.restype = ctypes.c_void_p\nm_addr = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)\n"
        "def raw(*args):\n    if libc.syscall(*args) < 0:\n        raise OSError(ctypes.get_errno(), '')\n"
        "got = []\nfor name, call in [\n"
        "    ('evict', lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)),\n"
        "    ('readahead', lambda: raw(187, fd, 0, 4096)),\n"
        "    ('probe', lambda: os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT)),\n"
        "    ('pageout', lambda: m.madvise(21)),\n"
        "    ('pageout_upper_bits', lambda: raw(28, ctypes.c_void_p(m_addr), 4096, ctypes.c_long(21 | 1 << 32))),\n"
        "    ('aio', lambda: raw(206, 8, ctypes.byref(ctypes.c_ulong(0)))),\n"
        "    ('flock', lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)),\n"
        "    ('inotify', lambda: raw(294, 0)),\n"
        "    ('read', lambda: os.pread(fd, 1, 0)),\n"
        "]:\n"
        "    try:\n        call()\n        got.append(name + ' ok')\n"
        "    except OSError as e:\n        got.append(name + ' ' + errno.errorcode.get(e.errno, '?'))\n"
        "print(', '.join(got))\n"
    )
    answer = (
        "evict EPERM, readahead EPERM, probe EPERM, pageout EPERM, pageout_upper_bits EPERM, aio EPERM, "
        "flock EPERM, inotify EPERM, read ok"
    )
    assert probe(hostile, code, answer).passed


def test_no_run_offers_its_pages_for_merging_with_runs_beside_it(hostile):
    """With KSM running on a host, pages two runs marked mergeable and filled alike are merged, and a write
    to one is then slow (copy on write): a timing channel between runs graded side by side (round 15, KSM
    off here). Marking pages (madvise MADV_MERGEABLE, prctl PR_SET_MEMORY_MERGE) fails; other advice works."""
    needs_isolation(hostile)
    code = (
        "import ctypes, errno, mmap\nlibc = ctypes.CDLL(None, use_errno=True)\nm = mmap.mmap(-1, 1 << 16)\n"
        "def merge_all():\n    if libc.prctl(67, 1, 0, 0, 0) < 0:\n        raise OSError(ctypes.get_errno(), '')\n"
        "got = []\nfor name, call in [\n"
        "    ('mergeable', lambda: m.madvise(12)),\n"
        "    ('merge_all', merge_all),\n"
        "    ('dontneed', lambda: m.madvise(mmap.MADV_DONTNEED)),\n"
        "]:\n"
        "    try:\n        call()\n        got.append(name + ' ok')\n"
        "    except OSError as e:\n        got.append(name + ' ' + errno.errorcode.get(e.errno, '?'))\n"
        "print(', '.join(got))\n"
    )
    assert probe(hostile, code, "mergeable EPERM, merge_all EPERM, dontneed ok").passed, (
        run(hostile, code).tests[0].error
    )


def test_record_locks_and_directory_notifications_cannot_signal_runs_beside_it(hostile):
    """flock and inotify are denied; fcntl's record locks (a read lock on the standard library, seen by
    another run's F_GETLK with its holder's pid) and dnotify (F_NOTIFY: SIGIO when another run reads a
    file of the directory) carried a signal between two runs graded side by side. They fail; other
    fcntl commands work."""
    needs_isolation(hostile)
    code = (
        "import errno, fcntl, json, os, struct\nfd = os.open(os.__file__, os.O_RDONLY)\n"
        "d = os.open(os.path.dirname(json.__file__), os.O_RDONLY)\n"
        "lock = struct.pack('hhqqi4x', fcntl.F_WRLCK, 0, 777, 1, 0)\ngot = []\nfor name, call in [\n"
        "    ('read_lock', lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 777)),\n"
        "    ('probe', lambda: fcntl.fcntl(fd, fcntl.F_GETLK, lock)),\n"
        "    ('ofd_probe', lambda: fcntl.fcntl(fd, 36, lock)),\n"
        "    ('notify', lambda: fcntl.fcntl(d, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)),\n"
        "    ('getfd', lambda: fcntl.fcntl(fd, fcntl.F_GETFD)),\n"
        "]:\n"
        "    try:\n        call()\n        got.append(name + ' ok')\n"
        "    except OSError as e:\n        got.append(name + ' ' + errno.errorcode.get(e.errno, '?'))\n"
        "print(', '.join(got))\n"
    )
    assert probe(hostile, code, "read_lock EPERM, probe EPERM, ofd_probe EPERM, notify EPERM, getfd ok").passed


def test_descriptors_held_in_flight_cannot_keep_memory_past_the_run():
    """Two sockets that hold each other in flight (SCM_RIGHTS) outlive every process of the run, and so do
    the memfds sent along, charged to the zygote's memory cgroup: the next solution on the slot ran out
    of memory. Passing descriptors fails, and the next solution gets the whole limit."""
    leak = (
        "import array, os, socket\na, b = socket.socketpair()\n"
        "def send(sock, fd):\n"
        "    sock.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [fd]))])\n"
        "for _ in range(25):\n    fd = os.memfd_create('x')\n    os.write(fd, b'x' * (8 << 20))\n"
        "    send(a, fd)\n    os.close(fd)\nsend(a, b.fileno())\nsend(b, a.fileno())\nprint(3)\n"
    )
    honest = "a = bytearray(200 << 20)\na[::4096] = b'x' * len(a[::4096])\nprint(3)\n"
    with Evaluator(workers=1, timeout_s=3.0, memory_mb=256) as ev:
        if not ev.isolation.cgroup:
            pytest.skip(f"no cgroup here: {ev.isolation.warnings}")
        assert run(ev, honest).passed
        run(ev, leak)  # its verdict aside (it prints the answer), it must leave the slot as it found it
        assert run(ev, honest).passed


def _unread_host_file() -> Path | None:
    """A fresh file on a host filesystem the sandbox neither hides nor covers, whose next read would stamp
    its access time (relatime: the access time is not after the modification)."""
    for parent in ("/usr/local/share", "/usr/local", "/etc"):
        if os.path.isdir(parent) and os.access(parent, os.W_OK):
            fd, name = tempfile.mkstemp(prefix="mcsweep-atime-", dir=parent)
            try:
                os.write(fd, b"x")
                os.chmod(name, 0o644)
                os.utime(name, (os.stat(name).st_mtime - 100, os.stat(name).st_mtime))
            except OSError:
                os.unlink(name)
                raise
            finally:
                os.close(fd)
            return Path(name)
    return None


def test_reads_leave_no_access_time_or_terminal_stamp_for_other_runs(hostile):
    """Reading a host file stamped its access time on disk, which a run of another grader read back with
    stat: a bit per file that outlives everything. Writing to a pseudo-terminal stamped the host's
    /dev/ptmx the same way. Host mounts are read-only in the sandbox (no access times written) and its
    /dev has no pseudo-terminals; /dev/null still takes writes."""
    needs_isolation(hostile)
    target = _unread_host_file()
    if target is None:
        pytest.skip("no writable host directory outside the covered ones to put a file in")
    try:
        before, ptmx = target.stat().st_atime_ns, os.stat("/dev/ptmx").st_mtime_ns
        code = (
            "import errno, os\n"
            f"p = {str(target)!r}\nopen(p).read()\nopen('/dev/null', 'w').write('x')\ngot = [open(p).read()]\n"
            "try:\n    m, _ = os.openpty()\n    os.write(m, b'x\\n')\n    got.append('pty')\n"
            "except OSError as e:\n    got.append(errno.errorcode[e.errno])\nprint(*got)\n"
        )
        assert probe(hostile, code, "x ENOENT").passed
        assert target.stat().st_atime_ns == before
        assert os.stat("/dev/ptmx").st_mtime_ns == ptmx
        target.read_bytes()  # the control: a read outside the sandbox does stamp it
        if target.stat().st_atime_ns == before:
            pytest.skip("this host's file system writes no access times: the check above could not fail")
    finally:
        target.unlink()


@contextlib.contextmanager
def _host_secrets(tag: str) -> Iterator[list[str]]:
    """World-readable files and a world-connectable unix socket where no hidden path reaches: a new
    top-level directory, /var/lib and /opt where they exist, /run and the top of the root itself."""
    parents = [Path(f"/mcsweep-{tag}")] + [Path(p) / f"mcsweep-{tag}" for p in ("/var/lib", "/opt") if os.path.isdir(p)]
    made = [parent / "expected.txt" for parent in parents] + [Path(f"/mcsweep-{tag}.txt")]
    address = f"/run/mcsweep-{tag}.sock"
    sock = socket.socket(socket.AF_UNIX)
    try:
        for path in made:
            path.parent.mkdir(mode=0o755, exist_ok=True)
            path.write_text("42\n")
            path.chmod(0o644)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(address)  # left by a run of this test that was killed
        sock.bind(address)
        os.chmod(address, 0o777)
        sock.listen(1)
        yield [str(p) for p in made] + [address]
    finally:
        sock.close()
        for path in [Path(address), *made]:
            path.unlink(missing_ok=True)
        for parent in parents:
            with contextlib.suppress(OSError):
                parent.rmdir()


def test_host_files_beyond_the_system_directories_are_not_there(hostile):
    """Datasets and expected outputs live wherever a cluster keeps them (/opt, /var/lib, a /lustre, a file
    at the top of the root), not only under the hidden paths; and a unix socket anywhere a run can reach
    is a host service it can talk to (no network namespace covers a socket's path). A run's root shows
    only the system directories and the Python installation, so none of these is there: neither what was
    made before the grader started nor (here) after; and of /dev only the data devices."""
    needs_isolation(hostile)
    if not os.access("/", os.W_OK) or not os.path.isdir("/run"):
        pytest.skip("needs a writable / and a /run to plant files in")
    with _host_secrets(f"secret-{os.getpid()}") as paths:
        code = (
            "import os, socket\nseen = []\n"
            f"for p in {paths[:-1]!r}:\n"
            "    try:\n        seen.append(open(p).read())\n    except OSError:\n        pass\n"
            "s = socket.socket(socket.AF_UNIX)\n"
            f"try:\n    s.connect({paths[-1]!r})\n    seen.append('socket')\nexcept OSError:\n    pass\n"
            "devices = {'null', 'zero', 'full', 'random', 'urandom', 'fd', 'stdin', 'stdout', 'stderr', 'shm'}\n"
            "seen += sorted(set(os.listdir('/dev')) - devices)\n"
            "seen += sorted(set(os.listdir('/')) - {'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'usr', 'etc',"
            " 'sys', 'proc', 'dev', 'tmp', *[p.split('/')[1] for p in " + repr(hostile.isolation.host_view) + "]})\n"
            "print('contained' if not seen else seen)\n"
        )
        assert probe(hostile, code).passed


def test_a_hidden_path_reached_through_a_link_is_hidden_where_its_files_are():
    """A hidden path may be a link into a directory the run's root shows (/data -> /usr/local/data): it
    is resolved as the host resolves it, so its files are covered where they really are. Resolved in the
    run's root instead (which has no /data), it was recorded as absent while its files were readable."""
    tag = f"mcsweep-linked-{os.getpid()}"
    target, link = Path(f"/usr/local/{tag}"), Path(f"/{tag}")
    if not os.access("/", os.W_OK) or not os.access("/usr/local", os.W_OK):
        pytest.skip("needs a writable / and /usr/local to plant a linked tree in")
    try:
        target.mkdir(mode=0o755)
        (target / "expected.txt").write_text("42\n")
        (target / "expected.txt").chmod(0o644)
        link.symlink_to(target)
        with Evaluator(workers=1, timeout_s=2.0, hidden_paths=(str(link),)) as ev:
            needs_isolation(ev)
            code = (
                "seen = []\n"
                f"for p in [{str(target / 'expected.txt')!r}, {str(link / 'expected.txt')!r}]:\n"
                "    try:\n        seen.append(open(p).read())\n    except OSError:\n        pass\n"
                "print('contained' if not seen else seen)\n"
            )
            assert probe(ev, code).passed
            assert ev.isolation.hidden_by[str(link)] == str(target)
    finally:
        link.unlink(missing_ok=True)
        (target / "expected.txt").unlink(missing_ok=True)
        with contextlib.suppress(FileNotFoundError):
            target.rmdir()


@pytest.mark.parametrize("pivot", [True, False], ids=["pivot_root", "move_and_chroot"])
def test_the_new_root_shows_the_same_view_either_way_it_is_entered(pivot):
    """pivot_root cannot leave a root that is no mount (an initramfs, as diskless cluster nodes boot); there
    the new root is moved over the old one and entered with chroot. Both show the system directories and
    the Python installation, and nothing else: not this file, not a file at the top of the root."""
    if os.geteuid() != 0:
        pytest.skip("building a root needs root")
    script = (
        "import os, sys\nfrom mcsweep.evaluator.sandbox import linux\n"
        "linux.unshare(linux.CLONE_NEWNS, 'unshare')\nlinux.mount(None, '/', None, linux.MS_REC | linux.MS_PRIVATE)\n"
        f"iso = linux.Isolation()\nlinux._enter_new_root(linux.python_paths(), iso, pivot={pivot})\n"
        "tops = {p.split('/')[1] for p in iso.host_view} | {'proc', 'dev', 'tmp'}\n"
        "tops |= {name for name in linux.SYSTEM_DIRS if os.path.islink('/' + name)}\n"
        f"print(sorted(set(os.listdir('/')) ^ tops), os.path.exists({str(Path(__file__).resolve())!r}),"
        " open(sys.executable, 'rb').read(4) == b'\\x7fELF', os.getcwd())\n"
    )
    env = _project_env()
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "False", "True", "/"], out.stdout


def test_a_grader_with_a_strict_umask_still_offers_its_python():
    """The run's root is built of directories the zygote makes (the mount points of the Python
    installation's bindings, /root/.pyenv/... or /home/u/venv); under a hardened node's umask 077 they
    were 0700, and a run's uid could not reach numpy. The zygote builds under umask 022."""
    grader = (
        "import json, os\nos.umask(0o077)\nfrom mcsweep.evaluator import Evaluator, GradeRequest\n"
        "io = json.dumps({'inputs': [''], 'outputs': ['6\\n']})\n"
        "with Evaluator(workers=1, timeout_s=10.0) as ev:\n"
        "    code = 'import numpy\\nprint(int(numpy.arange(4).sum()))'\n"
        "    r = ev.grade(GradeRequest('t', code=code, input_output=io))\n"
        "    print(r.verdict, ev.isolation.mount_namespace)\n"
    )
    env = _project_env()
    out = subprocess.run([sys.executable, "-c", grader], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "accepted", out.stdout


def test_a_container_root_without_uids_for_the_runs_grades_in_namespaces_of_its_own_and_says_so():
    """A container's remapped root (enroot with --container-remap-root, rootless podman) is uid 0 in a
    user namespace that maps that one uid: switching a run to its own uid fails, and every solution was
    a sandbox_error (training on zero rewards). It grades as without root (namespaces of its own), and
    says why."""
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs the unshare tool and root to make a user namespace mapping root alone")
    grader = (
        "import json\nfrom mcsweep.evaluator import Evaluator, GradeRequest\n"
        "io = json.dumps({'inputs': ['2\\n'], 'outputs': ['4\\n']})\n"
        "with Evaluator(workers=1, timeout_s=10.0) as ev:\n"
        "    r = ev.grade(GradeRequest('t', code='print(int(input()) * 2)', input_output=io))\n"
        "    iso = ev.isolation\n"
        "    print(r.verdict, iso.uid_switch, iso.user_namespace, 'remapped root' in ' '.join(iso.warnings))\n"
    )
    env = _project_env()
    cmd = ["unshare", "--user", "--map-root-user", sys.executable, "-c", grader]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    if out.returncode != 0 and "unshare failed" in out.stderr:
        pytest.skip(f"no user namespaces here: {out.stderr.strip()}")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["accepted", "False", "True", "True"], out.stdout + out.stderr


def test_a_grader_at_a_terminal_keeps_the_terminal_from_solutions(tmp_path):
    """Run from an interactive terminal (a pty its session controls, as a shell gives), the grader's
    solutions find no /dev/tty to type commands into or to send ^C to the grader through."""
    import pty

    flag = tmp_path / "typed"
    solution = (
        "import fcntl, os, termios\ntry:\n    fd = os.open('/dev/tty', os.O_RDWR)\nexcept OSError:\n"
        "    print('contained')\nelse:\n    print('opened')\n"
        f"    for c in b'touch {flag}\\n\\x03':\n        fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))\n"
    )
    grader = (
        "import json, sys\nfrom mcsweep.evaluator import Evaluator, GradeRequest\n"
        "ev = Evaluator(workers=1, timeout_s=10.0, total_timeout_s=30.0)\n"
        "r = ev.grade(GradeRequest('t', code=sys.argv[1], input_output=json.dumps({'inputs': [''], "
        "'outputs': ['contained\\n']})))\nev.close()\nprint('VERDICT', r.verdict, flush=True)\n"
        "print('READ', repr(sys.stdin.readline()))\n"
    )
    pid, master = pty.fork()
    if pid == 0:  # a new session whose controlling terminal is the pty
        os.execv(sys.executable, [sys.executable, "-c", grader, solution])
    out, end = b"", time.monotonic() + 60
    while not re.search(rb"VERDICT \w+\r?\n", out) and time.monotonic() < end:  # the whole line, then ours
        with contextlib.suppress(OSError):
            out += os.read(master, 4096)
    os.write(master, b"typed by us\n")  # what the grader then reads is ours, nothing a solution typed
    while not re.search(rb"READ .*\r?\n", out) and time.monotonic() < end:
        with contextlib.suppress(OSError):
            out += os.read(master, 4096)
    _, status = os.waitpid(pid, 0)
    os.close(master)
    text = out.decode(errors="replace")
    assert "VERDICT accepted" in text and "READ 'typed by us" in text, text
    assert os.waitstatus_to_exitcode(status) == 0 and not flag.exists()


FIND_HARNESS = (
    "import sys\ndef harness():\n    f = sys._getframe()\n    while f:\n"
    "        s = f.f_locals.get('self')\n        if s is not None and hasattr(s, 'report') and hasattr(s, 'p'):\n"
    "            return s\n        f = f.f_back\nchild = harness()\n"
)
FORGE_LINE = (
    "import os, fcntl, stat\nfor fd in range(3, 64):\n    try:\n        mode = os.fstat(fd).st_mode\n"
    "        if stat.S_ISSOCK(mode) or stat.S_ISFIFO(mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_WRONLY:\n"
    "            os.write(fd, (LINE + '\\n').encode())\n    except OSError:\n        pass\n"
)


def forge_line(status: object) -> str:
    """Code that writes a report line of ``status`` for test 0 to every pipe or socket it can write to."""
    return f"LINE = {json.dumps({'i': 0, 'status': status, 'err': 'forged', 'result': ''})!r}\n" + FORGE_LINE


@pytest.mark.parametrize(
    ("code", "verdict"),
    [
        (FIND_HARNESS + "print(3, flush=True)\nchild.report('ok')\nraise RuntimeError('after')\n", "runtime_error"),
        (FIND_HARNESS + "print(3, flush=True)\nchild.report('ok')\nimport os\nos._exit(1)\n", "runtime_error"),
        (FIND_HARNESS + "print(3, flush=True)\nchild.report('ok')\nimport time\ntime.sleep(600)\n", "time_limit"),
        ("print(999)\n" + forge_line("compile_error"), "runtime_error"),
        ("print(3)\n" + forge_line("ok") + "raise SystemExit(2)\n", "runtime_error"),
    ],
    ids=["ok_then_raise", "ok_then_exit_1", "ok_then_hang", "compile_error_for_a_wrong_answer", "ok_then_exit_2"],
)
def test_a_report_the_solution_writes_itself_is_held_to_its_exit(hostile, code, verdict):
    """The solution reaches the harness's report channel (from its frames, or by its descriptor) and
    writes an outcome ahead of its real end: the grader believes only what the exit status bears out,
    and 'compiled' / 'compile_error' only as the line written before any of the solution's code ran."""
    result = run(hostile, code)
    assert result.verdict == verdict, result


def test_no_descriptor_of_a_run_opens_again_as_a_way_into_the_report_channel(hostile):
    """A pipe's end opens again through /proc/self/fd, in either direction, for its owner: a run sharing
    the grader's uid (no root) opened a read end of the report pipe, took the child's first line (written
    before any of the solution's code ran) and wrote a 'compile_error' of its own for a wrong answer (17
    of 40 tries won the race). The report channel is a socket, which cannot be opened that way."""
    needs_isolation(hostile)
    code = (
        "import os\nopened = []\nfor name in os.listdir('/proc/self/fd'):\n    try:\n"
        "        link = os.readlink('/proc/self/fd/' + name)\n"
        "        if link.startswith(('pipe:', 'socket:')):\n"
        "            os.close(os.open('/proc/self/fd/' + name, os.O_RDONLY | os.O_NONBLOCK))\n"
        "            opened.append(link)\n    except OSError:\n        pass\n"
        "print('contained' if not opened else opened)\n"
    )
    assert probe(hostile, code).passed, run(hostile, code).tests[0].error


def _seen(ev: Evaluator, body: str) -> str:
    """What a probe saw (``seen``), read back through its error text."""
    return run(ev, body + "raise RuntimeError(repr(seen))\n").tests[0].error


COUNTERS = (
    "import os\nopen('probe', 'w').close()\n"
    "cg = os.listdir('/sys/fs/cgroup') if os.path.isdir('/sys/fs/cgroup') else []\n"
    "seen = (os.stat('.').st_ino, os.stat('probe').st_ino, os.path.basename(os.getcwd()).startswith('run-'), cg)\n"
)


def test_a_run_leaves_no_counter_for_a_later_one_to_read(hostile):
    """Exact counters that outlive a run are a store: the next solution on the slot read how many tests
    the one before passed (grading stops at the first failure) from the inode numbers of the shared run
    tmpfs, the run directory's name (run-N), the memory cgroup's peak or its CPU total (another grader's
    too). Each run's directory is a fresh tmpfs, named alike every time, and runs see no cgroup tree."""
    needs_isolation(hostile)
    before = [_seen(hostile, COUNTERS) for _ in hostile._all]
    plant = "for k in range(300):\n    open(f'f{k}', 'w').close()\n"
    plant += "buf = bytearray(200 << 20)\nbuf[::4096] = b'x' * len(buf[::4096])\n"
    run(hostile, plant + "print(3)")
    after = [_seen(hostile, COUNTERS) for _ in hostile._all]
    assert before == after and all(seen.endswith(", False, [])") for seen in after), (before, after)
    small = [int(n) for n in re.findall(r"\((\d+), (\d+),", after[0])[0]]
    assert max(small) < 16, after  # a fresh tmpfs: its root and the run's first file


def test_a_run_sees_no_host_wide_counter():
    """The host's event counters were a store that outlives runs, graders and modes: a run moved
    /proc/vmstat's unevictable_pgs_mlocked (mlock) or thp_fault_alloc (touching huge pages) by the test it
    was on, and a later solution, of another grader, read which tests of the earlier one had run. The runs'
    /proc shows processes alone (subset=pid) and their /sys is an empty tmpfs (the per-node vmstat files)."""
    with Evaluator(workers=1, timeout_s=2.0) as ev:
        needs_isolation(ev)
        assert ev.isolation.proc_pids_only, ev.isolation.warnings
        paths = ("/proc/vmstat", "/proc/stat", "/proc/meminfo", "/proc/sys", "/sys/devices", "/sys/fs/cgroup")
        code = f"import os\nseen = [p for p in {paths!r} if os.path.exists(p)]\n"
        code += "print('contained' if not seen and os.path.isdir('/proc/self') else seen)\n"
        assert probe(ev, code).passed, run(ev, code).tests[0].error


def test_a_runs_uid_is_no_count_of_the_runs_before_it():
    with Evaluator(workers=1, timeout_s=2.0) as ev:
        uids = [int(re.findall(r"\d+", _seen(ev, "import os\nseen = os.getuid()\n"))[0]) for _ in range(12)]
    assert len(set(uids)) == 1 or (len(set(uids)) == 12 and uids != sorted(uids)), uids


def test_a_runs_pid_is_no_count_of_the_runs_before_it_and_no_run_sets_the_next_ones(hostile):
    """Pids are handed out in turn: a run's pid counted the runs before it on its slot (which tests ran),
    and a run that forked 500 times moved the next one's by 501 (a store between runs). Each run's pid is
    drawn at random now: of 11 steps between consecutive runs (every other one after 500 forks), the old
    counter made all 11 lie within 600; random pids, about one in 50 each (pid_max 32768)."""
    needs_isolation(hostile)
    assert all(slot.isolation.pid_namespace and slot.isolation.random_pids for slot in hostile._all)
    forks = "import os\nfor _ in range(500):\n    pid = os.fork()\n    if pid == 0:\n        os._exit(0)\n"
    forks += "    os.waitpid(pid, 0)\n"
    with Evaluator(workers=1, timeout_s=5.0) as ev:
        probes = [(forks if k % 2 else "") + "import os\nseen = os.getpid()\n" for k in range(12)]
        pids = [int(re.findall(r"\d+", _seen(ev, code))[0]) for code in probes]
    steps = [b - a for a, b in itertools.pairwise(pids)]
    assert sum(0 < step <= 600 for step in steps) <= 5, pids


def test_each_workers_runs_are_held_to_a_cpu_of_their_own(hostile):
    """A solution's busy processes share its own worker's CPU (so a hog beside it cannot push a correct
    solution past its wall limit), and it cannot widen its affinity."""
    needs_isolation(hostile)
    cpus = [slot.isolation.cpu for slot in hostile._all]
    assert len(set(cpus)) == min(2, len(os.sched_getaffinity(0))) and all(c >= 0 for c in cpus)
    code = (
        "import errno, os\ntry:\n    os.sched_setaffinity(0, range(os.cpu_count()))\n    w = 'widened'\n"
        "except OSError as e:\n    w = errno.errorcode[e.errno]\nprint(len(os.sched_getaffinity(0)), w)\n"
    )
    assert probe(hostile, code, "1 EPERM").passed


def test_a_runs_processes_stay_in_their_zygotes_session(hostile):
    """Each session is an autogroup, a CPU share of its own: a hog whose 8 processes each made one took 8
    shares of its CPU, and honest runs of another grader held to that CPU went past their wall limit (3 of
    30 spending 0.3 s of a 1 s limit; none beside the same hog in one session). ``setsid`` is denied."""
    needs_isolation(hostile)
    code = (
        "import errno, os\nr, w = os.pipe()\nif os.fork() == 0:\n    try:\n        os.setsid()\n        got = 'new'\n"
        "    except OSError as e:\n        got = errno.errorcode[e.errno]\n    os.write(w, got.encode())\n"
        "    os._exit(0)\nos.wait()\nprint(os.read(r, 16).decode())\n"
    )
    assert probe(hostile, code, "EPERM").passed


def test_an_error_text_the_solution_writes_itself_is_cut_and_cleaned(hostile):
    """The child cuts its own error texts; a line the solution writes is cut in the grader too, and loses
    its control characters (terminal escapes would reach whoever prints the results)."""
    err = "\x1b]0;owned\x07\x1b[2J" + "E" * 60_000
    line = json.dumps({"i": 0, "status": "runtime_error", "err": err, "result": ""})
    code = f"LINE = {line!r}\n" + FORGE_LINE + "import os\nos._exit(1)\n"
    error = run(hostile, code).tests[0].error
    assert len(error) <= 500 and "\x1b" not in error and "\x07" not in error and error.startswith("?]0;owned")


# Class 11: correct programs a judge accepts.
@pytest.mark.parametrize(
    "code",
    [
        "import atexit, sys\nout = []\natexit.register(lambda: sys.stdout.write(''.join(out)))\n"
        "out.append(str(sum(map(int, input().split()))) + '\\n')\n",
        "w = open(1, 'w')\nw.write(str(sum(map(int, input().split()))) + '\\n')\n",
        "import numpy as np\nprint(int(np.array(input().split(), dtype=np.int64).sum()))\n",
        "class Out:\n    def __del__(self):\n        print(sum(map(int, input().split())))\no = Out()\n",
        "import sys\nprint(sum(map(int, input().split())))\nsys.stdout.close()\n",
    ],
    ids=["atexit_writer", "unclosed_fd1_file", "numpy", "finalizer_prints", "closes_stdout"],
)
def test_programs_a_judge_accepts_are_accepted(hostile, code):
    assert run(hostile, code).passed


NUMPY_GRADER = (
    "import json\nfrom mcsweep.evaluator import Evaluator, GradeRequest\n"
    "io = json.dumps({'inputs': ['1 2\\n'], 'outputs': ['3\\n']})\n"
    "code = 'import numpy\\nprint(numpy.int64(3))\\n'\n"
    "with Evaluator(workers=1, timeout_s=5.0) as ev:\n"
    "    r = ev.grade(GradeRequest('n', code=code, input_output=io))\n"
    "print(r.verdict, r.tests[0].error if r.tests else '', numpy_prefix := __import__('numpy').__file__)\n"
)


def _grade_numpy_with(python: Path) -> subprocess.CompletedProcess:
    """A grader run by ``python`` grades a solution importing numpy; prints verdict, error, numpy's path."""
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([str(python), "-c", NUMPY_GRADER], capture_output=True, text=True, env=env, check=False)


def test_numpy_imports_when_the_installation_lives_in_the_temp_dir(tmp_path):
    """A venv in the system temp directory holding numpy itself (the sandbox covers that directory)."""
    import numpy
    import pyseccomp  # noqa: F401

    venv = Path(tempfile.mkdtemp(prefix="mcsweep-venv-"))
    venv.chmod(0o755)  # an installation anyone may read, as installations are
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        [site_dir] = venv.glob("lib/python*/site-packages")
        src = Path(numpy.__file__).parent
        for tree in (src, src.parent / "numpy.libs"):
            if tree.exists():
                shutil.copytree(tree, site_dir / tree.name, symlinks=True)
        shutil.copy(sys.modules["pyseccomp"].__file__, site_dir)  # the whole sandbox, syscall filter included
        proc = _grade_numpy_with(venv / "bin" / "python")
        assert proc.stdout.startswith("accepted") and str(venv) in proc.stdout, proc.stdout + proc.stderr
    finally:
        shutil.rmtree(venv, ignore_errors=True)


def test_numpy_imports_when_the_venv_is_reached_through_a_link_in_a_covered_directory(tmp_path):
    """The grader runs a venv through a symlink in the temp directory (a checkout whose .venv links to
    another's): the sandbox covers /tmp, binds the installation back at its real place, and imports
    still find it."""
    link = Path(tempfile.mkdtemp(prefix="mcsweep-link-")) / "venv"
    try:
        link.symlink_to(Path(sys.prefix).resolve())
        proc = _grade_numpy_with(link / "bin" / Path(sys.executable).name)
        assert proc.stdout.startswith("accepted"), proc.stdout + proc.stderr[-2000:]
    finally:
        shutil.rmtree(link.parent, ignore_errors=True)


# Class 12: the isolation record says what really hides each tree.
def test_hidden_paths_under_a_covered_directory_are_recorded(tmp_path):
    tree = Path(tempfile.mkdtemp(prefix="mcsweep-tree-"))
    try:
        (tree / "secret.txt").write_text("expected outputs")
        with Evaluator(workers=1, timeout_s=1.0, hidden_paths=(str(tree),)) as ev:
            needs_isolation(ev)
            code = f"try:\n    open({str(tree / 'secret.txt')!r}).read()\n    print('seen')\nexcept OSError:\n"
            code += "    print('contained')\n"
            assert probe(ev, code).passed
            assert str(tree) in ev.isolation.hidden_paths
            assert ev.isolation.hidden_by[str(tree)] == os.path.realpath(tempfile.gettempdir())
    finally:
        shutil.rmtree(tree)


# Class 8 and the whole: a batch mixing every hostile case with correct ones, graded in a fresh process
# whose peak memory is measured, then the host checked for leftovers.
GRADER_MEMORY_BOUND_MB = 600
FLOODS = {
    "output_lines_flood": "import sys\nsys.stdout.write('1\\n' * (15 << 20))\n",
    "output_blank_lines_flood": "import sys\nsys.stdout.write('4' + ' \\n' * (15 << 20) + '\\n')\n",
    "forged_report_line": "import os\nfor fd in range(3, 16):\n    try:\n"
    '        os.write(fd, b\'{"i": 0, "status": "ok", "err": "\' + b\'x\' * (60 << 20) + b\'"}\\n\')\n'
    "    except OSError:\n        pass\n",
    "huge_error_text": "raise ValueError('x' * (40 << 20))\n",
    "output_four_byte_text_flood": "import sys\nsys.stdout.write('4 \\U0001f600' + ' ' * (30 << 20))\n",
    "output_bad_utf8_flood": "import sys\nsys.stdout.buffer.write(b'\\xf0\\x9f\\x98\\x80' + b'\\xff' * (30 << 20))\n",
}
CALL_FLOODS = {
    "result_list_flood": "class Solution:\n    def f(self, x):\n        return [0] * (8 << 20)\n",
    "forged_tag": "class Solution:\n    def f(self, x):\n        return {'$tuple': [x]}\n",
    "right_answer": "class Solution:\n    def f(self, x):\n        return [x]\n",
}
MIXED_BATCH = r"""
import json, sys
from mcsweep.evaluator import Evaluator, GradeRequest
cases = json.loads(sys.argv[1])
with Evaluator(workers=2, timeout_s=4.0, total_timeout_s=8.0, shadow_comparators=("livecodebench",)) as ev:
    requests = [GradeRequest(c["id"], code=c["code"], input_output=c["io"]) for c in cases]
    verdicts = {r.id: r.verdict for r in ev.grade_iter(requests)}
    errors = ev.sandbox_errors
# VmHWM is this process image's own peak; ru_maxrss would also count the forking parent's size
# (Linux folds the pre-exec memory into it: a test run inside a big pytest process read 1.35 GB).
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
peak_mb = int(hwm.split()[1]) / 1024
print(json.dumps({"verdicts": verdicts, "peak_mb": peak_mb, "sandbox_errors": errors}))
"""


def _leftovers() -> dict[str, object]:
    """IPC objects, POSIX shared memory, working directories and cgroups on the host; of the cgroups, those
    whose zygote is gone (a live one may be another grader's, such as a training run's beside the tests)."""
    cgroups = sorted(
        str(p)
        for p in Path("/sys/fs/cgroup").glob("*/**/mcsweep-eval-*")
        if not Path(f"/proc/{p.name.rsplit('-', 1)[1]}").exists()
    )
    return {"ipc": _host_ipc(), "shm": sorted(os.listdir("/dev/shm")), "tmp": _host_tmp_dirs(), "cgroups": cgroups}


def test_a_mixed_hostile_batch_is_graded_right_with_bounded_grader_memory_and_nothing_left():
    add = "a, b = map(int, input().split())\nprint(a + b)\n"
    call_io = io_of(["7"], ["[7]"], fn_name="f")
    hostile = {**HOSTILE, **FLOODS}
    hostile.pop("kill_the_parent")  # without a uid of its own it would kill this test; covered above
    cases = [{"id": f"hostile:{k}", "code": c, "io": ONE_IO} for k, c in hostile.items()]
    cases += [{"id": f"hostile:{k}", "code": c, "io": call_io} for k, c in CALL_FLOODS.items() if k != "right_answer"]
    cases += [{"id": f"correct:{k}", "code": add, "io": ONE_IO} for k in range(len(cases))]
    cases += [{"id": f"correct:call{k}", "code": CALL_FLOODS["right_answer"], "io": call_io} for k in range(4)]
    before = _leftovers()
    env = _project_env()
    proc = subprocess.run(
        [sys.executable, "-c", MIXED_BATCH, json.dumps(cases)], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.splitlines()[-1])
    wrong = {k: v for k, v in report["verdicts"].items() if (v == "accepted") != k.startswith("correct:")}
    assert wrong == {}, wrong
    assert report["sandbox_errors"] == 0
    assert report["peak_mb"] < GRADER_MEMORY_BOUND_MB, report["peak_mb"]
    assert _leftovers() == before


PAIRS = [[x, x] for x in range(50_000)]


@pytest.mark.parametrize(
    ("expected", "body", "verdict"),
    [
        (PAIRS, "[[] for _ in range(1_000_000)]", "wrong_answer"),  # 3 bytes of JSON, ~80 of Python each
        (PAIRS, "[(x, x) for x in range(50_000)]", "accepted"),  # a right answer, every item tagged
        ({str(x): [x] for x in range(50_000)}, "{str(x): (x,) for x in range(50_000)}", "accepted"),
    ],
    ids=["empty_lists", "right_tuples", "right_dict_of_tuples"],
)
def test_a_call_result_far_more_structured_than_the_expected_one_is_refused_unparsed(expected, body, verdict):
    """The result's byte cap scales with the expected JSON, but parsing costs per container: with 50k
    pairs expected, a result of 1M empty lists (under the byte cap) is wrong without being decoded (the
    like took the grader 700 MB and 9 s), while right answers with every container tagged pass."""
    code = f"class Solution:\n    def f(self, x):\n        return {body}\n"
    with Evaluator(comparator="microcoder", workers=1, timeout_s=20.0) as ev:
        result = run(ev, code, io_of(["0"], [json.dumps(expected)], fn_name="f"))
    assert result.verdict == verdict, result
    if verdict == "wrong_answer":
        assert "far more structured" in result.tests[0].error


PADDED_REPORT = """import os, stat
class Solution:
    def f(self, x):
        fd = next(fd for fd in range(3, 64) if _socket(fd))
        pad = "[]," * 3_500_000
        data = ('{"i": 0, "status": "ok", "err": "", "result": "[]", "pad": [' + pad + '[]]}\\n').encode()
        while data:
            data = data[os.write(fd, data):]
        os._exit(0)
def _socket(fd):
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except OSError:
        return False
"""


def test_a_forged_report_line_padded_with_fields_of_its_own_is_refused_unparsed():
    """Round 15: the structure bound held for the result alone, and the line around it was parsed whole. A
    forged line (within the call-based line's byte cap, 16x the expected JSON) with a field of 3.5M empty
    lists of its own cost the grader 1.4 s of CPU (the GIL held, every grader thread stalled) and 270 MB;
    now the whole line's structure is bounded before it is parsed."""
    with Evaluator(comparator="microcoder", workers=1, timeout_s=5.0) as ev:
        io = io_of(["0"], [json.dumps(PAIRS)], fn_name="f")
        result = run(ev, PADDED_REPORT, io)
    assert result.verdict == "wrong_answer", result
    assert "far more structured" in result.tests[0].error, result  # refused by the count, not parsed


SIGTERMED_GRADER = r"""
import os, sys, time
from mcsweep.evaluator import Evaluator, GradeRequest
ev = Evaluator(workers=2, timeout_s=2.0)
ev.grade_many([GradeRequest("a", code="print(input())", input_output=sys.argv[1])])
print(" ".join(ev.isolation.cgroup_paths), flush=True)
time.sleep(60)
"""


def test_a_grader_killed_with_its_job_leaves_no_cgroup():
    """A scheduler ends a job by SIGTERM to all its processes, zygotes included, then SIGKILL: the
    zygotes outlive the grader long enough to clean up, and cgroups that dead zygotes left (SIGKILL)
    are removed by the next evaluator that starts."""
    env = _project_env()
    io = json.dumps({"inputs": ["1\n"], "outputs": ["1\n"]})
    proc = subprocess.Popen(
        [sys.executable, "-c", SIGTERMED_GRADER, io], stdout=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    paths = proc.stdout.readline().split()
    if not paths:
        proc.kill()
        pytest.skip("no cgroup here")
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 10
    while any(os.path.exists(p) for p in paths) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in paths if os.path.exists(p)]
    stale = [os.path.join(os.path.dirname(p), f"mcsweep-eval-{2**22 + 7}") for p in paths]  # no such pid
    for path in stale:
        os.mkdir(path)
    with Evaluator(workers=1) as ev:
        ev.grade_many([GradeRequest("b", code="print(input())", input_output=io)])
    assert not [p for p in stale if os.path.exists(p)]


NOBODY = 65534
ROOT_ONLY_SKIPS = (
    "no cgroup here",
    "building a root needs root",
    "needs the unshare tool and root",
    "needs root, unshare and setpriv",
    "needs a writable /",
    "no writable host directory",
    "runs have no uid of their own here",
)
"""Why a test of this module may skip without root: what it checks exists, or can be set up, only as root."""


def _blocked_dirs(paths: list[str]) -> list[str]:
    """The directories on the way to ``paths`` that another user cannot pass (/root, where pyenv's Python
    lives here), outermost first."""
    blocked = set()
    for path in paths:
        parts = Path(path).resolve().parts
        blocked |= {str(Path(*parts[:k])) for k in range(2, len(parts)) if not os.stat(Path(*parts[:k])).st_mode & 1}
    return sorted(blocked, key=lambda p: (p.count("/"), p))


def _as_nobody(paths: list[str], first: tuple[str, ...] = ()) -> list[str]:
    """A command prefix that runs a program as uid and gid 65534, in a mount namespace where each blocked
    directory on the way to ``paths`` is an empty passable tmpfs with only those ways bound back into it
    (after the shell commands ``first``)."""
    script = ["set -e", *first]
    for blocked in _blocked_dirs(paths):
        ways = sorted(
            {
                str(Path(blocked, Path(p).resolve().relative_to(blocked).parts[0]))
                for p in paths
                if Path(p).resolve().is_relative_to(blocked)
            }
        )
        stages = [f"/tmp/.mcsweep-way-{os.getpid()}-{k}" for k in range(len(ways))]
        script += [f"mkdir -p {stage} && mount --bind {way} {stage}" for way, stage in zip(ways, stages, strict=True)]
        script.append(f"mount -t tmpfs -o mode=0755 tmpfs {blocked}")
        script += [
            f"mkdir -p {way} && mount --move {stage} {way} && rmdir {stage}"
            for way, stage in zip(ways, stages, strict=True)
        ]
    script.append(f'exec setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups "$@"')
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", "\n".join(script), "sh"]


def test_the_containment_tests_pass_for_a_grader_without_root():
    """This module again, its grader a user without root (uid and gid 65534), as a SLURM job's is: the
    sandbox then stands on user, PID, mount and network namespaces of the zygotes' own. Every containment
    test must run and pass; the only skips allowed are those of what needs root."""
    if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("setpriv") is None:
        pytest.skip("needs root, unshare and setpriv to start a grader without root")
    project = str(Path(__file__).resolve().parents[2])
    home = tempfile.mkdtemp(prefix="mcsweep-nobody-")  # pytest's own temp directory is root's alone
    try:
        os.chown(home, NOBODY, NOBODY)
        suite = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            f"--basetemp={home}/t",
            __file__,
        ]
        env = {**_project_env(), "HOME": home}
        prefix = _as_nobody([sys.executable, sys.base_prefix, project])
        out = subprocess.run([*prefix, *suite], capture_output=True, text=True, env=env, cwd=project)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    skips = [line for line in out.stdout.splitlines() if line.startswith("SKIPPED")]
    assert all(any(why in line for why in ROOT_ONLY_SKIPS) for line in skips), skips


MASKED_PROC = ("/proc/kcore", "/proc/keys", "/proc/timer_list")  # files Docker and podman cover


def test_a_grader_without_root_whose_proc_is_partly_covered_grades_with_no_proc_in_the_runs_root():
    """A container that covers files of /proc (as Docker and podman do): the kernel then mounts no proc in a
    user namespace, and the root was refused as half-built (every solution a sandbox_error). The runs' root
    now has an empty /proc, and says so; everything else stands."""
    masked = next((path for path in MASKED_PROC if os.path.exists(path)), None)
    if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("setpriv") is None or masked is None:
        pytest.skip("needs root, unshare and setpriv, and a /proc file to cover")
    grader = (
        "import json\nfrom mcsweep.evaluator import Evaluator, GradeRequest\n"
        "io = json.dumps({'inputs': ['2\\n'], 'outputs': ['4\\n']})\n"
        "with Evaluator(workers=1, timeout_s=10.0) as ev:\n"
        "    right = ev.grade(GradeRequest('t', code='print(int(input()) * 2)', input_output=io))\n"
        "    code = 'import os\\nprint(4 + len(os.listdir(\\'/proc\\')))'\n"
        "    procs = ev.grade(GradeRequest('p', code=code, input_output=io))\n"
        "    iso, said = ev.isolation, 'no /proc' in ' '.join(ev.isolation.warnings)\n"
        "    print(right.verdict, procs.verdict, iso.user_namespace, iso.proc_hidepid, said)\n"
    )
    project = str(Path(__file__).resolve().parents[2])
    prefix = _as_nobody([sys.executable, sys.base_prefix, project], first=(f"mount --bind /dev/null {masked}",))
    env = {**_project_env(), "HOME": "/tmp"}
    out = subprocess.run([*prefix, sys.executable, "-c", grader], capture_output=True, text=True, env=env, cwd="/")
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["accepted", "accepted", "True", "False", "True"], out.stdout + out.stderr[-3000:]


TREE_BURN = (
    "import os, time\n"
    "def busy(seconds):\n"
    "    start = time.process_time()\n"
    "    while time.process_time() - start < seconds:\n"
    "        pass\n"
    "r, w = os.pipe()\n"
    "if os.fork() == 0:\n"  # a helper the run waits for
    "    busy(0.3)\n"
    "    os._exit(0)\n"
    "if os.fork() == 0:\n"  # a helper that leaves a busy orphan behind and exits at once
    "    if os.fork() == 0:\n"
    "        busy(0.3)\n"
    "        os.write(w, b'x')\n"
    "        os._exit(0)\n"
    "    os._exit(0)\n"
    "os.wait()\n"
    "os.wait()\n"
    "os.read(r, 1)\n"
    "print('done')\n"
)


def _tree_cpu_s(code: str) -> float:
    """The CPU seconds the zygote reports for one run of ``code`` (which must print ``done``)."""
    from mcsweep.evaluator.sandbox import Limits, Slot
    from mcsweep.evaluator.sandbox.messages import Payload, encode

    slot = Slot()
    try:
        if not (slot.isolation.cgroup or slot.isolation.pid_namespace):
            pytest.skip(f"containment needs root or user namespaces here: {slot.isolation.errors}")
        run_id, fds = slot.take_run(Limits(timeout_s=30.0))
        os.write(fds.job_w, encode(Payload(code, "", None, 0)))
        os.close(fds.job_w)
        while os.read(fds.res_r, 1 << 16):
            pass
        os.close(fds.res_r)
        exited = slot.exited(run_id, grace=60.0)
        assert os.pread(fds.out_fd, 100, 0) == b"done\n"
        os.close(fds.out_fd)
    finally:
        slot.close()
    return exited.cpu_s


def test_the_cpu_time_of_a_runs_whole_tree_is_counted_without_a_cgroup_too():
    """The CPU limit bounds a test's whole process tree. As root its cgroup counts the tree; without root
    there is none, and nothing counted it (0 s, whatever the run's processes spent): a solution could fork
    busy helpers and, where its processes are not held to one CPU (a grader with one worker), pass a test
    that needs several times its CPU limit. The zygote, init of the runs' PID namespace, reaps every process
    of a run: their time is its children's, the helpers' and the orphan's here (0.6 s)."""
    assert _tree_cpu_s(TREE_BURN) >= 0.55


AUTOREAPED_BURN = (
    "import os, signal, time\n"
    "try:\n"  # children of a process that ignores SIGCHLD are reaped by the kernel, unwaited
    "    signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
    "except OSError:\n"
    "    pass\n"
    "def busy(seconds):\n"
    "    start = time.process_time()\n"
    "    while time.process_time() - start < seconds:\n"
    "        pass\n"
    "r, w = os.pipe()\n"
    "for _ in range(2):\n"
    "    if os.fork() == 0:\n"
    "        busy(0.3)\n"
    "        os.write(w, b'x')\n"
    "        os._exit(0)\n"
    "os.read(r, 1)\n"
    "os.read(r, 1)\n"
    "time.sleep(0.1)\n"  # both helpers gone, reaped by the kernel
    "print('done')\n"
)


def test_the_cpu_time_of_helpers_the_kernel_reaps_is_counted_too():
    """A process that ignores SIGCHLD (or sets SA_NOCLDWAIT) has its children reaped by the kernel as they
    exit, and their CPU time is added to no one's: without a cgroup a run whose two helpers spent 0.6 s was
    charged 0.005 s (the thirteenth round), so where its processes are not held to one CPU a solution could
    spend up to ``nproc`` times its CPU limit. The filter denies setting SIGCHLD's action: every child is
    waited for, by its parent or by the zygote."""
    assert _tree_cpu_s(AUTOREAPED_BURN) >= 0.55


def test_a_single_workers_runs_are_held_to_one_cpu_too():
    """A grader with one worker has neighbours all the same: the trainer beside it, other jobs of the node.
    Its runs were not pinned, so a solution's processes (up to ``nproc``) spread over every CPU the grader
    may use, for each test's whole wall time (2 of 2 here; 6 busy helpers, 6 cores of a node)."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("a single CPU here: nothing to spread over")
    with Evaluator(workers=1, timeout_s=5.0) as ev:
        needs_isolation(ev)
        assert ev._all[0].isolation.cpu in os.sched_getaffinity(0)
        assert probe(ev, "import os\nprint(len(os.sched_getaffinity(0)))\n", "1").passed
