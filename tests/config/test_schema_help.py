"""The schema documents itself: every field has help, enum options fail naming the allowed values,
and `python -m mcsweep --help-config` prints the help."""

from __future__ import annotations

import subprocess
import sys
import typing
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from mcsweep.config.schema import Comparator, ConfigError, MaskingConfig, MaskingMode, RunConfig
from mcsweep.config.validate import validate_config

REPO = Path(__file__).resolve().parents[2]
CONF = str(REPO / "conf")


def _schemas(schema: type = RunConfig) -> typing.Iterator[type]:
    yield schema
    for hint in typing.get_type_hints(schema).values():
        if is_dataclass(hint):
            yield from _schemas(hint)


def _validate(overrides: list[str]) -> RunConfig:
    with initialize_config_dir(CONF, version_base="1.3"):
        return validate_config(compose("config", overrides=overrides))


def test_every_field_of_every_schema_has_help():
    schemas = set(_schemas())
    assert len(schemas) >= 18, "the walk missed nested groups"
    missing = [f"{s.__name__}.{f.name}" for s in schemas for f in fields(s) if not f.metadata.get("help", "").strip()]
    assert not missing


@pytest.mark.parametrize(
    ("override", "key", "options"),
    [
        ("masking.mode=sometimes", "masking.mode", "none, all, all_failed, conditional"),
        ("evaluator.shadow=[fuzzy]", "evaluator.shadow", "livecodebench, microcoder"),
        ("model.dtype=float8", "model.dtype", "float32, bfloat16, float16"),
        ("data.source=ftp", "data.source", "micro, jsonl, hf, deepcoder"),
    ],
)
def test_an_unknown_enum_value_names_the_key_and_the_allowed_values(override, key, options):
    with pytest.raises(ConfigError) as info:
        _validate([override])
    message = str(info.value)
    assert message.startswith(f"{key}") and f"[{options}]" in message and "\n" not in message


def test_enum_options_are_enum_members_equal_to_their_yaml_strings():
    cfg = _validate(["masking=all_failed"])
    assert cfg.masking.mode is MaskingMode.all_failed and cfg.masking.mode == "all_failed"
    assert cfg.evaluator.shadow == [Comparator.livecodebench] and f"{cfg.evaluator.shadow[0]}" == "livecodebench"


def test_a_schema_built_in_code_checks_its_enums_too():
    assert MaskingConfig(mode="all").mode is MaskingMode.all
    with pytest.raises(ConfigError, match=r"^masking\.mode: invalid value 'sometimes'; one of none, all, all_failed"):
        MaskingConfig(mode="sometimes")


def test_sizes_and_micro_policy_are_typed():
    cfg = _validate(["scale=paper", "model=micro_tiny"])
    assert cfg.sizes.ctx_long == 8192 and cfg.sizes.data.hard.source == "jsonl"
    assert cfg.model.micro.hidden_size == 64 and cfg.model.micro.policy_spec().hidden_size == 64
    with pytest.raises(ConfigError, match=r"^sizes\.ctx_longest"):
        _validate(["+sizes.ctx_longest=1"])
    with pytest.raises(ConfigError, match=r"^model\.micro\.hidden_size"):
        _validate(["+model.micro.hidden_size=wide"])


def test_help_config_prints_a_fields_type_default_and_help():
    out = subprocess.run(
        [sys.executable, "-m", "mcsweep", "--help-config", "masking"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    help_text = next(f.metadata["help"] for f in fields(MaskingConfig) if f.name == "rho")
    assert f"  masking.rho: float = 0.3\n      {help_text}\n" in out
    assert "masking.mode: {none|all|all_failed|conditional} = conditional" in out
    assert "context." not in out


def test_help_config_rejects_an_unknown_group():
    proc = subprocess.run(
        [sys.executable, "-m", "mcsweep", "--help-config", "colour"], cwd=REPO, capture_output=True, text=True
    )
    assert proc.returncode == 1 and "unknown group 'colour'; one of evaluator, temperature" in proc.stderr
