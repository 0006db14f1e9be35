"""The micro world's sets load as pipeline problems (the policy provider needs the built policy and
is exercised by the documented micro_hard build, not here)."""

from __future__ import annotations

from pathlib import Path

from mcsweep.data.micro import micro_set
from mcsweep.data.process import normalise
from mcsweep.data.schema import Problem

CONF = Path(__file__).resolve().parents[2] / "conf"


def test_micro_pool_records_are_pipeline_problems() -> None:
    problems = [Problem.from_dict(r) for r in micro_set("pool", n=40)]
    assert {p.fmt for p in problems} == {"stdin", "call"}
    assert all(isinstance(normalise(p), Problem) and p.reference for p in problems)
    assert {p.difficulty for p in problems} <= {"easy", "medium", "hard"}


def test_the_pipeline_builds_from_the_world_it_is_given(tmp_path) -> None:
    """`params.world_version` picks the pool, the test split and the pass-rate policy of one world, and
    the training config reads the set of its run's own world."""
    from hydra import compose, initialize_config_dir

    from mcsweep.data.config import load_config
    from mcsweep.data.micro import micro_policy_pass_rates
    from mcsweep.micro.policy import PolicySpec
    from mcsweep.micro.problems import WorldSpec

    cfg = load_config(CONF / "data_pipeline" / "micro_hard.yaml", ["params.world_version=2", "params.temperature=1.0"])
    assert cfg.out_dir == "runs/data_pipeline/micro_hard_w2"
    assert [s["kwargs"]["version"] for s in cfg.collect.sources + cfg.filter.test_sets] == [2, 2]
    rates = cfg.filter.pass_rates["kwargs"]
    assert (rates["version"], rates["temperature"], rates["max_new_tokens"], rates["sft_steps"]) == (2, 1.0, 160, 600)
    provider = micro_policy_pass_rates(**rates)
    assert provider.cache_tag == PolicySpec(world=WorldSpec(version=2)).key() != micro_policy_pass_rates().cache_tag
    # a campaign whose policy trains longer calibrates difficulty on that policy, not the default one
    longer = micro_policy_pass_rates(**{**rates, "sft_steps": 800}).cache_tag
    assert longer == PolicySpec(world=WorldSpec(version=2), sft_steps=800).key() != provider.cache_tag
    assert micro_set("pool", n=5, version=2) != micro_set("pool", n=5)
    with initialize_config_dir(str(CONF), version_base="1.3"):
        paths = [
            compose("config", overrides=["data=micro_pipeline", *extra]).data.path
            for extra in ([], ["experiment=micro_campaign"])
        ]
    assert paths == [f"runs/data_pipeline/micro_hard_w{v}/dataset.jsonl" for v in (1, 2)]
