"""Hydra's Optuna sweeper, made to resume an interrupted search instead of starting a new one.

With a persistent storage and a study name, hydra-optuna-sweeper reloads the study but then runs
`n_trials` more trials, and trials that were running when the search was killed stay RUNNING
forever. This sweeper reads `n_trials` as the study's total: a re-run marks the interrupted trials
as failed and runs only the trials still to go (none, once the search is complete). One driver per
study: a trial RUNNING in the storage is assumed to belong to a dead driver.
"""

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra_plugins.hydra_optuna_sweeper.config import OptunaSweeperConf
from hydra_plugins.hydra_optuna_sweeper.optuna_sweeper import OptunaSweeper

log = logging.getLogger(__name__)
SQLITE = "sqlite:///"


@dataclass
class ResumingOptunaSweeperConf(OptunaSweeperConf):
    _target_: str = "hydra_plugins.mcsweep_launch.optuna_resume.ResumingOptunaSweeper"


ConfigStore.instance().store(
    group="hydra/sweeper", name="mcsweep_optuna", node=ResumingOptunaSweeperConf, provider="mcsweep"
)


class ResumingOptunaSweeper(OptunaSweeper):
    def sweep(self, arguments: list[str]) -> Any:
        impl = self.sweeper
        total = impl.n_trials
        impl.n_trials, stored = trials_to_go(impl.storage, impl.study_name, total)
        if impl.n_trials == 0:
            log.info("study %r has its %d trials; nothing launched", impl.study_name, total)
            return None
        if stored:
            # A sampler seeded as before would redraw the stored trials' points (same run ids, so the
            # "new" trials would only read back old results): draw fresh ones instead.
            impl.sampler.reseed_rng()
        return super().sweep(arguments)


def trials_to_go(storage: Any, study_name: str | None, n_trials: int) -> tuple[int, int]:
    """(trials left for the study to reach `n_trials` finished ones, trials already stored); fails
    the interrupted trials."""
    if storage is None:
        return n_trials, 0
    if not study_name:
        raise ValueError(
            "hydra.sweeper.study_name: required with a storage, or an interrupted search cannot be found again"
        )
    import optuna
    from optuna.trial import TrialState

    _make_sqlite_folder(storage)
    try:
        study = optuna.load_study(study_name=study_name, storage=storage)
    except KeyError:  # optuna's answer for a study that is not stored yet
        return n_trials, 0
    interrupted = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
    for trial in interrupted:
        study.tell(trial.number, state=TrialState.FAIL)
    done = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED)))
    to_go = max(0, n_trials - done)
    log.info(
        "resuming study %r: %d trials finished, %d interrupted (marked failed), %d to go",
        study_name,
        done,
        len(interrupted),
        to_go,
    )
    return to_go, len(study.get_trials(deepcopy=False))


def _make_sqlite_folder(storage: Any) -> None:
    """sqlite creates the database file but not its folder (a fresh checkout has no runs/ yet)."""
    if isinstance(storage, str) and storage.startswith(SQLITE):
        Path(storage[len(SQLITE) :]).parent.mkdir(parents=True, exist_ok=True)
