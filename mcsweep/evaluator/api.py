"""The evaluator's public API (see docs/ARCHITECTURE.md, "Evaluator API")."""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from .comparators import Comparator, make_comparator
from .extract import extract_code
from .pool import Job, TestResult, grade_job, summarise
from .problem import Problem, ProblemFormatError, parse_problem
from .sandbox import DEFAULT_HIDDEN, Isolation, Limits, Slot

log = logging.getLogger(__name__)
VERDICTS = (
    "accepted",
    "wrong_answer",
    "time_limit",
    "memory_limit",
    "runtime_error",
    "compile_error",
    "no_code",
    "sandbox_error",
)


@dataclass(frozen=True)
class GradeRequest:
    """One solution to grade: ``code``, or a ``completion`` whose last fenced python block is used.

    Tests come from ``input_output`` (LiveCodeBench's JSON string, or the same as a dict) or from
    ``problem``, a whole record (``input_output``, ``tests``, or LiveCodeBench's ``*_test_cases``).
    """

    id: str
    code: str | None = None
    completion: str | None = None
    input_output: str | Mapping[str, Any] | None = None
    problem: Mapping[str, Any] | None = None


@dataclass
class GradeResult:
    """Verdict of one solution; ``method`` is the most lenient comparison any test needed."""

    id: str
    passed: bool
    verdict: str
    method: str | None = None
    tests: list[TestResult] = field(default_factory=list)
    shadow: dict[str, bool] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        tests = [vars(t) for t in self.tests]
        return {
            "id": self.id,
            "passed": self.passed,
            "verdict": self.verdict,
            "method": self.method,
            "shadow": self.shadow,
            "tests": tests,
        }


def request_problem(request: GradeRequest) -> Problem:
    """The request's problem, or ProblemFormatError naming the request and the field."""
    record = request.problem if request.problem is not None else {"input_output": request.input_output}
    try:
        return parse_problem(record)
    except ProblemFormatError as err:
        raise ProblemFormatError(err.field, f"request {request.id!r}: {err}") from err


def expected_values(problem: Problem) -> tuple[Any, ...]:
    """Expected outputs as the comparators need them: text for stdin, JSON data for call-based
    (checked to be JSON when the problem was parsed)."""
    if not problem.call_based:
        return tuple(t.output for t in problem.tests)
    return tuple(json.loads(t.output) for t in problem.tests)


def request_code(request: GradeRequest) -> str | None:
    if request.code is not None:
        return request.code if request.code.strip() else None
    return extract_code(request.completion or "")


