"""Exact and near-duplicate removal, and n-gram decontamination with its overlap report."""

from __future__ import annotations

from mcsweep.data.decontam import DecontamConfig, decontaminate
from mcsweep.data.dedup import DedupConfig, dedup
from mcsweep.data.schema import Problem, make_io

STORY = (
    "Alice has a row of n boxes, the i-th holding a_i coins. In one move she may take all coins from "
    "two adjacent boxes and put them into a new box between them. Find the largest number of coins "
    "any single box can hold after at most k moves, and print it modulo 998244353."
)
BOILER = "The first line contains an integer n. The second line contains n integers."


def _p(pid: str, text: str, out: str = "1\n") -> Problem:
    return Problem(id=pid, question=text, input_output=make_io(["1\n"], [out]))


def test_exact_near_and_distinct() -> None:
    problems = [
        _p("a", STORY),
        _p("b", STORY.upper()),  # same words after normalisation, same tests
        _p("c", STORY.replace("Alice", "Bob"), "2\n"),
        _p("d", "Given a string s, count its palindromic substrings and print the count."),
    ]
    kept, drops = dedup(problems, DedupConfig(threshold=0.7))
    assert [p.id for p in kept] == ["a", "d"]
    assert [(d.id, d.reason) for d in drops] == [("b", "exact_duplicate"), ("c", "near_duplicate")]
    assert drops[1].detail.startswith("of a (jaccard~")


def test_threshold_is_configurable() -> None:
    edited = STORY.replace("Alice", "Bob")
    kept, _ = dedup([_p("a", STORY), _p("c", edited, "2\n")], DedupConfig(threshold=0.99))
    assert [p.id for p in kept] == ["a", "c"]
    kept, _ = dedup([_p("a", STORY), _p("c", edited, "2\n")], DedupConfig(threshold=0.9))
    assert [p.id for p in kept] == ["a"]


def test_decontamination_drops_copies_and_reports_overlaps() -> None:
    tests = [_p(f"t{i}", f"{BOILER} Task {i} asks for something unrelated to coins.") for i in range(30)]
    tests.append(_p("t-story", STORY + " " + BOILER))
    train = [_p("copy", "Story time. " + STORY), _p("fresh", "Count inversions in the array. " + BOILER)]
    kept, drops, overlaps = decontaminate(train, tests, DecontamConfig(n=8, min_shared=3, max_df=0.05))
    assert [p.id for p in kept] == ["fresh"]  # its only shared n-grams are the boilerplate
    assert drops[0].id == "copy" and "with t-story" in drops[0].detail
    hit = next(o for o in overlaps if o.train_id == "copy")
    assert hit.contaminated and hit.shared >= 30
    assert not any(o.train_id == "fresh" and o.contaminated for o in overlaps)
