"""Grader-side scheduling: run each test of a solution in a fresh sandboxed child and judge its report.

A slot thread drives one child at a time: it writes the payload (the code and that test's input, never
an output), waits for the child's one report under the test's wall limit, has the zygote kill and reap
the child's whole process tree, then judges with every comparator. Grading stops once every
comparator has failed a test, unless all tests must run. Everything that crosses from the child is
size-checked before it is parsed: the report line (a cap), the output (the output cap, then at most
``OUTPUT_FACTOR`` times the expected output plus a little, then the comparators' token and line gates),
a call-based result (at most ``RESULT_FACTOR`` times the
expected result's JSON, plus a little, and ``STRUCTURE_FACTOR`` times its containers and items).
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .comparators import Comparator, decode_tagged
from .problem import Problem
from .sandbox import SETUP_FAILED, Limits, SandboxError, Slot
from .sandbox.messages import Exited, Payload, Report, encode

_TIMEOUT, _EOF, _OVERFLOW = "timeout", "eof", "overflow"
REPORT_CAP = 1 << 16  # a report without a result: status and an error text cut to 500 characters
RESULT_FACTOR, RESULT_SLACK = 16, 4096  # tagging, float digits and \u escapes inflate a right answer <16x
# A stdin answer longer than this (spacing, float digits) is wrong unread: the grader's work and memory per
# test then follow the expected output, not the 32 MiB output cap. 32 MiB of invalid UTF-8 decoded to
# 128 MB of text (one 4-byte character makes every character 4 bytes) and cost the grader 2 s a test.
OUTPUT_FACTOR, OUTPUT_SLACK = 16, 1 << 20
# Parsing costs per value, not per byte: "[]," is 3 bytes of JSON and ~80 of Python objects. A result with
# more containers and items than this many times the expected result's (tags add at most ~3x) is wrong
# unparsed, so decoding and comparing stay linear in the expected result.
STRUCTURE_FACTOR, STRUCTURE_SLACK = 4, 64
SHORT_PIECE, PACE_S = 4096, 0.001  # a report arriving in pieces: see read_report
ERROR_CHARS = 500  # of a report's error text, as the child cuts its own
# The wall limit, as a multiple of the CPU limit. The CPU time of a test's whole tree is its limit (as on a
# contest judge); the wall limit only ends runs that wait without spending CPU. Equal to the CPU limit, it
# failed honest solutions on a busy host: a run held to one CPU shared with a trainer got a third of it, and
# 39 of 40 solutions spending half their limit in CPU were time_limit (round 14).
WALL_FACTOR = 3.0
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # but tab and newline


@dataclass
class TestResult:
    """One test's outcome under the primary comparator, plus each shadow comparator's yes/no."""

    index: int
    verdict: str
    method: str | None = None
    time_s: float = 0.0
    error: str = ""
    shadow: dict[str, bool] = field(default_factory=dict)

    __test__ = False  # not a pytest class


@dataclass(frozen=True)
class Job:
    """Everything the grader needs for one solution; only ``code`` and one input reach each child."""

    code: str
    problem: Problem
    expected: tuple[Any, ...]
    comparators: tuple[Comparator, ...]  # primary first, then shadows
    stop_early: bool

    def payload(self, index: int) -> bytes:
        return encode(Payload(self.code, self.problem.tests[index].input, self.problem.fn_name, index))

    def structure_cap(self, index: int) -> int:
        """The most containers and items (counted as in ``structure``) a right call-based result can have."""
        return STRUCTURE_FACTOR * structure(self.problem.tests[index].output) + STRUCTURE_SLACK

    def output_cap(self, index: int) -> int:
        """The longest stdin output that could still be right (in bytes)."""
        return OUTPUT_FACTOR * len(self.problem.tests[index].output.encode()) + OUTPUT_SLACK

    def result_cap(self, index: int) -> int:
        """The longest call-based result that could still be right: bounds the grader's parsing work."""
        return RESULT_FACTOR * len(self.problem.tests[index].output.encode()) + RESULT_SLACK


