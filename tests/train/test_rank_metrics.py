"""Rollout metrics over every process's rows, in two real gloo processes: TRL's `log` averages only the
local values and only rank 0 writes the run store, so the diversity, mask and overlong curves of an
8-GPU run were rank 0's eighth of each rollout."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

RANK = textwrap.dedent(
    """
    import json, sys
    from collections import defaultdict
    from types import SimpleNamespace
    from accelerate import Accelerator
    from mcsweep.train.trainer import MicroCoderGRPOTrainer

    acc = Accelerator(cpu=True)
    me = SimpleNamespace(accelerator=acc, _metrics={"train": defaultdict(list)})
    # rank 0: 2 groups, half its rows truncated; rank 1: 6 groups, none (means 0.5 and 0.0 by rank)
    values = {"mask/truncated": ([0.5, 0.0][acc.process_index], [2, 6][acc.process_index])}
    MicroCoderGRPOTrainer._log_over_ranks(me, values)
    if acc.is_main_process:
        print(json.dumps(dict(me._metrics["train"])))
    """
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_rollout_metric_is_the_mean_over_every_process_rows(tmp_path):
    port, procs = _free_port(), []
    for rank in range(2):
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(port),
            "RANK": str(rank),
            "LOCAL_RANK": str(rank),
            "WORLD_SIZE": "2",
            "OMP_NUM_THREADS": "1",
        }
        procs.append(subprocess.Popen([sys.executable, "-c", RANK], env=env, stdout=subprocess.PIPE, text=True))
    outputs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    logged = json.loads(outputs[0].strip().splitlines()[-1])
    assert logged["mask/truncated"] == [(0.5 * 2 + 0.0 * 6) / 8]  # rank 0's own mean was 0.5
