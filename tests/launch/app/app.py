"""A tiny Hydra app shaped like mcsweep (axis groups, run store, launcher presets from the repo's
conf/) whose task is trivial, to test the sweeper and launchers for real in seconds."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import hydra
from omegaconf import DictConfig

from mcsweep.launch.identity import run_dir, run_id


def _card(folder: Path, status: str) -> None:
    (folder / "run_card.json").write_text(json.dumps({"run_id": folder.name, "status": status}))


@hydra.main(version_base="1.3", config_path="conf", config_name="tiny")
def main(cfg: DictConfig) -> int:
    folder = run_dir(cfg)
    folder.mkdir(parents=True, exist_ok=True)
    assert folder.name == run_id(cfg)
    _card(folder, "running")
    attempts = folder / "attempts"  # how many times this run started: a requeued job starts again
    attempt = int(attempts.read_text()) + 1 if attempts.exists() else 1
    attempts.write_text(str(attempt))
    start = time.time()
    if cfg.fail_x == cfg.x:
        _card(folder, "failed")
        raise ValueError(f"task failed on purpose for x={cfg.x}")
    # Only a first attempt is slow: a resumed run continues from its checkpoint.
    time.sleep(cfg.slow_s if cfg.slow_x == cfg.x and attempt == 1 else cfg.sleep_s)
    result = {
        "x": cfg.x,
        "start": start,
        "end": time.time(),
        "omp": os.environ.get("OMP_NUM_THREADS"),
        "attempt": attempt,
    }
    (folder / "result.json").write_text(json.dumps(result))
    _card(folder, "finished")
    return 2 * cfg.x


if __name__ == "__main__":
    main()
