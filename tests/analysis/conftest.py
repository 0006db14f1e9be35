"""Shared SIMULATED fixtures: a run store shaped like the study (every insight holds by construction)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from mcsweep.analysis import load, load_samples

from . import simulate as sim


@pytest.fixture(scope="session")
def paper_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All sweeps, 3 seeds each (the t-test over seeds needs 3), in the run-store layout. SIMULATED."""
    return sim.write_store(tmp_path_factory.mktemp("paper_runs"), sim.paper_world())


@pytest.fixture(scope="session")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All sweeps with one seed per arm, noise borrowed from the 3-seed seeds sweep. SIMULATED."""
    return sim.write_store(tmp_path_factory.mktemp("small_runs"), sim.paper_world(seeds=(0,)))


@pytest.fixture(scope="session")
def paper_frame(paper_store: Path) -> pd.DataFrame:
    return load(paper_store)


@pytest.fixture(scope="session")
def paper_samples(paper_store: Path) -> pd.DataFrame:
    return load_samples(paper_store)
