"""Pipeline configuration: YAML files in conf/data_pipeline/, checked against these dataclasses.

OmegaConf merges the file onto the structured defaults, so a misspelt key fails loudly with its
path instead of silently falling back to a default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from mcsweep.data.decontam import DecontamConfig
from mcsweep.data.filtering import DifficultyConfig, QualityConfig
from mcsweep.data.judge_client import ClientConfig
from mcsweep.data.process import ProcessConfig


@dataclass
class CollectConfig:
    sources: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ScorerConfig:
    kind: str = "offline"  # "offline" (deterministic features) or "llm" (OpenAI-compatible judge)
    noise: float = 0.0
    client: ClientConfig = field(default_factory=ClientConfig)


@dataclass
class FilterConfig:
    quality: QualityConfig = field(default_factory=QualityConfig)
    decontam: DecontamConfig = field(default_factory=DecontamConfig)
    test_sets: list[dict[str, Any]] = field(default_factory=list)
    difficulty: DifficultyConfig = field(default_factory=DifficultyConfig)
    rubric: list[dict[str, Any]] | None = None
    scorer: ScorerConfig = field(default_factory=ScorerConfig)
    pass_rates: dict[str, Any] = field(default_factory=dict)


@dataclass
class VerifyConfig:
    sample: int = 20
    tests_shown: int = 3


@dataclass
class PipelineConfig:
    name: str = "dataset"
    out_dir: str = "data/built/dataset"
    seed: int = 0
    params: dict[str, Any] = field(default_factory=dict)
    """Free values the rest of the file refers to as `${params.<name>}` (one override sets them all)."""
    collect: CollectConfig = field(default_factory=CollectConfig)
    process: ProcessConfig = field(default_factory=ProcessConfig)
    filter: FilterConfig = field(default_factory=FilterConfig)
    verify: VerifyConfig = field(default_factory=VerifyConfig)


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> PipelineConfig:
    merged = OmegaConf.structured(PipelineConfig)
    if path:
        merged = OmegaConf.merge(merged, OmegaConf.load(path))
    if overrides:
        merged = OmegaConf.merge(merged, OmegaConf.from_dotlist(overrides))
    return OmegaConf.to_object(merged)  # type: ignore[return-value]


def to_dict(cfg: Any) -> Any:
    return OmegaConf.to_container(OmegaConf.structured(cfg), resolve=True)
