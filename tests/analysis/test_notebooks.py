"""The notebooks in analysis/ run headlessly (nbclient) on a report's data folder and redraw the report.

The report is built from the SIMULATED store (``conftest.sim_report``); both notebooks then read only its ``data/``
folder. Each figure must have its panels, labelled axes, legends and seed bands, and the tables the
insights notebook renders (verdict counts, per-insight tables, Table 1, pass@k) must be the report's.
The committed micro report's data is checked the same way once it exists.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from mcsweep.analysis.figures import PANELS

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = {p.name: p for p in sorted((REPO / "analysis").glob("*.ipynb"))}
MICRO = REPO / "reports" / "micro"


def run_notebook(path: Path, source: Path, monkeypatch: pytest.MonkeyPatch) -> nbformat.NotebookNode:
    monkeypatch.setenv("MCSWEEP_RUNS", str(source))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


def outputs(nb: nbformat.NotebookNode, kind: str) -> list[str]:
    """Every output of MIME type ``kind`` ('text/plain', 'text/markdown'; 'stream' for printed text)."""
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if kind == "stream" and o.get("output_type") == "stream":
                out.append(o["text"])
            elif kind in o.get("data", {}):
                out.append(o["data"][kind])
    return out


def check_figures(nb: nbformat.NotebookNode, expect_simulated: bool, complete: bool = True) -> dict[str, dict]:
    """Every figure: its panels, labelled axes, a legend on every panel, and the data-source label. A
    partial campaign (`complete=False`) may leave a panel without data, which then says so."""
    described = json.loads(outputs(nb, "stream")[-1])
    assert described, "no figure drawn"
    for fig_id, d in described.items():
        assert len(d["panels"]) == PANELS[fig_id], (fig_id, len(d["panels"]))
        assert ("SIMULATED" in d["title"]) == expect_simulated, d["title"]
        for panel in d["panels"]:
            assert panel["xlabel"] and panel["ylabel"], (fig_id, panel)
            assert bool(panel["legend"]) != panel["empty"], (fig_id, panel)
            assert panel["legend"] or not complete, (fig_id, panel)
    return described


def table_lines(markdown: list[str]) -> set[str]:
    return {line for text in markdown for line in text.splitlines() if line.startswith("|")}


def check_tables(nb: nbformat.NotebookNode, report_md: str, least: int = 50) -> None:
    """The insights notebook's rendered tables and verdict counts are the report's, line for line
    (at least `least` table lines: the per-insight tables, Table 1 and pass@k)."""
    md = outputs(nb, "text/markdown")
    assert len(md) == 4, "summary, insight blocks, Table 1, pass@k"
    assert md[0].split("\n\n")[0] in report_md  # the verdict counts
    lines = table_lines(md)
    missing = sorted(line for line in lines if line not in report_md.splitlines())
    assert not missing, missing[:5]
    assert len(lines) > least


@pytest.mark.parametrize("name", ["figures.ipynb", "insights.ipynb"])
def test_notebook_redraws_a_simulated_report_from_its_data(
    name: str, sim_report: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nb = run_notebook(NOTEBOOKS[name], sim_report / "data", monkeypatch)
    assert not any("Traceback" in t for t in outputs(nb, "stream") + outputs(nb, "text/plain"))
    if name == "figures.ipynb":
        described = check_figures(nb, expect_simulated=True)
        assert set(described) == set(PANELS) - {"12_2"}  # every figure whose sweep is there
        assert "fig 12_2: sweep 'masking' missing" in "".join(outputs(nb, "stream"))
        fig_9 = described["9_2"]["panels"]
        assert any("No KL + clip-high" in entry for p in fig_9 for entry in p["legend"])  # the study's words
        assert all(p["bands"] >= 1 for p in described["1"]["panels"][:3])  # the seeds sweep: 3 seeds, bands
        assert all(p["bands"] >= 1 for p in described["8_2"]["panels"])  # data: 3 seeds
        assert all(p["bands"] == 0 for p in described["9_2"]["panels"])  # one seed per arm: no band to draw
    else:
        check_tables(nb, (sim_report / "report.md").read_text())


@pytest.mark.parametrize("name", ["figures.ipynb", "insights.ipynb"])
def test_notebook_redraws_the_committed_micro_report(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = run_notebook(NOTEBOOKS[name], MICRO / "data", monkeypatch)
    if name == "figures.ipynb":
        check_figures(nb, expect_simulated=False, complete=False)
    else:
        check_tables(nb, (MICRO / "report.md").read_text(), least=20)  # a partial campaign: fewer tables
