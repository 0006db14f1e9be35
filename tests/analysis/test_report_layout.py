"""The report as a researcher reads it (issue 17), on SIMULATED stores: verdicts first, one block per
insight, figures a reader can trust, pass@k and Table 1 tables, and the data shipped with it."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mcsweep.analysis import check_all, load, load_samples, reasons, report_data, style, verdict_text
from mcsweep.analysis.arms import arm_of
from mcsweep.analysis.criteria import ALPHA, MAX_SEEDS, MIN_EFFECT_ABS, POWER, compare
from mcsweep.analysis.figures import arm_panel, describe, draw
from mcsweep.analysis.samples import temperature_table
from mcsweep.analysis.tables import passk_markdown, passk_rows, table1_markdown
from mcsweep.analysis.verdicts import INCONCLUSIVE, NO_NOISE, WITHIN_NOISE, part_of


@pytest.fixture(scope="module")
def layout(sim_report: Path) -> tuple[Path, str]:
    """(root holding ``runs`` and ``rep``, the report's text): ``conftest.sim_report``. SIMULATED."""
    return sim_report.parent, (sim_report / "report.md").read_text()


def section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same level."""
    level = heading.split(" ")[0]
    start = text.index(heading + "\n")
    nxt = re.search(rf"^{level} ", text[start + len(heading) :], flags=re.M)
    return text[start : start + len(heading) + (nxt.start() if nxt else len(text))]


def test_verdicts_come_first_with_counts_and_one_line_per_claim(layout: tuple[Path, str]) -> None:
    _, text = layout
    headings = re.findall(r"^## .*$", text, flags=re.M)
    assert headings[:3] == ["## Verdicts", "## What these runs are", "## Insights"]
    verdicts = section(text, "## Verdicts")
    assert re.search(r"\*\*holds \d+\*\*, \*\*contradicted [1-9]\d*\*\*, \*\*inconclusive \d+\*\*", verdicts)
    contradicted = section(verdicts, "### Contradicted (1)")
    line = next(line for line in contradicted.splitlines() if line.startswith("- **D2**"))
    assert "The harder dataset has a lower critic reward." in line
    assert re.search(r"mean reward easy > hard: -[\d.]+ ± [\d.e-]+ SE \(threshold [\d.]+\)", line), line
    assert "[plot](figures/claims/D2.png)" in line and "[fig 8_2](figures/fig_8_2.png)" in line


def test_inconclusive_verdicts_are_grouped_by_reason(layout: tuple[Path, str]) -> None:
    _, text = layout
    inconclusive = section(text, next(h for h in re.findall(r"^### Inconclusive.*$", text, flags=re.M)))
    groups = {m.group(1): m.group(2) for m in re.finditer(r"^- \*\*(.+?)\*\* \(.*?\): (.*)$", inconclusive, re.M)}
    assert groups["sweep not run"] == ", ".join(f"[M{i}](#m{i})" for i in range(3, 9))  # no masking sweep
    assert "other" not in groups and len(groups) >= 2
    assert reasons.group_of(NO_NOISE) == "too few seeds"


def test_one_block_per_insight_with_tables_verdict_and_embedded_plot(layout: tuple[Path, str]) -> None:
    root, text = layout
    block = section(text, "### D2 · data · contradicted")
    assert "**Claim.** The harder dataset has a lower critic reward." in block and "**Criterion.**" in block
    assert "| quantity | arm | mean | SD over seeds | n |" in block
    rows = [line for line in block.splitlines() if line.startswith("| mean reward |")]
    assert len(rows) == 2 and all(line.endswith("| 3 |") for line in rows), rows  # two arms, three seeds each
    assert "| compared | difference | SE | threshold | outcome |" in block
    assert "| reversed |" in block and "**Verdict: contradicted.**" in block
    assert "![D2: the compared numbers per arm](figures/claims/D2.png)" in block
    assert (root / "rep" / "figures" / "claims" / "D2.png").stat().st_size > 5000
    cells = [c for line in text.splitlines() if line.startswith("|") for c in line.split("|")]
    assert max(map(len, cells)) < 300  # no semicolon dumps


def test_figures_are_embedded_not_linked(layout: tuple[Path, str]) -> None:
    _, text = layout
    figures = section(text, "## Figures")
    assert "![fig 8_2](figures/fig_8_2.png)" in figures
    assert "Sweep `masking` missing: `python -m mcsweep +sweep=masking -m`" in figures
    assert "](figures/fig_12_2.png)" not in text


def test_figures_mark_the_noise_threshold_and_do_not_zoom_below_it() -> None:
    """Two arms 0.005 apart (half the minimum effect): the y-axis spans ten minimum effects, not 0.005."""
    rows = [
        (f"r{arm}{seed}", arm, seed, step, 0.40 + 0.005 * (arm == "b") + 0.001 * seed)
        for arm in ("a", "b")
        for seed in (0, 1, 2)
        for step in range(0, 30, 3)
    ]
    frame = pd.DataFrame(rows, columns=["run_id", "label", "seed", "step", "value"]).assign(metric="eval/pass@1")
    fig, axes = style.figure(1, "t", "SIMULATED")
    arm_panel(axes[0], frame, "eval/pass@1", "label")
    lo, hi = axes[0].get_ylim()
    assert hi - lo >= style.MIN_SPAN_EFFECTS * MIN_EFFECT_ABS - 1e-12
    d = describe(style.legends(fig))["panels"][0]
    assert d["noise_mark"] and d["bands"] == 2 and "min effect (0.01)" in d["legend"]


@pytest.mark.parametrize("fig_id", ["12_2", "10_2", "13"])
def test_figures_draw_their_own_legends_in_the_study_words(
    fig_id: str, paper_frame: pd.DataFrame, paper_samples: pd.DataFrame
) -> None:
    """``draw`` alone (the notebooks' path, no report) gives legends, bands over 3 seeds and the arms'
    study names."""
    d = describe(draw(fig_id, paper_frame, paper_samples))
    assert all(p["legend"] and p["xlabel"] and p["ylabel"] and p["noise_mark"] for p in d["panels"])
    assert all(p["bands"] >= 1 for p in d["panels"])
    entries = {e for p in d["panels"] for e in p["legend"]}
    expected = {
        "12_2": {"Mask 10%", "Mask all", "No mask", "Conditional"},
        "10_2": {"L_max 256", "256 -> 512 @ 30"},
        "13": {"GRPO", "DAPO", "MicroCoder-GRPO"},
    }[fig_id]
    assert expected <= entries, entries


@pytest.mark.parametrize(
    ("axis", "option", "words"),
    [
        ("temperature", "fixed_0.6", "t = 0.6"),
        ("temperature", "staged_0.6_1.8", "0.6 -> 1.8"),
        ("temperature", "0.6->1.8@20", "0.6 -> 1.8 @ 20"),
        ("temperature", "ramp_0.6_1.8", "0.6 ~ 1.8 (ramp)"),
        ("masking", "conditional_0.1", "Mask 10%"),
        ("masking", "conditional", "Conditional"),
        ("kl_clip", "no_kl_clip_high", "No KL + clip-high"),
        ("batch", "micro_tb8", "train batch 8"),
    ],
)
def test_arms_are_shown_in_the_study_words(axis: str, option: str, words: str) -> None:
    assert arm_of(axis, option).display == words


def test_table1_has_intervals_and_the_untrained_row_first(layout: tuple[Path, str]) -> None:
    root, text = layout
    table = section(text, "## Table 1")
    body = [line for line in table.splitlines() if line.startswith("| ")][1:]
    assert body[0].startswith("| untrained (step 0) |")
    assert re.search(r"\| untrained \(step 0\) \| train 256 \| 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] \|", table), table
    assert re.search(r"\| MicroCoder-GRPO \| extended 512 \| 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] \|", table), table
    assert table1_markdown(load(root / "runs")) in text


def _samples(run_id: str, sweep: str, key: str | None, per_problem: int) -> pd.DataFrame:
    rng = np.random.default_rng(len(run_id))
    rows = [
        {"run_id": run_id, "sweep": sweep, "algo": "microcoder_grpo", "seed": 0, "step": 40, "max_length": 160.0}
        | {"eval_temperature": 1.0, "problem_id": f"p{p}", "passed": bool(rng.random() < 0.4), "config_key": key}
        for p in range(30)
        for _ in range(per_problem)
    ]
    return pd.DataFrame(rows).assign(arm=None)


def test_passk_rows_name_sweeps_and_arms_keep_feasible_k_and_one_row_per_config() -> None:
    samples = pd.concat(
        [
            _samples("seeds-run", "seeds", "cfg1", 2),
            _samples("table1-run", "table1", "cfg1", 2),  # the same config launched by another sweep
            _samples("other-run", "table1", None, 4),
        ]
    )
    t = passk_rows(samples)
    assert set(t["run_id"]) == {"seeds-run", "other-run"}
    assert set(t.loc[t["run_id"] == "seeds-run", "sweeps"]) == {"seeds, table1"}
    assert sorted(t.loc[t["run_id"] == "seeds-run", "k"]) == [1, 2]  # 2 samples a problem: no pass@4
    assert sorted(t.loc[t["run_id"] == "other-run", "k"]) == [1, 2, 4]
    assert set(t["arm_name"]) == {"MicroCoder-GRPO"}


def test_passk_section_has_sweep_and_arm_columns(layout: tuple[Path, str]) -> None:
    _, text = layout
    table = section(text, "## pass@k")
    assert "| sweeps | arm | seed | step | max_length | temperature | problems | pass@1 | pass@2 | pass@4 |" in table
    assert re.search(r"\| 20 \| 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] \| 0\.\d{3} \[", table)
    assert (
        "| data | microcoder |" in table and "| kl_clip | KL loss |" in table and "| seeds | MicroCoder-GRPO |" in table
    )
    assert "nan" not in table


def test_data_folder_is_a_source_that_gives_the_report_s_numbers(layout: tuple[Path, str]) -> None:
    """The shipped data loads like the runs (the data folder, or the report folder holding it) and gives
    the same verdicts, per-insight tables, Table 1 and pass@k as the runs did."""
    root, text = layout
    data = root / "rep" / "data"
    manifest = json.loads((data / "manifest.json").read_text())
    assert manifest["simulated"] is True and sum(manifest["bytes"].values()) < 2_000_000
    runs_frame, data_frame = load(root / "runs"), load(root / "rep")  # a report folder names its data/
    assert len(data_frame) == len(runs_frame) and set(data_frame.columns) == set(runs_frame.columns)
    assert data_frame.attrs["load_report"].runs == json.loads((data / "load_report.json").read_text())["runs"]
    runs_samples, data_samples = load_samples(root / "runs"), load_samples(data)
    a, b = check_all(runs_frame, runs_samples), check_all(data_frame, data_samples)
    assert a[["id", "status", "reason"]].equals(b[["id", "status", "reason"]])
    assert verdict_text.blocks_markdown(a, {}, {}) == verdict_text.blocks_markdown(b, {}, {})
    assert table1_markdown(runs_frame) == table1_markdown(data_frame) != ""
    assert passk_markdown(runs_samples) == passk_markdown(data_samples)
    from_runs, from_data = temperature_table(runs_samples), temperature_table(data_samples)  # fig 7_2, T1
    assert from_runs["diversity"].notna().all() and len(from_runs) > 0
    pd.testing.assert_frame_equal(from_runs, from_data)
    assert (
        f"`data/` holds the frames this report was built from ({sum(manifest['bytes'].values()) / 1024:.0f} KiB" in text
    )


def test_a_data_folder_of_another_format_is_refused(layout: tuple[Path, str], tmp_path: Path) -> None:
    root, _ = layout
    bad = tmp_path / "data"
    bad.mkdir()
    for f in (root / "rep" / "data").iterdir():
        (bad / f.name).write_bytes(f.read_bytes())
    (bad / "manifest.json").write_text(json.dumps({"format": report_data.FORMAT, "version": 99}))
    with pytest.raises(ValueError, match=r"manifest\.json: format 'mcsweep-report-data' version 99"):
        load(bad)


def test_every_inconclusive_reason_falls_in_a_named_group(small_store: Path) -> None:
    frame, samples = load(small_store), load_samples(small_store)
    worlds = [check_all(frame, samples), check_all(frame[frame["sweep"] != "seeds"], samples)]
    reasons_ = [r for v in worlds for r in v.loc[v["status"] == INCONCLUSIVE, "reason"]]
    assert reasons_ and all(reasons.group_of(r) != "other" for r in reasons_), [
        r for r in reasons_ if reasons.group_of(r) == "other"
    ]


def test_one_config_in_two_sweeps_has_one_config_key(tmp_path: Path) -> None:
    """config.yaml differing only in sweep_name and launch keys: one key; a training knob: another."""
    base = {"seed": 0, "algo": {"name": "microcoder_grpo"}, "train": {"lr": 1e-4, "micro_batch": 8}}
    configs = {
        ("seeds", "a"): {**base, "sweep_name": "seeds", "launcher": {"n_jobs": 1}},
        ("table1", "b"): {**base, "sweep_name": "table1", "launcher": {"n_jobs": 2}, "train": {"lr": 1e-4}},
        ("table1", "c"): {**base, "sweep_name": "table1", "train": {"lr": 2e-4, "micro_batch": 8}},
    }
    for (sweep, rid), config in configs.items():
        run = tmp_path / sweep / rid
        run.mkdir(parents=True)
        (run / "run_card.json").write_text(json.dumps({"run_id": rid, "sweep": sweep, "status": "finished"}))
        (run / "config.yaml").write_text(json.dumps(config))  # JSON is YAML
        (run / "metrics.jsonl").write_text(json.dumps({"step": 1, "reward": 0.5}) + "\n")
    keys = load(tmp_path).drop_duplicates("run_id").set_index("run_id")["config_key"]
    assert keys["a"] == keys["b"] != keys["c"]  # train.micro_batch is a launch-only key


def test_every_inconclusive_block_says_what_would_decide_it(layout: tuple[Path, str]) -> None:
    """Issue 19: each inconclusive insight's block names what more would decide it; a decided one does not."""
    _, text = layout
    blocks = re.split(r'(?=^<a id="[a-z0-9_]+"></a>$)', text, flags=re.M)[1:]
    inconclusive = [b for b in blocks if re.search(r"^### \S+ · \S+ · inconclusive$", b, re.M)]
    decided = [b for b in blocks if re.search(r"^### \S+ · \S+ · (holds|contradicted)$", b, re.M)]
    assert inconclusive and decided
    assert all("**What would decide it.** " in b for b in inconclusive)
    assert not any("**What would decide it.**" in b for b in decided)


def _power(c, n: int) -> float:
    """Chance that a t-test over n seeds per arm counts c's difference, were it and the seed SD true."""
    se, df = c.sd * np.sqrt(2 / n), c.df_at(n)
    return float(stats.nct.sf(stats.t.ppf(1 - ALPHA / 2, df), df, abs(c.diff) / se))


def test_a_difference_within_noise_is_projected_to_the_seeds_that_would_count_it() -> None:
    """Seed SD 0.02, +0.03 between two arms of 2 seeds: within noise now; the projection is the seeds per
    arm at which a t-test would count it in 80% of repeats (at the number where the measured difference
    merely reaches the threshold it would count in about half); below the minimum effect, at none."""
    rng = np.random.default_rng(0)
    a, b = 0.5 + rng.normal(0, 0.02, 2), 0.47 + rng.normal(0, 0.02, 2)
    c = compare(a, b, MIN_EFFECT_ABS)
    assert c.sign == 0, c
    n = c.seeds_needed(ALPHA)
    assert n is not None and 2 < n <= MAX_SEEDS
    assert _power(c, n) >= POWER > _power(c, n - 1)
    assert replace(c, diff=0.009).seeds_needed(ALPHA) is None  # below the minimum effect
    part = part_of("acc[a]>[b]", c, ALPHA)
    assert part.outcome == WITHIN_NOISE and part.seeds_needed == n
    row = pd.Series({"reason": "difference within noise: acc[a]>[b]", "parts": (part,), "observed": ()})
    assert f"would count as claimed in 80% of repeats at about {n} seeds per arm" in verdict_text.decide_text(row)
    assert f"it would hold at about {n} seeds per arm" in verdict_text.decide_text(row)
