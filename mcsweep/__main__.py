"""`python -m mcsweep`: one GRPO run (or a sweep of them with -m), configured by Hydra.

The config is validated before anything is built or launched; a bad value fails at once with the
key named.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig

from mcsweep.config.schema import ConfigError
from mcsweep.config.validate import validate_config

log = logging.getLogger("mcsweep")


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def run(cfg: DictConfig) -> float:
    """Train, evaluate, write the run folder; return the objective (final test pass@1 by default).
    An invalid config is one line naming the key, and exit status 2, not a traceback."""
    try:
        run_cfg = validate_config(cfg)
    except ConfigError as err:
        log.error("invalid config: %s", err)
        sys.exit(2)
    from mcsweep.launch.objective import objective
    from mcsweep.train.run import train

    summary = train(run_cfg, cfg)
    log.info("finished: %s", summary)
    spec = cfg.get("optimized_metric")
    metric, reduce = (spec.metric, spec.reduce) if spec else ("pass@1", "final")
    return objective(Path(summary["run_dir"]), run_cfg.context.max_completion_length, metric, reduce)


def main() -> float | None:
    """`--help-config [GROUP]` prints the config keys' help (mcsweep/config/help.py); anything else
    goes to Hydra."""
    if "--help-config" in sys.argv:
        from mcsweep.config.help import render

        at = sys.argv.index("--help-config")
        group = sys.argv[at + 1] if len(sys.argv) > at + 1 else None
        try:
            print(render(group), end="")
        except KeyError as err:
            sys.exit(err.args[0])
        return None
    return run()


if __name__ == "__main__":
    main()
