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
