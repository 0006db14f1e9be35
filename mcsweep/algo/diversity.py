"""Diversity measures of sampled responses (the study's D, and a within-response check).

The study describes D as unique 4-grams over total 4-grams across the G samples of a prompt; the
exact tokenisation is unknown, so mcsweep computes it on the policy's own token ids. Pooled over
G samples it cannot exceed 1/G when the samples are identical (0.125 at G=8), below the study's
~0.3 at temperature 0, so the per-sample measure (unique/total 4-grams inside each response,
averaged) is logged beside it; docs/algorithms.md says which one the figures most likely show.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np


def _ngrams(ids: Sequence[int], n: int) -> list[tuple[int, ...]]:
    """Zipping n shifted views makes every n-gram in C, not one slice per position."""
    return list(zip(*(ids[i:] for i in range(n)), strict=False))


def group_diversity(group: Sequence[Sequence[int]], n: int = 4) -> float:
    """Unique n-grams / total n-grams pooled over one prompt's samples (0 when there are none)."""
    grams = [g for ids in group for g in _ngrams(ids, n)]
    return len(set(grams)) / len(grams) if grams else 0.0


def group_diversities(samples: Sequence[Sequence[int]], group: np.ndarray, n: int = 4) -> np.ndarray:
    """``group_diversity`` of every group at once (``group[i]``, from 0, is sample i's group): the same
    exact values, with the n-grams sorted in numpy instead of hashed one tuple at a time, so that an
    analysis over hundreds of thousands of samples takes seconds (figure 7_2's table: 230,400 groups)."""
    group = np.asarray(group, dtype=np.int64)
    n_groups = int(group.max()) + 1 if len(group) else 0
    lengths = np.fromiter(map(len, samples), dtype=np.int64, count=len(samples))
    tokens = np.fromiter(itertools.chain.from_iterable(samples), dtype=np.int64, count=int(lengths.sum()))
    grams = np.maximum(lengths - n + 1, 0)  # each sample's n-grams, none across samples
    first = np.repeat(np.cumsum(lengths) - lengths - np.cumsum(grams) + grams, grams) + np.arange(grams.sum())
    keys = [tokens[first + k] for k in reversed(range(n))]
    owner = np.repeat(group, grams)
    order = np.lexsort([*keys, owner])  # by group, then n-gram: equal n-grams of a group end up adjacent
    ranked = [column[order] for column in (owner, *keys)]
    repeated = np.logical_and.reduce([column[1:] == column[:-1] for column in ranked])
    new = np.concatenate(([True], ~repeated))[: len(order)]
    unique = np.bincount(ranked[0][new], minlength=n_groups)
    total = np.bincount(owner, minlength=n_groups)
    return np.divide(unique, total, out=np.zeros(n_groups), where=total > 0)


def mean_group_diversity(samples: Sequence[Sequence[int]], group_size: int, n: int = 4) -> float:
    """`group_diversity` averaged over consecutive groups of `group_size` samples."""
    groups = [samples[i : i + group_size] for i in range(0, len(samples), group_size)]
    return sum(group_diversity(g, n) for g in groups) / len(groups) if groups else 0.0


def distinct_n(ids: Sequence[int], n: int = 2) -> float:
    """Unique n-grams / n-grams inside one response; low values flag loops."""
    grams = _ngrams(ids, n)
    return len(set(grams)) / len(grams) if grams else 1.0


def per_sample_diversity(samples: Sequence[Sequence[int]], n: int = 4) -> float:
    """Unique n-grams / n-grams inside each response, averaged over responses that have n-grams.

    Not capped by the group size: identical responses keep their own value, and loops drive it to 0."""
    values = [len(set(g)) / len(g) for g in (_ngrams(ids, n) for ids in samples) if g]
    return sum(values) / len(values) if values else 0.0


MEASURES = {
    "pooled": lambda samples, group_size: mean_group_diversity(samples, group_size, 4),
    "per_sample": lambda samples, group_size: per_sample_diversity(samples, 4),
}
METRIC = {"pooled": "diversity/group_4gram", "per_sample": "diversity/per_sample_4gram"}