def read_report(fd: int, cap: int, timeout: float, lines: int = 2) -> tuple[list[bytes], str]:
    """Up to ``lines`` report lines from ``fd`` within ``timeout`` seconds, and why it stopped short
    ("" when it did not): the child's end, the time, or ``cap`` bytes (``poll``, so any descriptor number
    works). Linear in what arrives (each byte is searched for a line end once), and paced: a child that
    wrote its report a byte at a time, each once the last was read, kept a grader thread busy for the
    test's whole wall time (0.87 s of the grader's CPU a test, an honest solution beside it starved past
    its limit). After a short piece with no line end the reader waits ``PACE_S``, so such a child
    costs at most one wake-up per ``PACE_S``; a line written at once arrives whole and waits for nothing.
    Never blocks: ``poll`` can call the descriptor readable when a read finds nothing (a unix socket's
    urgent byte, ``MSG_OOB``: a blocking read then waited for the child's next byte, past every limit)."""
    end = time.monotonic() + timeout
    os.set_blocking(fd, False)
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    got: list[bytes] = []
    buffer, size, searched = bytearray(), 0, 0
    while len(got) < lines:
        cut = buffer.find(b"\n", searched)
        if cut >= 0:
            got.append(bytes(buffer[:cut]))
            del buffer[: cut + 1]
            searched = 0
            continue
        if size > cap:  # only once the lines already whole are out: the child's first one came in the same
            # read as a flood and was lost, and the run looked like the sandbox's failed setup
            return got, _OVERFLOW
        searched = len(buffer)
        left = end - time.monotonic()
        if left <= 0 or not poller.poll(int(left * 1000) + 1):
            return got, _TIMEOUT
        try:
            chunk = os.read(fd, min(1 << 20, cap + 1 - size))
        except BlockingIOError:  # readable for poll, nothing to read: paced like a short piece
            time.sleep(PACE_S)
            continue
        if not chunk:
            return got, _EOF
        buffer += chunk
        size += len(chunk)
        if size <= cap and len(chunk) < SHORT_PIECE and b"\n" not in chunk:
            time.sleep(PACE_S)
    return got, ""


def structure(text: str | bytes) -> int:
    """An upper bound on the containers and items of the JSON ``text`` (brackets, braces and commas,
    counted at C speed; those inside strings count too, alike in a right answer and the expected one).
    Bytes too: a report line is bounded before it is decoded."""
    marks = ("[", "{", ",") if isinstance(text, str) else (b"[", b"{", b",")
    return sum(text.count(mark) for mark in marks)


FAR_MORE_STRUCTURED = "result far more structured than the expected one"

# What output crafted to break a decoder or a comparison makes it raise: that output's failure (a wrong
# answer under that comparator alone). Anything else is a bug of the grader's: it propagates, and the
# solution is a logged and counted sandbox_error, never a silent wrong answer.
DATA_ERRORS = (ValueError, TypeError, RecursionError, OverflowError, ArithmeticError, MemoryError)


def judge(job: Job, index: int, status: str, out: str, err: str) -> TestResult:
    """Turn a child's report into a verdict; compare on data, with every comparator, each on its own (a
    shadow that fails to compare fails only itself)."""
    if status != "ok":
        verdict = "wrong_answer" if status == "bad_output" else status
        return TestResult(index, verdict, error=err, shadow={c.name: False for c in job.comparators[1:]})
    try:
        got = _decoded_result(job, index, out) if job.problem.call_based else out
    except DATA_ERRORS as exc:
        return judge(job, index, "bad_output", "", f"{type(exc).__name__}: {exc}"[:500])
    methods, errors = [], []
    for comparator in job.comparators:
        try:
            methods.append(_compare(comparator, job, index, got))
        except DATA_ERRORS as exc:
            methods.append(None)
            errors.append(f"{comparator.name}: {type(exc).__name__}: {exc}")
    shadow = {c.name: m is not None for c, m in zip(job.comparators[1:], methods[1:], strict=True)}
    verdict = "accepted" if methods[0] is not None else "wrong_answer"
    return TestResult(index, verdict, methods[0], error="; ".join(e for e in (err, *errors) if e)[:500], shadow=shadow)


