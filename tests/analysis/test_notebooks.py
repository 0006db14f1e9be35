"""The notebooks in analysis/ run headlessly (nbclient) against the SIMULATED store, so they cannot rot."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "analysis").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert {p.name for p in NOTEBOOKS} >= {"figures.ipynb", "insights.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes(path: Path, small_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCSWEEP_RUNS", str(small_store))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    text = "".join(
        str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
    )
    assert "Traceback" not in text
    if path.name == "figures.ipynb":
        assert "'13': True" in text and "'7_2': True" in text
    else:
        assert "holds" in text
