"""Process stage: normalisation, and test validation through the real sandboxed evaluator."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from mcsweep.data.dedup import DedupConfig
from mcsweep.data.process import ProcessConfig, normalise, process
from mcsweep.data.schema import Problem, make_io
from mcsweep.evaluator import Evaluator

ADD = "a, b = map(int, input().split())\nprint(a + b)\n"
SUB = "a, b = map(int, input().split())\nprint(a - b)\n"
CALL = "class Solution:\n    def total(self, nums, k):\n        return sum(nums) + k\n"
INS, OUTS = ["1 2\n", "3 4\n", "5 5\n", "0 0\n"], ["3\n", "7\n", "10\n", "0\n"]


def _p(pid: str, ref: str, outs: list[str] = OUTS, extra: list[str] | None = None, text: str = "") -> Problem:
    return Problem(
        id=pid,
        question=text or f"Problem {pid}: read two integers and print their sum, please.",
        input_output=make_io(INS, outs),
        reference=ref,
        meta={"references": extra or []},
    )


@pytest.fixture(params=[True, False], ids=["run_all", "stop_early"])
def evaluator(request: pytest.FixtureRequest) -> Iterator[Evaluator]:
    ev = Evaluator(workers=2, timeout_s=2.0, run_all=request.param)
    yield ev
    ev.close()


def test_validation_keeps_repairs_and_drops(evaluator: Evaluator) -> None:
    problems = [
        _p("ok", ADD),
        _p("bad-test", ADD, ["3\n", "7\n", "11\n", "0\n"]),  # test 2 expects a wrong sum
        _p("bad-ref", SUB, extra=[ADD, ADD]),  # primary reference wrong, two good ones
        _p("all-fail", SUB, ["9\n", "9\n", "9\n", "9\n"]),
        _p("no-ref", ""),
        Problem(
            id="call",
            question="Return the sum of nums plus k, for the given list nums and integer k.",
            input_output=make_io(["[1, 2]\n3", "[4]\n1"], ["6", "5"], "total"),
            reference=CALL,
        ),
        Problem(
            id="not-json",
            question="Return the sum of nums plus k, as a JSON value this time.",
            input_output=make_io(["[1, 2]\n3"], ["six"], "total"),
            reference=CALL,
        ),
    ]
    kept, drops, report = process(problems, ProcessConfig(min_tests=4), evaluator)
    by_id = {p.id: p for p in kept}
    assert [(d.id, d.reason) for d in drops] == [("all-fail", "references_fail_tests"), ("not-json", "bad_tests")]
    assert by_id["ok"].meta["validation"]["status"] == "accepted"
    assert by_id["bad-test"].meta["validation"]["dropped_tests"] == [2] and by_id["bad-test"].n_tests == 3
    fixed = by_id["bad-ref"]
    assert fixed.reference == ADD and fixed.meta["validation"]["bad_references"] == [0] and fixed.n_tests == 4
    assert by_id["no-ref"].meta["validation"]["status"] == "unvalidated"
    assert by_id["call"].meta["validation"]["status"] == "accepted" and by_id["call"].fmt == "call"
    assert by_id["call"].meta["flags"] == ["too_few_tests"] and "flags" not in by_id["ok"].meta
    assert report["tests_dropped"] == 1 and report["flagged_too_few_tests"] == 2  # bad-test has 3 now


def test_normalise_cleans_text_and_reports_bad_tests() -> None:
    messy = Problem(
        id="m",
        question="  Sum\r\n\r\n\r\n\r\nof  ｎ\u00a0numbers  \n",
        input_output=make_io(["1"], ["1"]),
        difficulty="Hard",
    )
    clean = normalise(messy)
    assert isinstance(clean, Problem) and clean.question == "Sum\n\nof  n numbers"
    assert clean.difficulty == "hard"
    broken = Problem(id="b", question="x", input_output=json.dumps({"inputs": [1], "outputs": 2}))
    assert normalise(broken).reason == "bad_tests"  # type: ignore[union-attr]


def test_dedup_runs_inside_process() -> None:
    text = "Read two integers and print their sum; both fit in 32 bits."
    twins = [_p("a", "", text=text), _p("b", "", text=text)]
    cfg = ProcessConfig(dedup=DedupConfig(threshold=0.8))
    cfg.validate.enabled = False
    kept, drops, report = process(twins, cfg)
    assert [p.id for p in kept] == ["a"] and report["exact_duplicates"] == 1 and drops[0].detail == "of a"
