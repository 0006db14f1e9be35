"""`python -m mcsweep.micro reasoning`: world 3's reasoning forms over a run's training, read from its
completions.jsonl (hand-written lines in the logged format)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcsweep.micro import reasoning_trace
from mcsweep.micro.__main__ import main

WORKED = "Plan:\n1. Add k to every element.\n   9-4=5, 5+2=7, so k=7.\n```python\n```"
SHORTCUT = "Plan:\n1. Add k to every element.\n   k = 9-4+2 = 7.\n```python\n```"
NONE = "Plan:\nNo constants to work out.\n```python\n```"


def _run(tmp_path: Path, rows: list[dict], bad_lines: int = 0) -> Path:
    lines = [json.dumps(r) for r in rows] + ["{not json"] * bad_lines
    (tmp_path / "completions.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_forms_and_their_rewards_per_stretch_of_training(tmp_path: Path) -> None:
    early = [{"step": 1, "completion": WORKED, "reward": 1.0, "length": 30}] * 3
    early += [{"step": 2, "completion": SHORTCUT, "reward": 0.0, "length": 20, "truncated": True}]
    late = [{"step": 4, "completion": SHORTCUT, "reward": 0.5, "length": 20}] * 2
    late += [{"step": 4, "completion": NONE, "reward": 1.0, "length": 10}] * 2
    table, skipped = reasoning_trace.trace(_run(tmp_path, early + late, bad_lines=2), windows=2)
    assert skipped == 2
    first, second = table
    assert (first["n"], first["worked"], first["shortcut"], first["none"]) == (4, 0.75, 0.25, 0.0)
    assert (first["reward_worked"], first["reward_shortcut"], first["truncated"]) == (1.0, 0.0, 0.25)
    assert (second["worked"], second["shortcut"], second["none"], second["reward_worked"]) == (0.0, 0.5, 0.5, None)
    assert second["mean_length"] == 15


def test_the_command_prints_each_run_and_counts_malformed_lines(tmp_path: Path, capsys) -> None:
    run = _run(tmp_path, [{"step": 1, "completion": WORKED, "reward": 1.0, "length": 30}], bad_lines=1)
    assert main(["reasoning", str(run), "--windows", "1"]) == 0
    out = capsys.readouterr().out
    assert "(1 malformed lines left out)" in out
    assert "| 0-1 | 1 | 100.0% | 0.0% | 0.0% | 1.000 | n/a | 30 | 0.0% |" in out


def test_a_run_without_completions_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no logged completions"):
        reasoning_trace.trace(_run(tmp_path, [{"step": 1, "reward": 0.0}]))