def _decoded_result(job: Job, index: int, out: str) -> Any:
    if structure(out) > job.structure_cap(index):
        raise ValueError(FAR_MORE_STRUCTURED)
    return decode_tagged(out)


def _compare(comparator: Comparator, job: Job, index: int, got: Any) -> str | None:
    expected, order = job.expected[index], job.problem.order_irrelevant
    if job.problem.call_based:
        return comparator.call(got, expected, order)
    return comparator.stdin(got, expected, order)


def signal_name(sig: int) -> str:
    """SIGKILL, SIGRTMIN+3, or "signal 64": real-time signals have no name in ``signal.Signals``."""
    with contextlib.suppress(ValueError):
        return signal.Signals(sig).name
    if signal.SIGRTMIN <= sig <= signal.SIGRTMAX:
        return f"SIGRTMIN+{sig - signal.SIGRTMIN}"
    return f"signal {sig}"


def _output(job: Job, index: int, out_fd: int, limits: Limits, err: str) -> TestResult:
    """Judge what the test wrote to fd 1, sized before it is read and decoded strictly: over the output
    cap it is a runtime error; far longer than the expected output, or not UTF-8 (a Python program
    printing text writes none), it is wrong without being compared."""
    size = os.fstat(out_fd).st_size
    if size > limits.output_mb << 20:
        return TestResult(index, "runtime_error", error="output limit exceeded")
    if size > job.output_cap(index):
        return judge(job, index, "bad_output", "", "output far longer than the expected one")
    try:
        text = os.pread(out_fd, size, 0).decode("utf-8")
    except UnicodeDecodeError as exc:
        return judge(job, index, "bad_output", "", f"output is not UTF-8 ({exc.reason} at byte {exc.start})")
    return judge(job, index, "ok", text, err)


def _death(job: Job, index: int, exited: Exited, out_fd: int, limits: Limits) -> TestResult:
    """Verdict for a test whose child ended without reporting it."""
    status = exited.status
    if status is not None and os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        verdict = "time_limit" if sig == signal.SIGXCPU else "runtime_error"
        return TestResult(index, verdict, error=f"killed by {signal_name(sig)}")
    code = os.waitstatus_to_exitcode(status) if status is not None else -1
    if code == 0 and not job.problem.call_based:  # os._exit(0): judge what was flushed, as a judge does
        return _output(job, index, out_fd, limits, "process ended with os._exit(0)")
    return TestResult(index, "runtime_error", error=f"exit status {code} before the test finished")


def _decoded(job: Job, index: int, line: bytes) -> Report | TestResult:
    """A report line as data. Its error text is cut to ``ERROR_CHARS`` without control characters here,
    not only in the child: the solution can write a line of its own (terminal escapes, 64 KiB). The whole
    line's structure is bounded before it is parsed, not only its result's: a forged line can carry fields
    of its own, and one padded with 3.5M empty lists (within a call-based line's byte cap) cost the grader
    1.4 s of CPU, holding the GIL, and 270 MB to parse (round 15). Our own line adds its error text and the
    envelope's few braces and commas to the result's."""
    if structure(line) > _line_structure_cap(job, index):
        if job.problem.call_based:
            return TestResult(index, "wrong_answer", error=FAR_MORE_STRUCTURED)
        return TestResult(index, "runtime_error", error="malformed report from the sandbox")
    try:
        report = Report.decode(line)
    except Exception:  # bytes the solution may have written: whatever breaks decoding is its own error
        return TestResult(index, "runtime_error", error="malformed report from the sandbox")
    if report.i != index:
        return TestResult(index, "runtime_error", error="report for another test")
    return replace(report, err=_CONTROL.sub("?", report.err[:ERROR_CHARS]))