class Evaluator:
    """Sandboxed, parallel grader. Create once, reuse for many batches, then ``close()``.

    ``shadow_comparators`` are judged on the same outputs so disagreement can be logged. Grading stops
    once every comparator has failed a test (so each one's verdict is sound: a failed verdict cannot
    change); ``run_all`` runs every test. With ``dedupe``, identical code for the same problem runs once
    per batch and its copies share that run's verdict (a deterministic judge's answer at a fraction of
    the sandbox work; a solution whose output depends on chance or timing gets one draw for all its
    copies); ``duplicates`` counts the copies so answered.
    """

    def __init__(
        self,
        comparator: str = "microcoder",
        workers: int | None = None,
        timeout_s: float = 6.0,
        shadow_comparators: Sequence[str] = (),
        run_all: bool = False,
        total_timeout_s: float | None = None,
        memory_mb: int = 1024,
        rtol: float = 1e-6,
        atol: float = 1e-6,
        hidden_paths: Sequence[str] = DEFAULT_HIDDEN,
        dedupe: bool = False,
        wall_timeout_s: float | None = None,
    ) -> None:
        self.comparators: tuple[Comparator, ...] = tuple(
            make_comparator(name, rtol, atol) for name in (comparator, *shadow_comparators)
        )
        self.run_all, self.dedupe = run_all, dedupe
        self.duplicates = 0  # requests answered by an identical request's run (dedupe)
        total = total_timeout_s if total_timeout_s is not None else max(60.0, 10 * timeout_s)
        self.limits = Limits(timeout_s=timeout_s, total_timeout_s=total, memory_mb=memory_mb)
        # timeout_s is each test's CPU limit (its whole tree's); its wall limit is longer, so that a run
        # slowed by a busy host (a trainer on its CPU) is not failed for the time it waited to be scheduled.
        self.wall_s = wall_timeout_s  # None: pool.WALL_FACTOR x timeout_s (pool.grade_job)
        self.total_s = total_timeout_s  # None: per problem, LiveCodeBench's global limit at least (pool.total_budget)
        self.workers = workers or os.cpu_count() or 1
        self._hidden = tuple(hidden_paths)
        # A worker's slot, or its CPU where the slot is to be started afresh (after a sandbox error).
        self._slots: queue.SimpleQueue[Slot | int] = queue.SimpleQueue()
        self._all: list[Slot] = []
        self._lock = threading.Lock()
        self.sandbox_errors = 0  # solutions failed by the sandbox itself, not by their code
        with ThreadPoolExecutor(self.workers) as ex:
            for slot in ex.map(self._new_slot, self._cpus(self.workers)):
                self._slots.put(slot)
        self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="mcsweep-eval")
        # What the sandbox could turn on here (namespaces, cgroup, seccomp...) and what fell back.
        self.isolation: Isolation = self._all[0].isolation
        if not (self.isolation.uid_switch or self.isolation.user_namespace):
            log.warning(
                "evaluator sandbox without root or user namespaces (%s): rlimits only; solutions run as this "
                "user and can read what it can (docs/gpu.md, 'The judge's sandbox on a cluster node')",
                "; ".join(self.isolation.errors),
            )
        elif self.isolation.errors:  # root without namespaces (a container without CAP_SYS_ADMIN, a chroot)
            log.error(
                "evaluator sandbox: layers failed (%s): solutions may see the host", "; ".join(self.isolation.errors)
            )
        for warning in self.isolation.warnings:
            log.warning("evaluator sandbox: %s", warning)

    @staticmethod
    def _cpus(workers: int) -> list[int]:
        """A CPU per worker, in turn over those this process may use, so that a solution's busy processes
        share its own worker's CPU and slow no other worker's solution (workers beyond the CPUs share).
        The turn starts at this process's pid, so that evaluators of runs side by side spread out. One
        worker is pinned too: its neighbours are the trainer's and other jobs' processes, and unpinned a
        solution's processes spread over every CPU the grader may use."""
        allowed = sorted(os.sched_getaffinity(0))
        start = os.getpid()
        return [allowed[(start + i) % len(allowed)] for i in range(workers)]

    def _new_slot(self, cpu: int) -> Slot:
        slot = Slot(self._hidden, cpu=cpu)
        with self._lock:
            self._all.append(slot)
        return slot

    def _retire(self, slot: Slot) -> None:
        with self._lock:
            self._all.remove(slot)
        try:
            slot.close()
        except Exception:
            log.exception("closing a failed zygote")

    def _run(self, job: Job) -> list[TestResult]:
        """Grade one job; whatever goes wrong in the grader or sandbox while doing so becomes this
        solution's ``sandbox_error`` (logged and counted in ``sandbox_errors``) and the rest of the batch
        goes on. The worker's zygote is then started afresh for its next job; one that will not start
        fails that job alone, and the next one tries again, so no failure leaves the evaluator broken."""
        held = self._slots.get()
        try:
            slot = self._new_slot(held) if isinstance(held, int) else held
        except Exception as exc:
            self._slots.put(held)
            return self._sandbox_error(exc)
        try:
            results = grade_job(slot, job, self.limits, self.wall_s, self.total_s)
        except Exception as exc:
            self._retire(slot)
            self._slots.put(slot.cpu)
            return self._sandbox_error(exc)
        self._slots.put(slot)
        return results

    def _sandbox_error(self, exc: Exception) -> list[TestResult]:
        log.error("sandbox error while grading a solution; it is failed and the batch goes on", exc_info=exc)
        with self._lock:
            self.sandbox_errors += 1
        return [TestResult(0, "sandbox_error", error=f"{type(exc).__name__}: {exc}"[:500])]

    def _job(self, request: GradeRequest, cache: dict[Any, tuple[Problem, tuple[Any, ...]]]) -> Job | None:
        key = request.problem if request.problem is not None else request.input_output
        cache_key = key if isinstance(key, str) else id(key)
        if cache_key not in cache:
            problem = request_problem(request)
            cache[cache_key] = (problem, expected_values(problem))
        problem, expected = cache[cache_key]
        code = request_code(request)
        if code is None:
            return None
        return Job(code, problem, expected, self.comparators, stop_early=not self.run_all)

    def _result(self, request: GradeRequest, job: Job | None, tests: list[TestResult]) -> GradeResult:
        shadows = [c.name for c in self.comparators[1:]]
        if job is None:
            return GradeResult(request.id, False, "no_code", shadow=dict.fromkeys(shadows, False))
        verdict, shadow = summarise(tests, len(job.problem.tests), shadows)
        methods = [t.method for t in tests if t.method]
        method = max(methods, key=self._rank) if verdict == "accepted" and methods else None
        return GradeResult(request.id, verdict == "accepted", verdict, method, tests, shadow)

    def _rank(self, method: str) -> int:
        return self.comparators[0].methods.index(method) if method in self.comparators[0].methods else -1

    def grade_iter(self, requests: Iterable[GradeRequest]) -> Iterator[GradeResult]:
        """Grade in parallel, yielding results in request order. Malformed problems raise up front."""
        requests = list(requests)
        cache: dict[Any, tuple[Problem, tuple[Any, ...]]] = {}
        jobs = [self._job(r, cache) for r in requests]
        futures = self._submit(jobs)
        for request, job, future in zip(requests, jobs, futures, strict=True):
            tests = [replace(t, shadow=dict(t.shadow)) for t in future.result()] if future else []
            yield self._result(request, job, tests)

    def _submit(self, jobs: list[Job | None]) -> list[Future[list[TestResult]] | None]:
        """One sandbox run per job, or with ``dedupe`` per distinct (problem, code) pair of the batch."""
        runs: dict[tuple[int, str], Future[list[TestResult]]] = {}
        futures: list[Future[list[TestResult]] | None] = []
        for job in jobs:
            if job is None:
                futures.append(None)
                continue
            key = (id(job.problem), job.code)
            if self.dedupe and key in runs:
                with self._lock:
                    self.duplicates += 1
            else:
                runs[key] = self._executor.submit(self._run, job)
            futures.append(runs[key])
        return futures

    def grade_many(self, requests: Iterable[GradeRequest]) -> list[GradeResult]:
        """Grade a batch in parallel; results in request order."""
        return list(self.grade_iter(requests))

    def grade(self, request: GradeRequest) -> GradeResult:
        return self.grade_many([request])[0]

    def sandbox_cpu_s(self) -> float:
        """CPU seconds used so far by the zygotes and the runs they reaped (for cost accounting)."""
        with self._lock:
            return sum(slot.cpu_s() for slot in self._all)

    def close(self) -> None:
        """Stop the zygotes (each kills and cleans up its current run)."""
        self._executor.shutdown(wait=True)
        with self._lock:
            slots, self._all = list(self._all), []
        for slot in slots:
            slot.close()

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
