"""A Hydra sweeper that checks a whole sweep before launching any of it.

Hydra's BasicSweeper launches batch by batch and finds a bad point only when its job fails, maybe
hours in. This sweeper expands the sweep the same way (same override syntax, `hydra.sweeper.params`
included), composes and validates every point first, and launches nothing if one is bad. It also
names each point by its run id, skips points whose run already finished, names the new points that
will copy another sweep's finished run of their config (mcsweep/launch/reuse.py), and can only print
the plan (`hydra.sweeper.dry_run=true`, or `+dry_run=true`).
"""

import copy
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.config_store import ConfigStore
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.utils import JobReturn
from hydra.errors import CompactHydraException
from hydra.utils import get_method
from omegaconf import DictConfig, OmegaConf, open_dict, read_write

from mcsweep.launch.identity import config_key, run_dir, run_id
from mcsweep.launch.reuse import finished_runs
from mcsweep.launch.status import RunStatus, run_status

log = logging.getLogger(__name__)


@dataclass
class ValidatingSweeperConf:
    _target_: str = "hydra_plugins.mcsweep_launch.sweeper.ValidatingSweeper"
    max_batch_size: int | None = None
    params: dict[str, str] | None = None
    # Print each point, its run id and status; launch nothing.
    dry_run: bool = False
    # Leave out points whose run folder says finished (a re-run of a sweep resumes it).
    skip_done: bool = True
    # Dotted path of `f(cfg) -> Any` that raises on an invalid point; null to only compose.
    validator: str | None = "mcsweep.config.validate.validate_config"


ConfigStore.instance().store(group="hydra/sweeper", name="mcsweep", node=ValidatingSweeperConf, provider="mcsweep")


# Compact: Hydra prints these messages alone, without a traceback through its internals.
class SweepConfigError(CompactHydraException):
    """One or more points of a sweep cannot be composed or validated; nothing was launched."""


class SweepFailed(CompactHydraException):
    """Some launched points failed; the others' results are kept."""


@dataclass
class Point:
    index: int
    overrides: list[str]
    label: str  # the overrides that vary across the sweep, and the seed: how a user names the point
    run_id: str = ""
    run_dir: Path | None = None
    status: RunStatus = RunStatus.NEW
    twin: Path | None = None  # a new point's finished run in another sweep, which it will copy


class ValidatingSweeper(BasicSweeper):
    def __init__(
        self,
        max_batch_size: int | None,
        params: dict[str, str] | None = None,
        dry_run: bool = False,
        skip_done: bool = True,
        validator: str | None = None,
    ) -> None:
        super().__init__(max_batch_size=max_batch_size, params=params)
        self.dry_run = dry_run
        self.skip_done = skip_done
        self.validator = validator
        self._finished: dict[str, Path] | None = None  # config key -> finished run, read once per check

    def sweep(self, arguments: list[str]) -> Any:
        assert self.config is not None and self.launcher is not None and self.hydra_context is not None
        points = self._expand(arguments)
        self._check(points)
        for point in points:
            copies = f"  (copies {point.twin.parent.name}/{point.twin.name})" if point.twin else ""
            log.info("point #%d %s  run %s  %s%s", point.index, point.label, point.run_id, point.status.value, copies)
        if self.dry_run or self.config.get("dry_run"):
            log.info("dry run: %d points, nothing launched", len(points))
            return []
        todo = [p for p in points if not (self.skip_done and p.status is RunStatus.DONE)]
        if not todo:
            log.info("all %d points are done; nothing launched", len(points))
            return []
        skipped = len(points) - len(todo)
        log.info("launching %d of %d points (%d done, skipped)", len(todo), len(points), skipped)
        sweep_dir = Path(str(self.config.hydra.sweep.dir))
        sweep_dir.mkdir(parents=True, exist_ok=True)
        OmegaConf.save(self.config, sweep_dir / "multirun.yaml")
        return self._launch(todo)

    def _expand(self, arguments: list[str]) -> list[Point]:
        """All points of the sweep, with BasicSweeper's expansion (cartesian product, `params`)."""
        parser = OverridesParser.create(config_loader=self.hydra_context.config_loader)
        overrides = parser.parse_overrides(self._parse_config() + list(arguments))
        combos = self.split_arguments(overrides, None)[0]  # at least [[]]: one point, no overrides
        # The seed names a point even when one sweep runs one seed (a campaign's unit, scripts/micro_report.sh).
        first = combos[0]
        varying = [i for i in range(len(first)) if len({c[i] for c in combos}) > 1 or first[i].startswith("seed=")]
        return [Point(n, list(c), " ".join(c[i] for i in varying) or " ".join(c)) for n, c in enumerate(combos)]

    def _check(self, points: list[Point]) -> None:
        """Compose and validate every point; raise one error listing every bad point."""
        validate = self._load_validator()
        errors = []
        self._finished = None
        try:
            for point in points:
                try:
                    self._check_point(point, validate)
                except Exception as err:
                    errors.append(f"  point #{point.index} [{point.label}]: {_describe(err)}")
        finally:
            HydraConfig.instance().set_config(self.config)
        if errors:
            head = f"{len(errors)} of {len(points)} points are invalid; nothing was launched:"
            raise SweepConfigError("\n".join([head, *errors]))

    def _check_point(self, point: Point, validate: Callable[[DictConfig], Any] | None) -> None:
        full = self.hydra_context.config_loader.load_sweep_config(self.config, point.overrides)
        HydraConfig.instance().set_config(full)  # so `${hydra:...}` resolves as it will in the job
        cfg = _task_config(full)
        if validate is not None:
            validate(cfg)
        point.run_id = run_id(cfg)
        point.run_dir = run_dir(cfg)
        point.status = run_status(point.run_dir)
        if point.status is RunStatus.NEW and OmegaConf.select(cfg, "launcher.reuse", default=False):
            if self._finished is None:
                self._finished = finished_runs(Path(str(cfg.runs_root)))
            point.twin = self._finished.get(config_key(cfg))

    def _load_validator(self) -> Callable[[DictConfig], Any] | None:
        if not self.validator:
            return None
        try:
            return get_method(self.validator)
        except Exception as err:
            raise SweepConfigError(f"hydra.sweeper.validator: cannot import {self.validator!r}: {err}") from err

    def _launch(self, todo: list[Point]) -> list[Sequence[JobReturn]]:
        returns: list[Sequence[JobReturn]] = []
        failures = []
        start = 0
        for batch in self.split_overrides_to_chunks([p.overrides for p in todo], self.max_batch_size):
            results = self.launcher.launch(batch, initial_job_idx=start)
            for point, result in zip(todo[start : start + len(batch)], results, strict=True):
                try:
                    _ = result.return_value
                except Exception as err:
                    failures.append(f"  point #{point.index} [{point.label}] run {point.run_id}: {_describe(err)}")
            returns.append(results)
            start += len(batch)
        if failures:
            raise SweepFailed(
                f"{len(failures)} of {len(todo)} launched points failed (the others finished):\n" + "\n".join(failures)
            )
        return returns


def _task_config(full: DictConfig) -> DictConfig:
    """The config the task function receives: the point's config without Hydra's node."""
    cfg = copy.deepcopy(full)
    with read_write(cfg), open_dict(cfg):
        del cfg["hydra"]
    return cfg


def _describe(err: BaseException) -> str:
    """One line: the error's type and message (which, for ConfigError, starts with the key)."""
    text = str(err).strip().splitlines()
    return f"{err.__class__.__name__}: {text[0] if text else ''}"
