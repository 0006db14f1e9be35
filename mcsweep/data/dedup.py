"""Exact and near-duplicate removal.

Exact duplicates share the normalised statement and tests. Near duplicates are found with MinHash
LSH over word shingles of the statement; the Jaccard estimate is recorded in the drop reason so a
reader can judge the threshold.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from datasketch import MinHash, MinHashLSH

from mcsweep.data.schema import Problem
from mcsweep.data.text import ngrams, words


@dataclass
class DedupConfig:
    threshold: float = 0.85
    num_perm: int = 128
    shingle: int = 5
    seed: int = 1


@dataclass
class Drop:
    id: str
    stage: str
    reason: str
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "stage": self.stage, "reason": self.reason, "detail": self.detail}


def exact_key(problem: Problem) -> str:
    text = " ".join(words(problem.question)) + "\x00" + problem.input_output
    return hashlib.sha256(text.encode()).hexdigest()


def minhash(text: str, cfg: DedupConfig) -> MinHash:
    mh = MinHash(num_perm=cfg.num_perm, seed=cfg.seed)
    for gram in ngrams(words(text), cfg.shingle):
        mh.update(" ".join(gram).encode())
    return mh


def dedup(problems: list[Problem], cfg: DedupConfig) -> tuple[list[Problem], list[Drop]]:
    """Keep the first of each duplicate group (input order is the source priority)."""
    seen: dict[str, str] = {}
    # LSH only proposes candidates (it cannot band thresholds near 1); the estimate decides.
    lsh = MinHashLSH(threshold=min(cfg.threshold, 0.9), num_perm=cfg.num_perm)
    hashes: dict[str, MinHash] = {}
    kept: list[Problem] = []
    drops: list[Drop] = []
    for p in problems:
        key = exact_key(p)
        if key in seen:
            drops.append(Drop(p.id, "process", "exact_duplicate", f"of {seen[key]}"))
            continue
        mh = minhash(p.question, cfg)
        near = [(mh.jaccard(hashes[other]), other) for other in lsh.query(mh)]
        best = max(near, default=(0.0, ""))
        if best[0] >= cfg.threshold:
            drops.append(Drop(p.id, "process", "near_duplicate", f"of {best[1]} (jaccard~{best[0]:.2f})"))
            continue
        seen[key] = p.id
        hashes[p.id] = mh
        lsh.insert(p.id, mh)
        kept.append(p)
    return kept, drops
