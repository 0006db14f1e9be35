"""One dependency set: the `[gpu]` extra resolves the transformers/TRL/accelerate the CPU tests run.

The GPU path has never run; CI runs on the CPU install. If the extra pinned these libraries apart
from the base install, CI would test one library and the cluster would run another (the
`activation_checkpointing` TypeError of issue 12).
"""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
SHARED = ("transformers", "trl", "accelerate", "torch")
# From vllm-0.31.0's wheel METADATA (`pip download --no-deps vllm==0.31.0`): Requires-Dist lines.
VLLM_0_31_REQUIRES = {"transformers": ">=5.10.4,<5.18.0", "torch": "==2.13.0", "aiohttp": ">=3.13.3"}


def _project() -> dict:
    return tomllib.loads(PYPROJECT.read_text())["project"]


def _by_name(lines: list[str]) -> dict[str, Requirement]:
    return {Requirement(line).name.lower(): Requirement(line) for line in lines}


def _minimum(spec: SpecifierSet) -> Version:
    bounds = [Version(s.version) for s in spec if s.operator in (">=", "==", "~=")]
    assert bounds, f"{spec} has no lower bound"
    return max(bounds)


def test_gpu_extra_does_not_repin_the_shared_libraries() -> None:
    base, gpu = _by_name(_project()["dependencies"]), _by_name(_project()["optional-dependencies"]["gpu"])
    for name in SHARED:
        assert name in base, f"{name} must be pinned in the base dependencies"
        if name in gpu:  # only as trl[extras] with the very same pin
            assert gpu[name].specifier == base[name].specifier, f"[gpu] pins {gpu[name]}, base pins {base[name]}"


@pytest.mark.parametrize("name", SHARED)
def test_installed_versions_satisfy_the_one_pin(name: str) -> None:
    base = _by_name(_project()["dependencies"])
    installed = Version(importlib.metadata.version(name).split("+")[0])
    assert base[name].specifier.contains(installed, prereleases=True), f"{name} {installed} vs {base[name]}"


def test_base_pins_are_inside_vllm_0_31_ranges() -> None:
    base = _by_name(_project()["dependencies"])
    for name, vllm_spec in VLLM_0_31_REQUIRES.items():
        if name in base:
            ours = base[name].specifier
            assert SpecifierSet(vllm_spec).contains(_minimum(ours)), f"{name}: {ours} starts outside vLLM's {vllm_spec}"
    transformers = Version(importlib.metadata.version("transformers"))
    assert SpecifierSet(VLLM_0_31_REQUIRES["transformers"]).contains(transformers)


def test_gpu_extra_meets_the_installed_trl_extras_minimums() -> None:
    """TRL 1.16's own [vllm] and [deepspeed] extras, read from its installed metadata."""
    gpu = _by_name(_project()["optional-dependencies"]["gpu"])
    base = _by_name(_project()["dependencies"])
    wanted = [
        Requirement(line)
        for line in importlib.metadata.requires("trl")
        if 'extra == "vllm"' in line or 'extra == "deepspeed"' in line
    ]
    assert {r.name for r in wanted} >= {"vllm", "deepspeed", "aiohttp"}
    for req in wanted:
        ours = gpu.get(req.name.lower()) or base.get(req.name.lower())
        if ours is None or not req.specifier:
            continue
        assert req.specifier.contains(_minimum(ours.specifier), prereleases=True), f"{ours} below TRL's {req}"
    assert {"vllm", "deepspeed", "aiohttp"} <= set(gpu)
