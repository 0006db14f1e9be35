"""Figures and the Markdown report on the SIMULATED store; the CLI end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mcsweep.analysis import style
from mcsweep.analysis.__main__ import main
from mcsweep.analysis.figures import FIGURES, draw
from mcsweep.analysis.report import table1

from . import simulate as sim


@pytest.mark.parametrize("fig_id", list(FIGURES))
def test_each_figure_draws_with_a_simulated_label(
    fig_id: str, paper_frame: pd.DataFrame, paper_samples: pd.DataFrame, tmp_path: Path
) -> None:
    fig = draw(fig_id, paper_frame, paper_samples)
    assert fig is not None
    assert "SIMULATED" in fig._suptitle.get_text() and "micro world" in fig._suptitle.get_text()
    assert all(ax.has_data() for ax in fig.axes if ax.get_visible())
    paths = style.finish(fig, tmp_path, f"fig_{fig_id}")
    assert [p.suffix for p in paths] == [".png", ".pdf"] and all(p.stat().st_size > 1000 for p in paths)


def test_figure_without_its_sweep_is_none(paper_frame: pd.DataFrame) -> None:
    assert draw("9_2", paper_frame[paper_frame["sweep"] != "kl_clip"]) is None


def test_raw_faded_smoothed_solid_maxima_dashed(paper_frame: pd.DataFrame) -> None:
    ax = draw("8_2", paper_frame).axes[0]
    alphas = sorted({line.get_alpha() for line in ax.lines if line.get_linestyle() == "-"}, key=lambda a: a or 1)
    assert alphas[0] == style.RAW_ALPHA and alphas[-1] in (None, 1.0)
    assert any(line.get_linestyle() == "--" for line in ax.lines)


def test_table1_layout(paper_frame: pd.DataFrame) -> None:
    t = table1(paper_frame)
    assert list(t.columns) == ["All", "AtCoder (stdin)", "LeetCode (call)", "Easy", "Medium", "Hard", "seeds"]
    assert [r for r, _ in t.index][:2] == ["untrained (step 0)"] * 2  # the untrained row first
    assert {r for r, _ in t.index} == {"GRPO", "DAPO", "MicroCoder-GRPO", "untrained (step 0)"}
    assert {length for _, length in t.index} == {f"train {sim.TRAIN_LEN}", f"extended {sim.EXT_LEN}"}


def test_report_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = sim.write_store(
        tmp_path / "runs",
        sim.make_sweep("data", sim.PAPER["data"])
        + sim.make_sweep("table1", sim.PAPER["table1"])
        + sim.make_sweep("temperature_schedules", sim.PAPER["temperature_schedules"]),
    )
    (tmp_path / "notes.md").write_text("Runs of 40 rollouts, simulated.\n")
    argv = ["report", str(runs), "--out", str(tmp_path / "rep"), "--title", "SIMULATED check"]
    assert main([*argv, "--notes", str(tmp_path / "notes.md")]) == 0
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "## What these runs are\n\nRuns of 40 rollouts, simulated." in text
    assert "SIMULATED" in text and "### D2 · data · holds" in text and "**Verdict: holds.**" in text
    assert "`python -m mcsweep +sweep=masking -m`" in text
    assert "| temperature_schedules | 0.6->1.8@30, 0.6~1.8 |" in text  # its axis is temperature
    assert "## Table 1" in text and "LeetCode (call)" in text and "95% bootstrap CI" in text
    assert (tmp_path / "rep" / "figures" / "fig_8_2.pdf").exists()
    assert "[fig 8_2](figures/fig_8_2.png)" in text
    assert capsys.readouterr().out.strip().endswith("report.md")


def test_report_on_no_runs_names_every_sweep_command(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty"), "--out", str(tmp_path / "rep")]) == 0
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "no run folders" in text and "**holds 0**, **contradicted 0**, **inconclusive 34**" in text
    for sweep in ("evaluator", "temperature", "data", "context", "masking", "batch", "kl_clip", "table1", "seeds"):
        assert f"`python -m mcsweep +sweep={sweep} -m`" in text


def test_short_curves_are_not_flattened_by_smoothing() -> None:
    from mcsweep.analysis.style import smooth

    three = np.array([0.50, 0.45, 0.58])
    assert np.array_equal(smooth(three), three)  # 3 evaluations: drawn and judged as measured
    long = np.arange(40, dtype=float) % 2
    assert smooth(long)[20] == pytest.approx(np.mean(long[18:23]))  # a 5-point window on a long series
    six = np.array([0.40, 0.44, 0.41, 0.48, 0.42, 0.43])  # a campaign's 6 evaluations: one high point
    assert smooth(six)[3] == pytest.approx(np.mean(six[2:5])) and max(smooth(six)) < six.max()


def test_table1_labels_the_flagged_training_length_not_the_shortest() -> None:
    """A run trained at 224 and also tested at 160: 'train' is the flagged length (evals@train/*)."""
    rows = [
        (step, length, metric, 0.5)
        for step in (0, 10)
        for length in (160.0, 224.0)
        for metric in ["evals/pass@1"] + (["evals@train/pass@1"] if length == 224.0 else [])
    ]
    frame = pd.DataFrame(rows, columns=["step", "max_length", "metric", "value"]).assign(
        sweep="table1", file="evals", run_id="r", algo="dapo", seed=0
    )
    labels = {length for _, length in table1(frame).index}
    assert labels == {"train 224", "extended 160"}, labels
