"""Grader-side scheduling: run one solution's tests in sandboxed children and judge each report.

A slot thread drives one child at a time. It writes the payload (code and inputs, never outputs), reads
one report per test, judges it at once with every comparator, and kills the child as soon as the verdict
is known (first failure, unless all tests must run). A timeout kills only that child; the other slots
keep going, and with ``run_all`` a fresh child continues after the timed-out test.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .comparators import Comparator, decode_tagged
from .problem import Problem
from .sandbox import SETUP_FAILED, Limits, Slot
from .sandbox.messages import MessageError, Payload, Report, encode

log = logging.getLogger(__name__)
_TIMEOUT, _EOF, _MALFORMED, _OVERFLOW = "timeout", "eof", "malformed", "overflow"


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
    """Everything the grader needs for one solution; only ``code`` and inputs reach the child."""

    code: str
    problem: Problem
    expected: tuple[Any, ...]
    comparators: tuple[Comparator, ...]  # primary first, then shadows
    stop_early: bool

    def payload(self, start: int, limits: Limits) -> bytes:
        inputs = tuple(t.input for t in self.problem.tests)
        return encode(Payload(self.code, inputs, self.problem.fn_name, start, limits.timeout_s))


class _Reports:
    """Newline-delimited JSON reports from a child, with a deadline and a size cap per report."""

    def __init__(self, fd: int, cap: int) -> None:
        self.fd, self.cap, self.buf = fd, cap, bytearray()

    def next(self, timeout: float) -> Report | str:
        end = time.monotonic() + timeout
        while (nl := self.buf.find(b"\n")) < 0:
            if len(self.buf) > self.cap:
                return _OVERFLOW
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return _TIMEOUT
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                return _EOF
            self.buf += chunk
        line = bytes(self.buf[:nl])
        del self.buf[: nl + 1]
        try:
            return Report.decode(line)
        except MessageError:
            return _MALFORMED


def judge(job: Job, index: int, status: str, out: str, err: str) -> TestResult:
    """Turn a child's report into a verdict; compare on data, with every comparator."""
    if status != "ok":
        verdict = "wrong_answer" if status == "bad_output" else status
        return TestResult(index, verdict, error=err, shadow={c.name: False for c in job.comparators[1:]})
    expected, order = job.expected[index], job.problem.order_irrelevant
    try:
        if job.problem.call_based:
            got = decode_tagged(out)
            methods = [c.call(got, expected, order) for c in job.comparators]
        else:
            methods = [c.stdin(out, expected, order) for c in job.comparators]
    except Exception as exc:  # output crafted to break a comparison is not an answer
        shadow = {c.name: False for c in job.comparators[1:]}
        return TestResult(index, "wrong_answer", error=f"{type(exc).__name__}: {exc}"[:500], shadow=shadow)
    shadow = {c.name: m is not None for c, m in zip(job.comparators[1:], methods[1:], strict=True)}
    verdict = "accepted" if methods[0] is not None else "wrong_answer"
    return TestResult(index, verdict, methods[0], error=err, shadow=shadow)


def _death(job: Job, index: int, status: int | None, out_fd: int) -> TestResult:
    """Verdict for a test whose child died before reporting it."""
    if status is not None and os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        verdict = "time_limit" if sig == signal.SIGXCPU else "runtime_error"
        return TestResult(index, verdict, error=f"killed by {signal.Signals(sig).name}")
    code = os.waitstatus_to_exitcode(status) if status is not None else -1
    if code == SETUP_FAILED:
        log.warning("sandbox child exited with status %d: its setup may have failed", code)
    if code == 0 and not job.problem.call_based:  # os._exit(0): judge what was flushed, as a judge does
        text = os.pread(out_fd, os.fstat(out_fd).st_size, 0).decode("utf-8", errors="replace")
        return judge(job, index, "ok", text, "process ended with os._exit(0)")
    return TestResult(index, "runtime_error", error=f"exit status {code} before the test finished")


def _send(fd: int, data: bytes) -> None:
    view = memoryview(data)
    with contextlib.suppress(BrokenPipeError):
        while view:
            view = view[os.write(fd, view) :]
    os.close(fd)


def _run_child(slot: Slot, job: Job, limits: Limits, start: int, deadline: float, out: list[TestResult]) -> bool:
    """Run tests from ``start`` in one child, appending results; True when grading must stop."""
    job_r, job_w = os.pipe()
    res_r, res_w = os.pipe()
    out_fd = os.memfd_create("stdout", os.MFD_CLOEXEC)
    try:
        slot.spawn(limits, [job_r, res_w, out_fd])
    finally:
        os.close(job_r)
        os.close(res_w)
    try:
        _send(job_w, job.payload(start, limits))
        return _read_reports(slot, job, limits, start, deadline, out, res_r, out_fd)
    finally:
        os.close(res_r)
        os.close(out_fd)


def _read_reports(
    slot: Slot,
    job: Job,
    limits: Limits,
    index: int,
    deadline: float,
    out: list[TestResult],
    res_r: int,
    out_fd: int,
) -> bool:
    reports = _Reports(res_r, 2 * (limits.output_mb << 20) + (1 << 20))
    n = len(job.problem.tests)
    t0 = time.monotonic()
    while index < n:
        report = reports.next(min(t0 + limits.timeout_s, deadline) - time.monotonic())
        now = time.monotonic()
        alive = isinstance(report, Report) and report.i == index
        if alive:
            result = judge(job, index, report.status, report.out, report.err)
        elif report == _EOF:
            result = _death(job, index, slot.wait(), out_fd)
        else:
            _finish(slot)
            result = _failure(index, report, now >= deadline)
        result.time_s = round(now - t0, 4)
        out.append(result)
        failed = result.verdict != "accepted"
        stop = result.verdict == "compile_error" or now >= deadline or (failed and job.stop_early)
        if stop or not alive:
            if alive:
                _finish(slot)
            return stop or index + 1 >= n
        index, t0 = index + 1, now
    _finish(slot)
    return False


def _failure(index: int, report: Any, total_expired: bool) -> TestResult:
    if report == _TIMEOUT:
        return TestResult(index, "time_limit", error="total time limit" if total_expired else "wall time limit")
    if report == _OVERFLOW:
        return TestResult(index, "runtime_error", error="output limit exceeded")
    return TestResult(index, "runtime_error", error="malformed report from the sandbox")


def _finish(slot: Slot) -> None:
    """Kill (if still running) and reap the child: its results are all in, or no longer wanted."""
    slot.wait(0)


def grade_job(slot: Slot, job: Job, limits: Limits) -> list[TestResult]:
    """Test results of one solution: up to the first failure, or (``stop_early`` off) one per test."""
    results: list[TestResult] = []
    deadline = time.monotonic() + limits.total_timeout_s
    n = len(job.problem.tests)
    while len(results) < n:
        if _run_child(slot, job, limits, len(results), deadline, results):
            break
    if len(results) < n and (not job.stop_early or all(r.verdict == "accepted" for r in results)):
        results += _not_run(results, n if not job.stop_early else len(results) + 1)
    return results


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
