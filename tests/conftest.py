"""Shared test settings: a private cache and run store, W&B offline, one torch thread."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def _isolated_env(tmp_path_factory):
    cache = os.environ.get("MCSWEEP_TEST_CACHE") or str(tmp_path_factory.mktemp("mcsweep-cache"))
    os.environ["MCSWEEP_CACHE"] = cache
    os.environ["WANDB_MODE"] = "offline"
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    yield


@pytest.fixture(autouse=True)
def _no_shared_wandb_service():
    """A test that trains in-process leaves this process's W&B service running and names it in
    WANDB_SERVICE; a run launched later as a subprocess would inherit it and share that service, where a
    killed run's id stays "in use". Each test's in-process W&B is torn down after it."""
    yield
    if "WANDB_SERVICE" in os.environ:
        import wandb

        wandb.teardown()
        os.environ.pop("WANDB_SERVICE", None)


@pytest.fixture(scope="session")
def wandb_runs(tmp_path_factory) -> list:
    """Two real tiny runs of one sweep tracked by W&B offline (seed 0 also evaluated at two
    temperatures, resuming its W&B run). Trained once per session: a few minutes on 2 cores."""
    from wandb_records import train_tiny_wandb_run

    root = tmp_path_factory.mktemp("wandb_runs")
    return [train_tiny_wandb_run(root, seed=0), train_tiny_wandb_run(root, seed=1, temperature_eval=False)]