def _line_structure_cap(job: Job, index: int) -> int:
    """The most containers and items (counted as ``structure`` counts them) our child's line can hold."""
    return (job.structure_cap(index) if job.problem.call_based else 0) + ERROR_CHARS + 16


def _reported(job: Job, index: int, report: Report, exited: Exited, out_fd: int, limits: Limits) -> TestResult:
    """The solution's outcome line, believed as far as the child's exit status bears it out: the solution
    could have written it (ahead of a crash, a hang or other output), but not its own exit status."""
    if report.status in ("compiled", "compile_error"):  # the child says these first or never
        return TestResult(index, "runtime_error", error="the solution wrote to the report channel")
    status = exited.status
    code = os.waitstatus_to_exitcode(status) if status is not None and os.WIFEXITED(status) else None
    if code is None or (report.status == "ok") != (code == 0):
        return _death(job, index, exited, out_fd, limits)
    if report.status != "ok" or job.problem.call_based:
        return judge(job, index, report.status, report.result, report.err)
    return _output(job, index, out_fd, limits, report.err)


def _verdict(
    job: Job, index: int, got: tuple[list[bytes], str], exited: Exited, killed: bool, out_fd: int, limits: Limits
) -> TestResult:
    """From what the grader knows for itself (memory, CPU, whether the run ended in time, its exit status,
    its output) first; the report lines where those leave it open."""
    if exited.oom_killed:
        return TestResult(index, "memory_limit", error="the test's processes exceeded the memory limit")
    if exited.cpu_s > limits.timeout_s:
        return TestResult(index, "time_limit", error=f"CPU time of the test's processes {exited.cpu_s:.2f} s")
    lines, short = got
    if lines:  # the first line is ours: written before any of the solution's code ran
        stage = _decoded(job, index, lines[0])
        if isinstance(stage, TestResult) or stage.status == "compile_error":
            return stage if isinstance(stage, TestResult) else judge(job, index, stage.status, "", stage.err)
        if stage.status != "compiled":
            return TestResult(index, "runtime_error", error="malformed report from the sandbox")
    if short == _TIMEOUT or (killed and not _ended_by_itself(exited)):
        return TestResult(index, "time_limit", error="wall time limit")
    if len(lines) == 2:
        report = _decoded(job, index, lines[1])
        return report if isinstance(report, TestResult) else _reported(job, index, report, exited, out_fd, limits)
    if short == _OVERFLOW:
        if job.problem.call_based:
            return TestResult(index, "wrong_answer", error="result far larger than the expected one")
        return TestResult(index, "runtime_error", error="report over its size cap")
    return _death(job, index, exited, out_fd, limits)


def _ended_by_itself(exited: Exited) -> bool:
    """The child exited (it was not killed): so before the kill the grader asked for at the wall limit, which
    then only waited on the zygote's cleanup of the run (its tree reaped, its tmpfs unmounted, the page cache
    it left given back), the sandbox's time, not the solution's."""
    return exited.status is not None and os.WIFEXITED(exited.status)


def _setup_failed(exited: Exited) -> bool:
    """The child exited with SETUP_FAILED before its first line (written before any of the solution's code
    runs): the sandbox failed, not the solution, and the slot gets a fresh zygote. A zygote left unable to
    set up runs (by a run that reached it) would otherwise fail every later solution as its own error."""
    status = exited.status
    return status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == SETUP_FAILED


def _send(fd: int, data: bytes) -> None:
    view = memoryview(data)
    with contextlib.suppress(BrokenPipeError):
        while view:
            view = view[os.write(fd, view) :]
    os.close(fd)


