"""Where a run's training and test problems come from: micro sets, a problem file, or both."""

from __future__ import annotations

import json

import pytest

from mcsweep.config.schema import ConfigError, DataConfig
from mcsweep.micro.problems import WorldSpec
from mcsweep.micro.world import problem_set
from mcsweep.train.data import DataError, train_problems
from mcsweep.train.data import test_problems as load_test_problems

WORLD = WorldSpec()


@pytest.fixture
def problem_file(tmp_path):
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in problem_set("hard", WORLD, 5)))
    return path


def test_file_training_set_is_tested_on_the_micro_test_split(problem_file):
    cfg = DataConfig(source="jsonl", path=str(problem_file), test_source="micro", n_test=7)
    assert [p["id"] for p in train_problems(cfg, WORLD)] == [p["id"] for p in problem_set("hard", WORLD, 5)]
    whole = {p["id"] for p in problem_set("test", WORLD)}
    assert {p["id"] for p in load_test_problems(cfg, WORLD)} <= whole


def test_test_problems_are_a_seeded_sample_not_the_first_rows():
    """Same sample for every run seed of a sweep; another test_seed draws another; never the prefix."""
    ids = [p["id"] for p in load_test_problems(DataConfig(n_test=20), WORLD)]
    assert ids == [p["id"] for p in load_test_problems(DataConfig(n_test=20), WORLD)]
    assert ids != [p["id"] for p in problem_set("test", WORLD, 20)]
    assert set(ids) <= {p["id"] for p in problem_set("test", WORLD)} and len(set(ids)) == 20
    other = [p["id"] for p in load_test_problems(DataConfig(n_test=20, test_seed=1), WORLD)]
    assert other != ids
    difficulties = {p["difficulty"] for p in load_test_problems(DataConfig(n_test=20), WORLD)}
    assert len(difficulties) > 1


def test_more_test_problems_than_the_split_has_is_said(caplog):
    every = load_test_problems(DataConfig(n_test=10_000), WORLD)
    assert len(every) == len(problem_set("test", WORLD))
    assert "data.n_test=10000" in caplog.text and f"has {len(every)} problems" in caplog.text


def test_without_test_source_the_file_is_the_test_source(problem_file):
    cfg = DataConfig(source="jsonl", path=str(problem_file), n_test=3)
    assert len(load_test_problems(cfg, WORLD)) == 3
    assert load_test_problems(cfg, WORLD)[0]["id"] == train_problems(cfg, WORLD)[0]["id"]


def test_unknown_test_source_names_the_key():
    with pytest.raises(ConfigError, match=r"^data\.test_source:"):
        DataConfig(test_source="s3")


def test_malformed_problem_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "question": "q", "input_output": "{}"}\n{"id": "b"}\n')
    with pytest.raises(DataError, match=r"bad.jsonl:2: missing field\(s\) \['question', 'input_output'\]"):
        train_problems(DataConfig(source="jsonl", path=str(path)), WORLD)
