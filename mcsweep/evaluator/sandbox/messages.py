"""The typed messages that cross process boundaries, and their wire form (one JSON object each).

Grader -> zygote: ``ZygoteConfig`` once, then ``SpawnRequest`` / ``WaitRequest``; zygote -> grader:
``Isolation`` once, then ``Spawned`` / ``Exited``. Grader -> child: one ``Payload``; child -> grader:
one ``Report`` line per test. Decoding checks every field's type, so a malformed message (a hostile
child's forged report, say) is refused as a whole rather than half-read.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from .limits import Limits

STATUSES = frozenset({"ok", "runtime_error", "memory_limit", "compile_error", "bad_output"})


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
    """How a zygote sets itself up: the paths to hide from every child."""

    hidden: tuple[str, ...]

    @classmethod
    def decode(cls, data: bytes | str) -> ZygoteConfig:
        return cls(tuple(_object(data)["hidden"]))


@dataclass(frozen=True)
class SpawnRequest:
    """Fork a child under these limits (with the three descriptors passed alongside)."""

    limits: Limits


@dataclass(frozen=True)
class WaitRequest:
    """Wait up to ``grace`` seconds for the child, then kill it, reap it and clean up."""

    grace: float


@dataclass(frozen=True)
class Spawned:
    pid: int


@dataclass(frozen=True)
class Exited:
    """The child's wait status, or None when there was no child."""

    status: int | None


ZygoteRequest = SpawnRequest | WaitRequest


def decode_request(data: bytes) -> ZygoteRequest:
    obj = _object(data)
    if "limits" in obj:
        return SpawnRequest(Limits(**obj["limits"]))
    return WaitRequest(float(obj["grace"]))


@dataclass(frozen=True)
class Payload:
    """What a child runs: the code and the inputs of tests ``start`` onwards (never outputs)."""

    code: str
    inputs: tuple[str, ...]
    fn_name: str | None
    start: int
    timeout_s: float

    @classmethod
    def decode(cls, data: bytes) -> Payload:
        obj = _object(data)
        return cls(obj["code"], tuple(obj["inputs"]), obj["fn_name"], obj["start"], obj["timeout_s"])


@dataclass(frozen=True)
class Report:
    """One test's outcome as the child saw it: a status, the captured output, an error text."""

    i: int
    status: str
    out: str = ""
    err: str = ""

    @classmethod
    def decode(cls, line: bytes) -> Report:
        obj = _object(line)
        report = cls(obj.get("i"), obj.get("status"), obj.get("out"), obj.get("err"))  # type: ignore[arg-type]
        if not (
            type(report.i) is int
            and report.status in STATUSES
            and isinstance(report.out, str)
            and isinstance(report.err, str)
        ):
            raise MessageError("report fields of the wrong type")
        return report
