"""Diversity measures of sampled responses (the study's D, and a within-response check).

The study describes D as unique 4-grams over total 4-grams across the G samples of a prompt; the
exact tokenisation is unknown, so mcsweep computes it on the policy's own token ids.
"""

from __future__ import annotations

from collections.abc import Sequence


def _ngrams(ids: Sequence[int], n: int) -> list[tuple[int, ...]]:
    return [tuple(ids[i : i + n]) for i in range(len(ids) - n + 1)]


def group_diversity(group: Sequence[Sequence[int]], n: int = 4) -> float:
    """Unique n-grams / total n-grams pooled over one prompt's samples (0 when there are none)."""
    grams = [g for ids in group for g in _ngrams(ids, n)]
    return len(set(grams)) / len(grams) if grams else 0.0


def mean_group_diversity(samples: Sequence[Sequence[int]], group_size: int, n: int = 4) -> float:
    """`group_diversity` averaged over consecutive groups of `group_size` samples."""
    groups = [samples[i : i + group_size] for i in range(0, len(samples), group_size)]
    return sum(group_diversity(g, n) for g in groups) / len(groups) if groups else 0.0


def distinct_n(ids: Sequence[int], n: int = 2) -> float:
    """Unique n-grams / n-grams inside one response; low values flag loops."""
    grams = _ngrams(ids, n)
    return len(set(grams)) / len(grams) if grams else 1.0
