"""Hydra's submitit launchers, changed to report every point of a sweep.

hydra-submitit-launcher waits for its jobs in order and raises at the first one that failed, so
one cancelled or killed job hides the results of the others and leaves them unwatched. These
launchers wait for all jobs and turn a job that failed, or ended without a result (cancelled,
killed, timed out), into a failed JobReturn naming the SLURM job, its state and its log. The job
side (running the task, requeue through `checkpoint`) is Hydra's own.
"""

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hydra.core.config_store import ConfigStore
from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, JobStatus, filter_overrides
from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf, LocalQueueConf, SlurmQueueConf
from hydra_plugins.hydra_submitit_launcher.submitit_launcher import BaseSubmititLauncher
from omegaconf import OmegaConf

log = logging.getLogger(__name__)
# Options given to submitit.AutoExecutor() itself rather than to update_parameters().
_INIT_KEYS = ("submitit_folder", "max_num_timeout")


class JobEndedWithoutResult(RuntimeError):
    """The scheduler ended the job (cancelled, killed, out of time or memory) before it wrote a result."""


class ReportingSubmititLauncher(BaseSubmititLauncher):
    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        jobs = self._submit(job_overrides, initial_job_idx)
        return [_outcome(job, overrides) for job, overrides in zip(jobs, job_overrides, strict=True)]

    def _submit(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> list[Any]:
        import submitit  # lazy, as Hydra's launcher does, to keep plugin discovery fast

        assert self.config is not None
        executor = submitit.AutoExecutor(
            cluster=self._EXECUTOR, folder=self.params["submitit_folder"], **self._init_params()
        )
        executor.update_parameters(**self._queue_params())
        args = [
            (
                list(o),
                "hydra.sweep.dir",
                initial_job_idx + i,
                f"job_id_for_{initial_job_idx + i}",
                Singleton.get_state(),
            )
            for i, o in enumerate(job_overrides)
        ]
        jobs = executor.map_array(self, *zip(*args, strict=True))
        for job, overrides in zip(jobs, job_overrides, strict=True):
            shown = " ".join(filter_overrides(overrides))
            log.info("submitted %s job %s: %s", self._EXECUTOR, job.job_id, shown)
        return jobs

    def _init_params(self) -> dict[str, Any]:
        value = self.params.get("max_num_timeout")
        return {} if value is None else {f"{self._EXECUTOR}_max_num_timeout": value}

    def _queue_params(self) -> dict[str, Any]:
        """submitit names the options all executors share plainly and prefixes the others."""
        shared = set(OmegaConf.structured(BaseQueueConf).keys())
        return {k if k in shared else f"{self._EXECUTOR}_{k}": v for k, v in self.params.items() if k not in _INIT_KEYS}


def _outcome(job: Any, overrides: Sequence[str]) -> JobReturn:
    """The job's own JobReturn, or a failed one saying how the scheduler ended it."""
    from submitit.core.utils import UncompletedJobError

    try:
        return job.results()[0]
    except UncompletedJobError as err:
        error: BaseException = JobEndedWithoutResult(
            f"job {job.job_id} ended with state {job.state} and no result; log: {job.paths.stderr}"
        )
        error.__cause__ = err
    except Exception as err:  # the task raised outside Hydra's run_job (e.g. unpicklable result)
        error = err
    return JobReturn(overrides=list(overrides), status=JobStatus.FAILED, _return_value=error)


class ReportingSlurmLauncher(ReportingSubmititLauncher):
    _EXECUTOR = "slurm"


class ReportingLocalLauncher(ReportingSubmititLauncher):
    _EXECUTOR = "local"


@dataclass
class ReportingSlurmConf(SlurmQueueConf):
    _target_: str = "hydra_plugins.mcsweep_launch.submitit_launchers.ReportingSlurmLauncher"


@dataclass
class ReportingLocalConf(LocalQueueConf):
    _target_: str = "hydra_plugins.mcsweep_launch.submitit_launchers.ReportingLocalLauncher"


ConfigStore.instance().store(
    group="hydra/launcher", name="mcsweep_submitit_slurm", node=ReportingSlurmConf(), provider="mcsweep"
)
ConfigStore.instance().store(
    group="hydra/launcher", name="mcsweep_submitit_local", node=ReportingLocalConf(), provider="mcsweep"
)
