"""The micro world's sets load as pipeline problems (the policy provider needs the built policy and
is exercised by the documented micro_hard build, not here)."""

from __future__ import annotations

from mcsweep.data.micro import micro_set
from mcsweep.data.process import normalise
from mcsweep.data.schema import Problem


def test_micro_pool_records_are_pipeline_problems() -> None:
    problems = [Problem.from_dict(r) for r in micro_set("pool", n=40)]
    assert {p.fmt for p in problems} == {"stdin", "call"}
    assert all(isinstance(normalise(p), Problem) and p.reference for p in problems)
    assert {p.difficulty for p in problems} <= {"easy", "medium", "hard"}
