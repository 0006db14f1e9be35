"""An Optuna search (tiny objective, sqlite storage) is killed mid-trial and resumes to its total."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

STUDY = "tiny_optuna"


def _trials(storage: str) -> list[optuna.trial.FrozenTrial]:
    try:
        return optuna.load_study(study_name=STUDY, storage=storage).get_trials(deepcopy=False)
    except KeyError:
        return []


def _states(storage: str) -> list[TrialState]:
    return [t.state for t in _trials(storage)]


def _mid_trial(states: list[TrialState]) -> bool:
    return states.count(TrialState.COMPLETE) >= 2 and states.count(TrialState.RUNNING) == 1


def _search(tiny_app, runs: Path, **kwargs):
    return tiny_app(runs, "+hparams_search=tiny_optuna", "sleep_s=1.5", sweeper="optuna", **kwargs)


@pytest.mark.timeout(240)
def test_interrupted_search_resumes_to_its_total(tmp_path: Path, tiny_app) -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = f"sqlite:///{tmp_path}/optuna.db"
    proc = _search(tiny_app, tmp_path, background=True)
    try:
        deadline = time.monotonic() + 120
        # Kill while a trial runs, after two finished: the resume must fail one and run two.
        while not _mid_trial(_states(storage)):
            assert proc.poll() is None and time.monotonic() < deadline, "search ended or stalled early"
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the driver and its joblib workers: an abrupt interruption
        proc.wait()
    before = _states(storage)
    done = before.count(TrialState.COMPLETE)

    resumed = _search(tiny_app, tmp_path)
    out = resumed.stdout + resumed.stderr
    assert resumed.returncode == 0, out
    assert re.search(
        rf"resuming study '{STUDY}': {done} trials finished, 1 interrupted "
        rf"\(marked failed\), {4 - done} to go",
        out,
    ), out
    after = _states(storage)
    assert after.count(TrialState.COMPLETE) == 4 and after.count(TrialState.FAIL) == 1
    assert TrialState.RUNNING not in after
    xs = [t.params["x"] for t in _trials(storage)]
    assert len(set(xs)) == len(xs), f"the resumed search redrew stored points: {xs}"

    again = _search(tiny_app, tmp_path)
    assert f"study '{STUDY}' has its 4 trials; nothing launched" in again.stdout + again.stderr
    assert len(_states(storage)) == len(after)
