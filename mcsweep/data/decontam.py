"""N-gram decontamination against chosen test sets.

A training problem is contaminated when it shares at least `min_shared` word n-grams with a test
problem (0 turns this rule off, for short templated statements), or when the shared n-grams cover
`min_fraction` of its own n-grams. N-grams found in more than `max_df` of the test problems, or of
the training problems, are template text ("the first line contains N") and ignored on both sides:
sharing a template is not contamination. Every overlap found is reported (not only the ones that
cause a drop) so the thresholds can be audited.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from mcsweep.data.dedup import Drop
from mcsweep.data.schema import Problem
from mcsweep.data.text import ngrams, words


@dataclass
class DecontamConfig:
    n: int = 13
    min_shared: int = 3
    min_fraction: float = 0.5
    max_df: float = 0.05


@dataclass
class Overlap:
    train_id: str
    test_id: str
    shared: int
    fraction: float
    contaminated: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "train_id": self.train_id,
            "test_id": self.test_id,
            "shared": self.shared,
            "fraction": round(self.fraction, 4),
            "contaminated": self.contaminated,
        }


Gram = tuple[str, ...]


def _doc_freq(problems: list[Problem], n: int) -> dict[Gram, set[str]]:
    index: dict[Gram, set[str]] = defaultdict(set)
    for p in problems:
        for gram in ngrams(words(p.question), n):
            index[gram].add(p.id)
    return index


def template_grams(problems: list[Problem], cfg: DecontamConfig) -> set[Gram]:
    limit = max(2, math.ceil(cfg.max_df * len(problems)))
    return {g for g, ids in _doc_freq(problems, cfg.n).items() if len(ids) > limit}


def build_index(tests: list[Problem], cfg: DecontamConfig, ignore: set[Gram]) -> dict[Gram, set[str]]:
    limit = max(2, math.ceil(cfg.max_df * len(tests)))
    return {g: ids for g, ids in _doc_freq(tests, cfg.n).items() if len(ids) <= limit and g not in ignore}


def overlaps_of(problem: Problem, index: dict[Gram, set[str]], cfg: DecontamConfig, ignore: set[Gram]) -> list[Overlap]:
    grams = ngrams(words(problem.question), cfg.n) - ignore
    counts: dict[str, int] = defaultdict(int)
    for gram in grams:
        for test_id in index.get(gram, ()):
            counts[test_id] += 1
    out = []
    for test_id, shared in sorted(counts.items()):
        frac = shared / max(len(grams), 1)
        bad = (cfg.min_shared > 0 and shared >= cfg.min_shared) or frac >= cfg.min_fraction
        out.append(Overlap(problem.id, test_id, shared, frac, bad))
    return out


def decontaminate(
    problems: list[Problem], tests: list[Problem], cfg: DecontamConfig
) -> tuple[list[Problem], list[Drop], list[Overlap]]:
    ignore = template_grams(problems, cfg)
    index = build_index(tests, cfg, ignore)
    kept, drops, report = [], [], []
    for p in problems:
        found = overlaps_of(p, index, cfg, ignore)
        report.extend(found)
        bad = [o for o in found if o.contaminated]
        if bad:
            worst = max(bad, key=lambda o: o.shared)
            drops.append(
                Drop(p.id, "filter", "contaminated", f"{worst.shared} shared {cfg.n}-grams with {worst.test_id}")
            )
        else:
            kept.append(p)
    return kept, drops, report
