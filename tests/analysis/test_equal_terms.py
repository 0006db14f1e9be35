"""Arms compared on equal terms, and checks that say what they could not measure (issue 13). SIMULATED."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mcsweep.analysis import check_all, load, load_samples, style
from mcsweep.analysis.insights import BY_ID
from mcsweep.analysis.samples import temperature_table

from . import simulate as sim


def _frame(sweep: str, arms: dict[str, dict[str, float]] | None = None) -> pd.DataFrame:
    return sim.frames(sim.make_sweep(sweep, arms or sim.PAPER[sweep]))[0]


def test_context_checks_read_the_common_length_and_say_when_runs_lack_it() -> None:
    frame = _frame("context")
    assert BY_ID["C1"].run(frame).status == "holds"
    assert any("evals@common/pass@1" in m for m in frame["metric"].unique())
    older = frame[~frame["metric"].str.startswith("evals@")]  # an older store: no common_length rows
    for iid in ("C1", "C4", "C5", "C6"):
        verdict = BY_ID[iid].run(older)
        assert verdict.status == "inconclusive" and "common length" in verdict.reason, (iid, verdict)


def test_common_length_not_the_starting_length_decides_c1() -> None:
    """At their own (training) length the longer arm looks worse; at the common length it is better."""
    runs = sim.make_sweep("context", {a: sim.PAPER["context"][a] for a in ("256", "384", "512")})
    for run in runs:  # the starting-length evaluation (logged as eval/pass@1 too) drops with the arm's length
        own = 0.6 - float(run.card["axes"]["context"]) / 1000
        for row in run.evals:
            row["pass@1"] = own if row["train_length"] else row["pass@1"]
        for row in run.metrics:
            row |= {"eval/pass@1": own} if "eval/pass@1" in row else {}
    verdict = BY_ID["C1"].run(sim.frames(runs)[0])
    assert verdict.status == "holds", verdict


def test_evaluator_insights_use_one_judge_and_say_when_runs_lack_it() -> None:
    frame = _frame("evaluator")
    assert BY_ID["E5"].run(frame).status == "holds"
    no_lcb = frame[~frame["metric"].str.endswith("judge_livecodebench")]
    verdict = BY_ID["E5"].run(no_lcb)
    assert verdict.status == "inconclusive" and "'livecodebench'" in verdict.reason
    assert BY_ID["E5"].run(no_lcb, judge="microcoder").status == "holds"
    table = check_all(no_lcb, judge="microcoder").set_index("id")
    assert table.loc["E5", "status"] == "holds"


def test_uncomputable_numbers_are_not_within_noise() -> None:
    """Three evaluations leave E6's 10-40% window empty: 'not computable', not 'within noise'."""
    frame = _frame("evaluator")
    few = frame[~frame["metric"].str.startswith("evals@train/") | frame["step"].isin([0, 30, 60])]
    verdict = BY_ID["E6"].run(few)
    assert verdict.status == "inconclusive" and "not computable" in verdict.reason, verdict


def test_c5_and_c6_presuppose_c4s_deficit() -> None:
    arms = {a: {**p} for a, p in sim.PAPER["context"].items()}
    arms["256->512@30"]["ap"] = 0.46  # above the fixed 512 arm: no deficit (C4 contradicted)
    frame = _frame("context", arms)
    assert BY_ID["C4"].run(frame).status == "contradicted"
    for iid in ("C5", "C6"):
        verdict = BY_ID[iid].run(frame)
        assert verdict.status == "inconclusive" and "presupposes C4" in verdict.reason, (iid, verdict)


def test_header_counts_seeds_per_arm() -> None:
    """One run per arm, on different seed values: one seed per arm, not two seeds."""
    runs = [sim.make_run("data", "deepcoder", {}, 0), sim.make_run("data", "microcoder", {}, 1)]
    label = style.source_label(sim.frames(runs)[0])
    assert "1 seed per arm (2 runs)" in label, label


def test_temperature_table_keeps_the_regular_evaluation_and_lengths_apart(tmp_path: Path) -> None:
    """The trainer's regular T=1.0 evaluation (4 samples, two lengths) is not evaluate-at-temperatures data."""
    runs = [sim.make_run("temperature", "1.2", sim.PAPER["temperature"]["1.2"], seed) for seed in (0, 1)]
    rng = sim._rng("regular")
    for run in runs:
        for length in (sim.TRAIN_LEN, sim.EXT_LEN):
            run.samples += [{**r, "max_length": length} for r in sim._samples(rng, 0, 1.0, 0.05)]
    root = sim.write_store(tmp_path, runs)
    table = temperature_table(load_samples(root))
    assert 1.0 not in set(table["eval_temperature"]) and set(table["max_length"]) == {sim.TRAIN_LEN}
    verdict = BY_ID["T1"].run(load(root), load_samples(root))
    assert verdict.status == "holds" and all(f"length {sim.TRAIN_LEN}" in k for k in verdict.numbers if "t_max" in k)
