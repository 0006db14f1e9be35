"""The Optuna objective read from a run's evals.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcsweep.launch.objective import objective

ROWS = [  # steps out of order on purpose; two lengths per step, as the trainer writes them
    {"step": 20, "max_length": 160, "pass@1": 0.40},
    {"step": 20, "max_length": 256, "pass@1": 0.45},
    {"step": 0, "max_length": 160, "pass@1": 0.10},
    {"step": 0, "max_length": 256, "pass@1": 0.12},
    {"step": 40, "max_length": 160, "pass@1": 0.30},
    {"step": 40, "max_length": 256, "pass@1": 0.50},
]


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    (tmp_path / "evals.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return tmp_path


@pytest.mark.parametrize(
    ("reduce", "length", "expected"),
    [("final", 160, 0.30), ("best", 160, 0.40), ("final", 256, 0.50), ("best", 256, 0.50)],
)
def test_final_and_best_at_a_length(run_dir: Path, reduce: str, length: int, expected: float) -> None:
    assert objective(run_dir, max_length=length, reduce=reduce) == expected


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_length": 512}, r"no 'pass@1' at max_length 512"),
        ({"max_length": 160, "metric": "pass@1/hard"}, r"no 'pass@1/hard'"),
        ({"max_length": 160, "reduce": "mean"}, r"optimized_metric\.reduce: unknown 'mean'"),
    ],
)
def test_errors_name_the_setting(run_dir: Path, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        objective(run_dir, **kwargs)


def test_run_without_evaluations(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"evals\.jsonl"):
        objective(tmp_path, max_length=160)
