"""The run store reads back into pandas and truncates cleanly for a resume."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from mcsweep.train.run_store import RunStore


def test_tables_round_trip_through_pandas(tmp_path):
    store = RunStore(tmp_path / "run").create()
    store.append("metrics", [{"step": s, "reward": s / 10, "entropy": float("nan")} for s in range(5)])
    df = pd.read_json(store.table_path("metrics"), lines=True)
    assert df["step"].tolist() == [0, 1, 2, 3, 4] and df["reward"].iloc[3] == pytest.approx(0.3)
    assert df["entropy"].isna().all()
    assert math.isnan(store.read("metrics")["entropy"].iloc[0])


def test_truncate_after_drops_later_rows_only(tmp_path):
    store = RunStore(tmp_path / "run").create()
    store.append("metrics", [{"step": s} for s in range(6)])
    store.append("evals", [{"step": 0}, {"step": 5}])
    store.truncate_after(3)
    assert [r["step"] for r in store.rows("metrics")] == [0, 1, 2, 3]
    assert [r["step"] for r in store.rows("evals")] == [0]


def test_unknown_table_and_checkpoint_order(tmp_path):
    store = RunStore(tmp_path / "run").create()
    with pytest.raises(ValueError, match="unknown table"):
        store.append("nope", [])
    for step in (2, 10, 4):
        (store.path / "checkpoints" / f"checkpoint-{step}").mkdir()
        (store.path / "checkpoints" / f"checkpoint-{step}" / "trainer_state.json").write_text("{}")
    (store.path / "checkpoints" / "checkpoint-12").mkdir()  # killed mid-save: no trainer_state.json
    assert store.latest_checkpoint().name == "checkpoint-10"


def test_non_writer_processes_leave_the_folder_alone(tmp_path):
    store = RunStore(tmp_path / "run", writer=False).create()
    store.append("metrics", [{"step": 1}])
    store.write_json("run_card.json", {"status": "running"})
    store.truncate_after(0)
    assert not (tmp_path / "run").exists()
