"""The vectorised per-group diversity is the trainer's D, exactly, whatever the groups look like, and so
is figure 7_2's table of it."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from mcsweep.algo.diversity import group_diversities, group_diversity
from mcsweep.analysis.samples import NGRAM, temperature_table


@pytest.mark.parametrize("n", [1, 2, 4])
def test_group_diversities_equal_group_diversity_group_by_group(n: int) -> None:
    rng = random.Random(n)
    for _ in range(200):
        n_groups = rng.randint(1, 6)
        vocab = rng.choice([2, 7, 151_936])  # repeats likely; a Qwen-sized vocabulary
        samples = [[rng.randrange(vocab) for _ in range(rng.randint(0, 10))] for _ in range(rng.randint(1, 20))]
        group = np.array([rng.randrange(n_groups) for _ in samples])
        want = [
            group_diversity([s for s, g in zip(samples, group, strict=True) if g == k], n)
            for k in range(group.max() + 1)
        ]
        assert group_diversities(samples, group, n).tolist() == pytest.approx(want, abs=0, rel=1e-12)


def test_an_n_gram_never_spans_two_samples_and_empty_groups_are_zero() -> None:
    # Joined, [1, 2] + [3, 4] would hold the 4-gram (1, 2, 3, 4); apart they hold none.
    assert group_diversities([[1, 2], [3, 4], [5, 5, 5, 5, 5]], np.array([0, 0, 2]), 4).tolist() == [0.0, 0.0, 0.5]


def test_the_temperature_tables_diversity_is_each_groups_d_across_runs() -> None:
    """Figure 7_2's table numbers its groups once for pass@1 and D: rows of several runs, shuffled."""
    rng = random.Random(3)
    rows = [
        {
            "run_id": run,
            "step": step,
            "max_length": 64,
            "eval_temperature": temp,
            "evaluation": "temperatures",
            "problem_id": f"p{problem}",
            "passed": rng.random() < 0.5,
            "ids": [rng.randrange(5) for _ in range(rng.randint(3, 9))],
        }
        for run in ("b", "a")
        for step in (0, 10)
        for temp in (0.6, 1.2)
        for problem in range(3)
        for _ in range(4)
    ]
    rng.shuffle(rows)
    frame = pd.DataFrame(rows)
    table = temperature_table(frame)
    for key, got in table.groupby(["run_id", "step", "eval_temperature"])["diversity"]:
        cell = frame[(frame[["run_id", "step", "eval_temperature"]] == key).all(axis=1)]
        want = np.mean([group_diversity(list(g["ids"]), NGRAM) for _, g in cell.groupby("problem_id")])
        assert got.item() == pytest.approx(want, rel=1e-12)
