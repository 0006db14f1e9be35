"""Shared evaluators for the evaluator tests (starting zygotes costs ~0.3 s, so reuse them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mcsweep.evaluator import Evaluator


@pytest.fixture(scope="session")
def evaluator() -> Iterator[Evaluator]:
    ev = Evaluator(comparator="microcoder", workers=2, timeout_s=1.0, shadow_comparators=("livecodebench",))
    yield ev
    ev.close()


@pytest.fixture(scope="session")
def early() -> Iterator[Evaluator]:
    """Stops at the first failing test (the binary-reward default)."""
    ev = Evaluator(comparator="livecodebench", workers=2, timeout_s=1.0)
    yield ev
    ev.close()
