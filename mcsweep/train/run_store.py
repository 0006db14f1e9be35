"""The run folder: the source of truth for a run (layout in docs/ARCHITECTURE.md).

Plain files only (YAML, JSON, JSONL), so pandas reads them directly and no analysis ever parses
W&B's binary logs. Appends are line-buffered; a resumed run first drops rows past its checkpoint,
so the history has no gaps and no duplicated steps.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from mcsweep.io.jsonl import read_jsonl

TABLES = ("metrics", "evals", "eval_samples", "completions", "temperature_evals")


def _clean(value: Any) -> Any:
    """JSON has no NaN; store it as null so every reader agrees."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


class RunStore:
    """One run's folder. Under multi-process training only the main process writes (`writer`)."""

    def __init__(self, path: str | Path, writer: bool = True) -> None:
        self.path = Path(path)
        self.writer = writer

    def create(self) -> RunStore:
        if self.writer:
            (self.path / "checkpoints").mkdir(parents=True, exist_ok=True)
        return self

    def table_path(self, table: str) -> Path:
        if table not in TABLES:
            raise ValueError(f"unknown table {table!r}; one of {TABLES}")
        return self.path / f"{table}.jsonl"

    def append(self, table: str, rows: list[dict]) -> None:
        if not self.writer:
            return
        with open(self.table_path(table), "a") as f:
            for row in rows:
                f.write(json.dumps({k: _clean(v) for k, v in row.items()}) + "\n")

    def rows(self, table: str) -> list[dict]:
        path = self.table_path(table)
        if not path.exists():
            return []
        return read_jsonl(path)

    def read(self, table: str) -> pd.DataFrame:
        path = self.table_path(table)
        return pd.read_json(path, lines=True) if path.exists() and path.stat().st_size else pd.DataFrame()

    def truncate_after(self, step: int) -> None:
        """Drop rows logged after `step` (they belong to work the resumed run will redo)."""
        if not self.writer:
            return
        for table in TABLES:
            kept = [r for r in self.rows(table) if r.get("step", 0) <= step]
            self.table_path(table).write_text("".join(json.dumps(r) + "\n" for r in kept))

    def write_json(self, name: str, data: dict) -> None:
        if not self.writer:
            return
        tmp = self.path / f".{name}.tmp"
        tmp.write_text(json.dumps(data, indent=2, default=str))
        tmp.replace(self.path / name)

    def read_json(self, name: str) -> dict:
        path = self.path / name
        return json.loads(path.read_text()) if path.exists() else {}

    def update_card(self, **fields: Any) -> None:
        self.write_json("run_card.json", {**self.read_json("run_card.json"), **fields})

    def latest_checkpoint(self) -> Path | None:
        """The newest complete checkpoint: the Trainer writes trainer_state.json after the weights and the
        optimizer, so a checkpoint cut short by a kill is skipped."""
        complete = [p.parent for p in self.path.glob("checkpoints/checkpoint-*/trainer_state.json")]
        ckpts = sorted(complete, key=lambda p: int(p.name.split("-")[-1]))
        return ckpts[-1] if ckpts else None