def run_test(slot: Slot, job: Job, limits: Limits, index: int, deadline: float, wall_s: float) -> TestResult:
    """Run test ``index`` in a fresh child (pre-forked by the zygote as the previous test ended): payload
    in, one report out within ``wall_s``; the zygote kills and reaps the child's whole tree the moment the
    child exits (or, past the wall limit, when told to) and tells us, with the next test's child already
    forked; then judged."""
    run, fds = slot.take_run(limits)
    try:
        t0 = time.monotonic()
        _send(fds.job_w, job.payload(index))
        cap = job.result_cap(index) + REPORT_CAP if job.problem.call_based else REPORT_CAP
        end = min(t0 + wall_s, deadline)
        got = read_report(fds.res_r, cap, end - time.monotonic())
        wall = time.monotonic() - t0
        exited = slot.exited(run, 0.0 if got[1] == _TIMEOUT else max(0.0, end - time.monotonic()))
        if exited.error:
            raise SandboxError(f"test {index}: {exited.error}")
        if not got[0] and _setup_failed(exited):
            raise SandboxError(f"test {index}: the run's setup failed before the solution ran")
        result = _verdict(job, index, got, exited, slot.killed, fds.out_fd, limits)
        if result.verdict == "time_limit" and time.monotonic() >= deadline:
            result.error = "total time limit"
        result.time_s = round(wall, 4)
        return result
    finally:
        os.close(fds.res_r)
        os.close(fds.out_fd)


def _failed(job: Job, result: TestResult) -> set[str]:
    """The comparators under which ``result`` failed (the primary, then each shadow by name)."""
    failed = {c.name for c in job.comparators[1:] if not result.shadow.get(c.name, False)}
    return failed | {job.comparators[0].name} if result.verdict != "accepted" else failed


def grade_job(
    slot: Slot, job: Job, limits: Limits, wall_s: float | None = None, total_s: float | None = None
) -> list[TestResult]:
    """Test results of one solution: until every comparator has failed a test (no later test can change
    a failed verdict, so each comparator's verdict is sound), or (``stop_early`` off) one per test. Each
    test's wall limit is ``wall_s`` (``WALL_FACTOR`` times the CPU limit unless given); the solution's is
    ``total_s`` or else ``total_budget``."""
    wall_s = wall_s if wall_s is not None else WALL_FACTOR * limits.timeout_s
    results: list[TestResult] = []
    deadline = time.monotonic() + (total_s if total_s is not None else total_budget(job, limits))
    n = len(job.problem.tests)
    undecided = {c.name for c in job.comparators}
    while len(results) < n and time.monotonic() < deadline:
        result = run_test(slot, job, limits, len(results), deadline, wall_s)
        results.append(result)
        undecided -= _failed(job, result)
        if result.verdict == "compile_error" or (job.stop_early and not undecided):
            break
    if len(results) < n and (not job.stop_early or undecided):
        results += _not_run(results, n if not job.stop_early else len(results) + 1)
    return results


def total_budget(job: Job, limits: Limits) -> float:
    """The default wall limit of a whole solution: ``limits.total_timeout_s``, or LiveCodeBench's global
    limit, (per-test limit + 1 s) x tests + 5 s, where the problem has more tests. A fixed total cut honest
    solutions to problems with many tests (each of 100 tests within its limit, 77 had run at 60 s; round
    14); every test's whole wall limit (3x) let a sleeping solution hold a worker 3x as long as
    LiveCodeBench's."""
    return max(limits.total_timeout_s, len(job.problem.tests) * (limits.timeout_s + 1.0) + 5.0)


def _not_run(results: list[TestResult], until: int) -> list[TestResult]:
    """Results for tests never run: a compile error fails them all; otherwise the total time ran out."""
    if results and results[-1].verdict == "compile_error":
        return [TestResult(k, "compile_error", error=results[-1].error) for k in range(len(results), until)]
    return [TestResult(k, "time_limit", error="not run: total time limit") for k in range(len(results), until)]


def summarise(results: Sequence[TestResult], n_tests: int, names: Sequence[str]) -> tuple[str, dict[str, bool]]:
    """Solution verdict (first non-accepted test) and each shadow comparator's pass/fail."""
    verdict = next((r.verdict for r in results if r.verdict != "accepted"), "accepted")
    complete = len(results) == n_tests
    shadow = {name: complete and all(r.shadow.get(name, False) for r in results) for name in names}
    return verdict, shadow
