"""The typed messages that cross process boundaries, and their wire form (one JSON object each).

Grader -> zygote: ``ZygoteConfig`` once, then ``SpawnRequest`` / ``KillRequest``; zygote -> grader:
``Isolation`` once, then ``Spawned`` (answers) and ``Exited`` (one per run, unasked). Grader -> child:
one ``Payload``; child -> grader: one ``Report`` line (a child runs one test). Decoding checks every
field's type, so a malformed message (a hostile child's forged report, say) is refused as a whole
rather than half-read.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from .limits import Limits

STATUSES = frozenset({"ok", "runtime_error", "memory_limit", "compile_error", "bad_output", "compiled"})
"""A child's report lines: `compiled` or `compile_error` first, written before any of the solution's
code runs; then, unless it did not compile, the outcome (the solution can write that line too)."""


class MessageError(ValueError):
    """A message that does not have its type's fields, each of its type."""


def encode(message: Any) -> bytes:
    return json.dumps(asdict(message)).encode()


def _object(data: bytes | str) -> dict[str, Any]:
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError) as err:
        raise MessageError(f"not JSON: {err}") from err
    if not isinstance(obj, dict):
        raise MessageError(f"expected a JSON object, got {type(obj).__name__}")
    return obj


@dataclass(frozen=True)
class ZygoteConfig:
    """How a zygote sets itself up: the paths to hide from every child, and the syscall filter (BPF, in
    hex; built by the grader, so the zygote need not load libseccomp) with the names it denies, or why
    there is none."""

    hidden: tuple[str, ...]
    seccomp_bpf: str = ""
    seccomp_denied: tuple[str, ...] = ()
    seccomp_error: str = ""
    cpu: int = -1
    """The CPU to hold every run to; -1: none."""

    @classmethod
    def decode(cls, data: bytes | str) -> ZygoteConfig:
        obj = _object(data)
        denied = tuple(obj["seccomp_denied"])
        return cls(tuple(obj["hidden"]), obj["seccomp_bpf"], denied, obj["seccomp_error"], int(obj.get("cpu", -1)))


@dataclass(frozen=True)
class SpawnRequest:
    """Start a run under these limits now (the grader has none waiting: its first test, new limits, or a
    pre-fork that failed); a pre-forked child it did not use is killed first. From then on the zygote
    pre-forks each next run with the same limits as the current one ends."""

    limits: Limits


@dataclass(frozen=True)
class KillRequest:
    """End run ``run`` now (its wall time is over) if it is still going; ignored for any other run."""

    run: int


@dataclass(frozen=True)
class Spawned:
    """Run ``run`` started (its grader's three descriptors attached), or (run 0) why it could not."""

    run: int
    error: str = ""


@dataclass(frozen=True)
class Exited:
    """Sent unasked as soon as run ``run`` has ended (its child exited, or was killed on a
    ``KillRequest``) and its whole tree was killed and reaped: the child's wait status (None when there
    was no child), the CPU seconds of the run's whole process tree and whether the kernel killed part of
    it for memory (both where a cgroup accounts them), the zygote's own error while handling the run, if
    any (the zygote carries on: a sandbox error), and the pre-forked next run (its grader's three
    descriptors attached; 0 when there is none)."""

    run: int
    status: int | None
    cpu_s: float = 0.0
    oom_killed: bool = False
    error: str = ""
    next: int = 0


ZygoteRequest = SpawnRequest | KillRequest


def decode_request(data: bytes) -> ZygoteRequest:
    obj = _object(data)
    if "limits" in obj:
        return SpawnRequest(Limits(**obj["limits"]))
    return KillRequest(int(obj["run"]))


@dataclass(frozen=True)
class Payload:
    """What a child runs: the code and ONE test's input (never an output, never another test's input)."""

    code: str
    input: str
    fn_name: str | None
    index: int

    @classmethod
    def decode(cls, data: bytes) -> Payload:
        obj = _object(data)
        return cls(obj["code"], obj["input"], obj["fn_name"], obj["index"])


@dataclass(frozen=True)
class Report:
    """One test's outcome as the child saw it: a status, an error text and, for call-based code, the
    result as tagged JSON (stdin output is read from the output memfd, not sent twice). The grader
    checks the line's size against its cap before decoding it."""

    i: int
    status: str
    err: str = ""
    result: str = ""

    @classmethod
    def decode(cls, line: bytes) -> Report:
        obj = _object(line)
        report = cls(obj.get("i"), obj.get("status"), obj.get("err"), obj.get("result"))  # type: ignore[arg-type]
        if not (
            type(report.i) is int
            and type(report.status) is str  # checked before the lookup: a list there raised TypeError
            and report.status in STATUSES
            and isinstance(report.err, str)
            and isinstance(report.result, str)
        ):
            raise MessageError("report fields of the wrong type")
        return report
