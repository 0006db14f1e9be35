"""The private TRL methods mcsweep overrides are the ones docs/ARCHITECTURE.md lists, for the TRL
version it names; an upgrade or a new override must revisit that list."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import trl
from trl import GRPOTrainer

from mcsweep.train.trainer import MicroCoderGRPOTrainer

DOC = (Path(__file__).resolve().parents[2] / "docs" / "ARCHITECTURE.md").read_text()


def _section() -> str:
    return DOC.split("## Where mcsweep relies on TRL's private API")[1].split("\n## ")[0]


def test_the_documented_trl_version_is_the_installed_one():
    assert re.search(r"checked against TRL (\S+)\)", DOC).group(1) == trl.__version__


def test_every_private_override_is_listed_and_exists_in_trl():
    overrides = {
        name
        for name, value in vars(MicroCoderGRPOTrainer).items()
        if name.startswith("_") and not name.startswith("__") and inspect.isfunction(value)
    }
    inherited = {name for name in overrides if hasattr(GRPOTrainer, name)}
    listed = set(re.findall(r"^\| `(_\w+)` \|", _section(), flags=re.MULTILINE))
    assert listed == inherited
    for name in listed:
        ours = list(inspect.signature(getattr(MicroCoderGRPOTrainer, name)).parameters)
        theirs = list(inspect.signature(getattr(GRPOTrainer, name)).parameters)
        assert theirs[: len(ours)] == ours or "args" in ours, f"{name}: TRL's signature changed ({theirs})"
