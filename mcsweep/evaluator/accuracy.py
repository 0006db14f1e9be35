"""The evaluator's own accuracy: confusion matrices of both comparators on the labelled corpus.

One sandboxed run per case judges it with ``microcoder`` and, as a shadow on the same outputs,
``livecodebench``. A false positive passes a solution a contest judge rejects (a reward hack that
works); a false negative fails one it accepts (lost reward).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcsweep.io.jsonl import read_jsonl

from .api import Evaluator, GradeRequest

CORPUS = Path(__file__).with_name("corpus") / "labelled.jsonl"
CATEGORIES = ("correct", "incorrect", "format", "lenient_trap", "runtime", "reward_hack")


@dataclass
class Matrix:
    """Counts of (label, verdict) for one comparator and one slice of the corpus."""

    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0
    fn_ids: list[str] = field(default_factory=list)
    fp_ids: list[str] = field(default_factory=list)

    def add(self, case_id: str, correct: bool, passed: bool) -> None:
        if correct and passed:
            self.tp += 1
        elif correct:
            self.fn += 1
            self.fn_ids.append(case_id)
        elif passed:
            self.fp += 1
            self.fp_ids.append(case_id)
        else:
            self.tn += 1

    @property
    def positives(self) -> int:
        return self.tp + self.fn

    @property
    def fn_rate(self) -> float:
        return self.fn / self.positives if self.positives else 0.0


@dataclass
class Accuracy:
    """Matrices keyed by comparator, then by category ("all" for the whole corpus)."""

    n_cases: int
    matrices: dict[str, dict[str, Matrix]]


def load_corpus(path: str | Path | None = None) -> list[dict[str, Any]]:
    return read_jsonl(path or CORPUS)


def measure(path: str | Path | None = None, workers: int | None = None, timeout_s: float = 1.0) -> Accuracy:
    """Grade every corpus case once, judged by both comparators."""
    cases = load_corpus(path)
    requests = [
        GradeRequest(c["id"], code=c.get("code"), completion=c.get("completion"), input_output=c["input_output"])
        for c in cases
    ]
    matrices: dict[str, dict[str, Matrix]] = defaultdict(lambda: defaultdict(Matrix))
    with Evaluator("microcoder", workers, timeout_s, shadow_comparators=("livecodebench",)) as ev:
        results = ev.grade_many(requests)
    for case, result in zip(cases, results, strict=True):
        correct = case["label"] == "correct"
        for name, passed in (
            ("microcoder", result.passed),
            ("livecodebench", result.shadow["livecodebench"]),
        ):
            matrices[name]["all"].add(case["id"], correct, passed)
            matrices[name][case["category"]].add(case["id"], correct, passed)
    return Accuracy(len(cases), {k: dict(v) for k, v in matrices.items()})


def format_report(acc: Accuracy) -> str:
    """Plain-text tables: one per comparator, one row per category, then the misjudged case ids."""
    lines = [f"labelled corpus: {acc.n_cases} cases (label = a contest judge's verdict)"]
    header = f"{'category':<14}{'TP':>5}{'FN':>5}{'FP':>5}{'TN':>5}{'FN rate':>9}"
    for name in ("microcoder", "livecodebench"):
        by_cat = acc.matrices[name]
        lines += ["", f"comparator {name}", header]
        for cat in (*CATEGORIES, "all"):
            m = by_cat.get(cat, Matrix())
            lines.append(f"{cat:<14}{m.tp:>5}{m.fn:>5}{m.fp:>5}{m.tn:>5}{m.fn_rate:>9.1%}")
        total = by_cat["all"]
        lines.append(f"false negatives: {', '.join(total.fn_ids) or '-'}")
        lines.append(f"false positives: {', '.join(total.fp_ids) or '-'}")
    return "\n".join(lines)
