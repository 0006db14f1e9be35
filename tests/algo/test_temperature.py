"""Temperature schedules and the diversity-determined choice."""

from __future__ import annotations

import json

import pytest

from mcsweep.algo.diversity import distinct_n, group_diversity, mean_group_diversity, per_sample_diversity
from mcsweep.algo.temperature import Schedule, choose, measured_target, probe_table, schedule_from_config
from mcsweep.config.schema import TemperatureConfig


def test_staged_switches_discretely_at_the_configured_step():
    s = schedule_from_config(TemperatureConfig(kind="staged", value=0.6, stages=[[20, 1.8]]))
    assert [s.at(x) for x in (0, 19, 20, 100)] == [0.6, 0.6, 1.8, 1.8]


def test_the_unit_scales_every_temperature_of_the_axis():
    staged = TemperatureConfig(kind="staged", value=0.6, stages=[[20, 1.8]], unit=0.75)
    assert [schedule_from_config(staged).at(x) for x in (0, 20)] == pytest.approx([0.45, 1.35])
    ramp = schedule_from_config(TemperatureConfig(kind="ramp", value=0.6, stages=[[0, 0.6], [40, 1.8]], unit=0.5))
    assert ramp.at(20) == pytest.approx(0.6)
    chosen = TemperatureConfig(kind="diversity", candidates=[0.6, 1.2], unit=0.75)
    assert schedule_from_config(chosen, chosen=1.2).at(0) == pytest.approx(0.9)
    with pytest.raises(ValueError, match=r"temperature\.unit"):
        TemperatureConfig(unit=0)


def test_ramp_interpolates_between_knots():
    s = Schedule("ramp", 0.6, ((0, 0.6), (40, 1.8)))
    assert s.at(0) == pytest.approx(0.6) and s.at(20) == pytest.approx(1.2) and s.at(80) == pytest.approx(1.8)


def test_fixed_and_diversity_need_their_values():
    assert schedule_from_config(TemperatureConfig(kind="fixed", value=1.2)).at(50) == 1.2
    cfg = TemperatureConfig(kind="diversity", candidates=[0.6, 1.2])
    assert schedule_from_config(cfg, chosen=1.2).at(3) == 1.2
    with pytest.raises(ValueError, match="probe"):
        schedule_from_config(cfg)


def test_choose_lowest_candidate_reaching_target_else_most_diverse():
    table = [
        {"temperature": 1.2, "diversity": 0.6},
        {"temperature": 0.6, "diversity": 0.3},
        {"temperature": 1.8, "diversity": 0.8},
    ]
    assert choose(table, 0.55) == 1.2
    assert choose(table, 0.9) == 1.8


def test_probe_table_measures_each_candidate():
    same = [[1, 2, 3, 4, 5]] * 2
    varied = [[1, 2, 3, 4, 5], [9, 8, 7, 6, 5]]
    table = probe_table(lambda t: varied if t > 1 else same, [0.5, 1.5], group_size=2)
    assert table[0]["diversity"] == pytest.approx(0.5) and table[1]["diversity"] == pytest.approx(1.0)


def test_diversity_measures():
    assert group_diversity([[1, 2, 3, 4], [1, 2, 3, 4]]) == 0.5
    assert mean_group_diversity([[1, 2, 3, 4]] * 2 + [[1, 2, 3, 4], [4, 3, 2, 1]], 2) == pytest.approx(0.75)
    assert distinct_n([7, 8, 7, 8, 7, 8], 2) == pytest.approx(2 / 5)


def test_per_sample_diversity_is_not_capped_by_the_group_size():
    """Identical samples: pooled D is 1/G (0.125 at G=8), per-sample D keeps each response's own value."""
    response = list(range(20))
    assert mean_group_diversity([response] * 8, 8) == pytest.approx(1 / 8)
    assert per_sample_diversity([response] * 8) == pytest.approx(1.0)
    assert per_sample_diversity([[1, 2, 3] * 10]) == pytest.approx(3 / 27)  # a loop drives it down
    assert per_sample_diversity([[1, 2]]) == 0.0  # no 4-gram at all


def _pilot(folder, diversities):
    """A run folder whose metrics.jsonl holds the given per-step diversities (test fixture, not a run)."""
    folder.mkdir(parents=True)
    rows = [
        {"step": i + 1, "diversity/group_4gram": d, "diversity/per_sample_4gram": d / 2}
        for i, d in enumerate(diversities)
    ]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_target_is_the_diversity_a_pilot_run_converged_to(tmp_path):
    _pilot(tmp_path / "pilot_sweep" / "run_a", [0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.7])
    _pilot(tmp_path / "pilot_sweep" / "run_b", [0.9, 0.6, 0.5, 0.5, 0.5, 0.5, 0.5])
    run_a = tmp_path / "pilot_sweep" / "run_a"
    assert measured_target(str(run_a), str(tmp_path), "pooled")[0] == pytest.approx(0.7)
    assert measured_target("run_a", str(tmp_path), "pooled")[0] == pytest.approx(0.7)  # by run id
    assert measured_target("run_a", str(tmp_path), "per_sample")[0] == pytest.approx(0.35)
    target, runs = measured_target("pilot_sweep", str(tmp_path), "pooled")  # by sweep: mean of finals
    assert target == pytest.approx(0.6) and len(runs) == 2
    with pytest.raises(ValueError, match=r"temperature\.target_from: 'nope'"):
        measured_target("nope", str(tmp_path), "pooled")
    table = [{"temperature": 0.6, "diversity": 0.5}, {"temperature": 1.2, "diversity": 0.65}]
    assert choose(table, target) == 1.2 and choose(table, 0.5) == 0.6
