"""Dashboards as code: a spec for every sweep, panels that mirror every figure, metrics a real run logged."""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib
import pandas as pd
import pytest
import wandb_records as wr

from mcsweep.analysis.figures import FIGURES, SWEEP_OF_FIGURE, draw
from mcsweep.dashboard import build_spec, sweep_names
from mcsweep.dashboard.__main__ import main

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("dashboards")
    main(["all", "--entity", "me", "--project", "mcsweep", "--dry-run", "--out", str(out)])
    return {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}


def test_dry_run_writes_a_spec_for_every_sweep(specs: dict[str, dict]) -> None:
    sweeps = {yaml_sweep for yaml_sweep in sweep_names()}
    assert set(specs) == sweeps and len(sweeps) == len(list(Path("sweeps").glob("*.yaml")))
    for sweep, spec in specs.items():
        view = spec["workspace"]
        assert view["displayName"] == f"mcsweep {sweep}"
        runset = view["spec"]["section"]["runSets"][0]
        assert runset["filters"]["filters"][0]["value"] == sweep  # the sweep's W&B group
        assert runset["grouping"][0]["name"] == f"{spec['mcsweep']['group_by']}.value"
        panels = [p for s in view["spec"]["section"]["panelBankConfig"]["sections"] for p in s["panels"]]
        assert len(panels) == sum(len(s["panels"]) for s in spec["mcsweep"]["sections"]) > 0


def test_unknown_sweep_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["nosuch", "--entity", "me", "--project", "p", "--dry-run"])
    assert "unknown sweep 'nosuch'" in capsys.readouterr().err


def test_every_panel_names_a_metric_the_tiny_run_logged(wandb_runs: list[Path]) -> None:
    logged = {k for d in wandb_runs for row in wr.history(wr.run_records(d)) for k in row}
    config = wr.config(wr.run_records(wandb_runs[0]))
    for sweep in sweep_names():
        spec = build_spec(sweep)
        assert spec.group_by in config, (sweep, spec.group_by)
        for p in spec.panels():
            assert p.x in logged, (sweep, p.title, p.x)
            if p.y is not None:
                assert p.y in logged, (sweep, p.title, p.y)
            else:
                assert any(re.match(p.regex, k) for k in logged), (sweep, p.title, p.regex)


def _label(text: str) -> str:
    return text.split(" (")[0] if not text.startswith("test pass@1") else text


def test_every_figure_has_its_panels(paper_frame: pd.DataFrame, paper_samples: pd.DataFrame) -> None:
    """Each panel of each figure (drawn from the SIMULATED study store) has a W&B panel with its
    y label, in the dashboard of the figure's sweep."""
    for fig_id in FIGURES:
        fig = draw(fig_id, paper_frame, paper_samples)
        drawn = {(a.get_ylabel(), _label(a.get_xlabel())) for a in fig.axes if a.get_ylabel()}
        spec = build_spec(SWEEP_OF_FIGURE[fig_id])
        assert spec.figure == fig_id
        mirrored = {(p.title, _label(p.x_label)) for p in spec.sections[0].panels}
        assert drawn == mirrored, fig_id
        matplotlib.pyplot.close(fig)


def test_a_panel_per_insight_metric() -> None:
    from mcsweep.analysis.insights import INSIGHTS

    for sweep in sweep_names():
        needed = {m for i in INSIGHTS if i.sweep == sweep for m in i.metrics}
        insight_panels = [s for s in build_spec(sweep).sections if s.name == "Insights"]
        shown = {p.metric for s in insight_panels for p in s.panels}
        assert shown == needed, sweep
