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


SWAPPED_DATA = {
    "deepcoder": {**sim.PAPER["data"]["deepcoder"], "r0": 0.25, "r1": 0.40},
    "microcoder": {**sim.PAPER["data"]["microcoder"], "r0": 0.55, "r1": 0.70},
}
"""The easy set gets the hard set's reward and back: D2 (easy reward > hard) reverses."""


@pytest.fixture(scope="session")
def sim_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report (``<root>/rep``, runs in ``<root>/runs``) on the small world (1 seed per arm, the seeds
    sweep with 3), with the data sweep at 3 seeds and D2 reversed, table1 at 2 seeds, and no masking sweep.
    SIMULATED."""
    from mcsweep.analysis.report import report

    root = tmp_path_factory.mktemp("sim_report")
    runs = sim.paper_world(seeds=(0,), skip=("data", "masking", "table1"))
    runs += sim.make_sweep("data", SWAPPED_DATA) + sim.make_sweep("table1", sim.PAPER["table1"], seeds=(0, 1))
    sim.write_store(root / "runs", runs)
    report([root / "runs"], root / "rep", "SIMULATED report")
    return root / "rep"
