"""The zygote's protocol as the speed work shaped it (issue 14, "Speed"): a run's end is told unasked the
moment its child exits, with the next run's child already pre-forked; a kill is asked only past the wall
limit; new limits discard the pre-forked child. And the child's descriptor closing keeps exactly its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from mcsweep.evaluator import pool
from mcsweep.evaluator.comparators import make_comparator
from mcsweep.evaluator.pool import Job
from mcsweep.evaluator.problem import Problem, TestCase
from mcsweep.evaluator.sandbox import Limits, Slot
from mcsweep.evaluator.sandbox.messages import Exited, Payload, Report, encode
from mcsweep.evaluator.sandbox.slot import RunFds


@pytest.fixture(scope="module")
def slot() -> Iterator[Slot]:
    s = Slot()
    yield s
    s.close()


def _start(fds: RunFds, code: str) -> None:
    os.write(fds.job_w, encode(Payload(code, "", None, 0)))
    os.close(fds.job_w)


def _report(fds: RunFds) -> Report:
    """The outcome line, after the child's 'compiled' line (written before the solution runs)."""
    data = b""
    while chunk := os.read(fds.res_r, 1 << 16):
        data += chunk
    os.close(fds.res_r)
    stage, outcome = (Report.decode(line) for line in data.split(b"\n")[:2])
    assert stage.status == "compiled"
    return outcome


def test_a_run_that_ends_is_told_unasked_with_the_next_run_preforked(slot):
    limits = Limits(timeout_s=2.0)
    run, fds = slot.take_run(limits)
    _start(fds, "print(6 * 7)\n")
    assert _report(fds).status == "ok"
    exited = slot.exited(run, grace=30.0)  # a grace never reached: the zygote must tell without a kill
    assert exited.run == run and exited.error == ""
    assert os.WIFEXITED(exited.status) and os.WEXITSTATUS(exited.status) == 0  # exited, not killed
    assert os.pread(fds.out_fd, 100, 0) == b"42\n"
    os.close(fds.out_fd)
    assert slot.pending is not None and slot.pending[0] == exited.next == run + 1
    nxt, fds = slot.take_run(limits)  # the pre-forked child runs the next test
    assert nxt == run + 1
    _start(fds, "print('again')\n")
    assert _report(fds).status == "ok"
    assert os.WIFEXITED(slot.exited(nxt, grace=30.0).status)
    os.close(fds.out_fd)


def test_a_run_past_its_grace_is_killed_on_request(slot):
    limits = Limits(timeout_s=2.0)
    run, fds = slot.take_run(limits)
    _start(fds, "while True:\n    pass\n")
    exited = slot.exited(run, grace=0.2)
    assert exited.run == run
    assert os.WIFSIGNALED(exited.status) and os.WTERMSIG(exited.status) == signal.SIGKILL
    for fd in (fds.res_r, fds.out_fd):
        os.close(fd)
    assert slot.pending is not None  # and the zygote goes on with the next run


def test_new_limits_discard_the_preforked_child(slot):
    run, fds = slot.take_run(Limits(timeout_s=2.0))
    _start(fds, "pass\n")
    _report(fds)
    slot.exited(run, grace=30.0)
    os.close(fds.out_fd)
    preforked = slot.pending[0]
    other, fds = slot.take_run(Limits(timeout_s=3.0, memory_mb=512))
    assert other > preforked
    _start(fds, "import resource\nprint(resource.getrlimit(resource.RLIMIT_AS)[0] >> 20)\n")
    assert _report(fds).status == "ok"
    assert os.WIFEXITED(slot.exited(other, grace=30.0).status)
    assert os.pread(fds.out_fd, 100, 0) == b"512\n"  # the new limits, not the pre-forked child's
    os.close(fds.out_fd)


