"""Hostile solutions: each must be judged failing and contained, and the grader left unharmed.

Probes print what they could reach; the expected output is the contained answer, so a probe that
passes proves containment, and one that fails names the hole.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcsweep.evaluator import Evaluator, GradeRequest
from mcsweep.evaluator.sandbox import UID_BASE, grader_trees

ONE_IO = json.dumps({"inputs": ["1 2\n"], "outputs": ["3\n"]})
FAILING = {"wrong_answer", "time_limit", "memory_limit", "runtime_error", "compile_error"}


def _uid_bases(ev: Evaluator) -> set[int]:
    """The uid blocks ``ev``'s zygotes hand out (one per zygote: base + run counter % 1000)."""
    return {UID_BASE + (slot.proc.pid % 4_000_000) * 1000 for slot in ev._all}


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


def needs_isolation(ev: Evaluator) -> None:
    if not (ev.isolation.uid_switch and ev.isolation.mount_namespace and ev.isolation.net_namespace):
        pytest.skip(f"containment needs root and namespaces here: {ev.isolation.errors}")


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
    "    try:\n        os.kill(pid, signal.SIGKILL)\n"
    "    except OSError:\n        pass\nprint(0)\n",
}


# Without a uid of its own, kill(-1) from a solution would kill the test runner itself.
NEEDS_UID = {"kill_the_parent"}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_solution_fails_and_grader_survives(hostile, name):
    if name in NEEDS_UID:
        needs_isolation(hostile)
    result = run(hostile, HOSTILE[name])
    assert result.verdict in FAILING, (name, result)
    assert run(hostile, "a, b = map(int, input().split())\nprint(a + b)").passed


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
    needs_isolation(hostile)
    code = (
        "import os, signal\nok = True\n"
        f"for pid in [os.getppid(), {os.getpid()}]:\n"
        "    try:\n        open(f'/proc/{pid}/mem', 'rb').read(1)\n"
        "        ok = False\n    except OSError:\n        pass\n"
        "    try:\n        os.kill(pid, 0)\n        ok = False\n    except OSError:\n        pass\n"
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
