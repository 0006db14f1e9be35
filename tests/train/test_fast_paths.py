"""The training loop on the fast rollout and update paths logs the stock TRL path's run (tiny policy).

The seam tests check each path against TRL on its own tensors (tests/train/test_sampler.py,
tests/train/test_shared_prompt.py, gradients included); this one checks the wiring in a real run.
The tiny policy earns no reward, so the updates' gradients here are 0 on both paths: the logged
entropy (every completion token of the rollout, through the update's forward) is what is compared.
"""

from __future__ import annotations

import pandas as pd

from tests.train.test_presets import SHORT, _metrics

STOCK = ["rollout.sampler=hf_generate", "train.shared_prompt=false"]
FAST = ["rollout.sampler=fast", "train.shared_prompt=true"]
SAME = ["completions/mean_length", "completions/min_length", "completions/max_length", "mask/masked"]


def test_first_rollout_is_the_same_on_either_path(tiny_run):
    """Same seed: the first rollout's completions have the same lengths (token for token, as the
    sampler's test shows), and its two updates log the same entropy up to rounding."""
    overrides = [*SHORT, "train.steps=2"]  # one rollout: train_batch 4 / mini_batch 2 = 2 updates
    stock, fast = (_metrics(tiny_run, [*overrides, *path]).loc[[1, 2]] for path in (STOCK, FAST))
    assert stock.loc[1, "completions/min_length"] < stock.loc[1, "completions/max_length"]  # ragged rows
    pd.testing.assert_frame_equal(fast[SAME], stock[SAME], check_exact=True)
    pd.testing.assert_series_equal(fast["entropy"], stock["entropy"], check_exact=False, rtol=1e-5, atol=0)