def test_close_except_keeps_exactly_the_listed_descriptors():
    """Adjacent kept descriptors included (``os.closerange(n, n)`` would close n and everything above)."""
    script = (
        "import os\n"
        "from mcsweep.evaluator.sandbox.linux import close_except\n"
        "fds = [os.open(os.devnull, os.O_RDONLY) for _ in range(6)]\n"
        "keep = {0, 1, 2, fds[0], fds[1], fds[4]}\n"
        "close_except(keep)\n"
        "def alive(fd):\n"
        "    try:\n"
        "        return os.fstat(fd) is not None\n"
        "    except OSError:\n"
        "        return False\n"
        "print({fd for fd in range(100) if alive(fd)} == keep)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"


def _run_dir_used_mb(slot: Slot) -> float:
    """How much the filesystem at the zygote's run directory holds, seen through the zygote's root (the
    zygote proper is the one child of the process the slot started: init of its PID namespace)."""
    pid = slot.proc.pid
    with open(f"/proc/{pid}/task/{pid}/children") as stream:
        zygote = int(stream.read().split()[0])
    with open(f"/proc/{zygote}/mountinfo") as stream:
        [point] = {line.split()[4] for line in stream if line.split()[4].startswith("/tmp/mcsweep-eval-")} or {"/tmp"}
    stat = os.statvfs(f"/proc/{zygote}/root{point}")
    return (stat.f_blocks - stat.f_bfree) * stat.f_frsize / 2**20


def test_a_runs_tmpfs_is_freed_before_its_end_is_told(slot):
    """Freeing a tmpfs the run filled (1 GB: up to 0.3 s) happened as the next run started, so it came out
    of the next solution's wall time (4 of 6 honest solutions sleeping 1.9 s of 2 went past the limit).
    The run's tmpfs is unmounted before its Exited goes out."""
    if not slot.isolation.workdir_tmpfs:
        pytest.skip("run directories are not tmpfs here")
    limits = Limits(timeout_s=10.0)
    run, fds = slot.take_run(limits)
    fill = "for k in range(7):\n    open(f'f{k}', 'wb').write(b'x' * (30 << 20))\n"  # files under the output cap
    _start(fds, "import time\n" + fill + "print('filled', flush=True)\ntime.sleep(0.5)\n")
    end = time.monotonic() + 30
    while os.pread(fds.out_fd, 100, 0) != b"filled\n" and time.monotonic() < end:
        time.sleep(0.01)
    during = _run_dir_used_mb(slot)
    assert _report(fds).status == "ok"
    exited = slot.exited(run, grace=30.0)
    after = _run_dir_used_mb(slot)  # the next run's fresh tmpfs, or none yet
    os.close(fds.out_fd)
    assert exited.error == "" and during >= 200 and after < 10, (during, after)


def test_a_zygote_of_other_code_is_refused_with_a_reason(slot):
    """A zygote starts from the code on disk: one started by a trainer that imported older code (mcsweep
    changed under a running campaign) answered with fields the trainer did not know, and the run failed
    with the message alone. The refusal names the field and the likely cause."""
    from mcsweep.evaluator.sandbox import SandboxError
    from mcsweep.evaluator.sandbox.messages import Exited

    with pytest.raises(SandboxError, match=r"unexpected keyword argument 'landlock'.*changed on disk"):
        slot._parse({"run": 1, "status": 0, "landlock": True}, Exited)


def test_a_run_that_reported_and_exited_in_time_is_not_failed_for_the_zygotes_cleanup():
    """Both report lines in time and a child that exited by itself: a kill asked for at the wall limit only
    waited on the zygote's cleanup (tree reaped, tmpfs unmounted, page cache given back), which is the
    sandbox's time. It was a time_limit (round 14); a child the kill ended still is."""
    problem = Problem((TestCase("", "3\n"),))
    job = Job("print(3)", problem, ("3\n",), (make_comparator("microcoder"),), stop_early=True)
    lines = ([encode(Report(0, status)) for status in ("compiled", "ok")], "")
    out = os.memfd_create("out")
    os.write(out, b"3\n")
    try:
        exited = Exited(1, 0, cpu_s=0.1)
        assert pool._verdict(job, 0, lines, exited, True, out, Limits()).verdict == "accepted"
        killed = Exited(1, signal.SIGKILL, cpu_s=0.1)
        assert pool._verdict(job, 0, lines, killed, True, out, Limits()).verdict == "time_limit"
    finally:
        os.close(out)
