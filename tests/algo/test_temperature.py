"""Temperature schedules and the diversity-determined choice."""

from __future__ import annotations

import pytest

from mcsweep.algo.diversity import distinct_n, group_diversity, mean_group_diversity
from mcsweep.algo.temperature import Schedule, choose, probe_table, schedule_from_config
from mcsweep.config.schema import TemperatureConfig


def test_staged_switches_discretely_at_the_configured_step():
    s = schedule_from_config(TemperatureConfig(kind="staged", value=0.6, stages=[[20, 1.8]]))
    assert [s.at(x) for x in (0, 19, 20, 100)] == [0.6, 0.6, 1.8, 1.8]


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
