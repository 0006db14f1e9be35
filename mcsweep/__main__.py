"""`python -m mcsweep`: one GRPO run (or a sweep of them with -m), configured by Hydra.

The config is validated before anything is built or launched; a bad value fails at once with the
key named.
"""

from __future__ import annotations

import logging

import hydra
from omegaconf import DictConfig

from mcsweep.config.validate import validate_config

log = logging.getLogger("mcsweep")


@hydra.main(version_base="1.3", config_path="../conf", config_name="config")
def main(cfg: DictConfig) -> float:
    """Train, evaluate, write the run folder; return the final test pass@1 (the Optuna objective)."""
    run_cfg = validate_config(cfg)
    from mcsweep.train.run import train

    summary = train(run_cfg, cfg)
    log.info("finished: %s", summary)
    return float(summary.get("pass@1", float("nan")))


if __name__ == "__main__":
    main()
