"""A real tiny offline W&B run, and what its `.wandb` files recorded (test helper).

wandb 0.31 has no Python reader for `.wandb` files (wandb-core, in Go, reads them), so this reads
the documented container: a 7-byte header (`:W&B`, magic 0xBEE1, version 0), then LevelDB log
records in 32 KiB blocks (4-byte checksum, 2-byte length, 1-byte type: full/first/middle/last),
each payload one `wandb.proto.wandb_internal_pb2.Record`, parsed by wandb's own protobuf classes.
"""

from __future__ import annotations

import json
import struct
import time
from pathlib import Path
from typing import Any

import torch
from google.protobuf.message import DecodeError
from hydra import compose, initialize_config_dir
from wandb.proto import wandb_internal_pb2 as pb

CONF = str(Path(__file__).resolve().parents[1] / "conf")
BLOCK = 32 * 1024
HEADER = 7
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
TINY_WANDB = [
    "model=micro_tiny",
    "sizes.ctx_mid=160",  # the former micro default length: same machinery, faster
    "sizes.ctx_long=224",
    "sizes.ctx_eval=256",
    "tracker=wandb",
    "tracker.mode=offline",
    "launcher.torch_threads=1",
    "data.n_test=4",
    "data.n_train=32",
    "train.eval_samples=2",
    "train.steps=2",
    "train.eval_every=2",
    "train.save_every=1",
    "sweep_name=temperature",
    "temperature=staged_0.6_1.8",
    "sizes.switch_step=1",
]
TEMPERATURES = (0.5, 2.0)


def train_tiny_wandb_run(runs_root: Path, seed: int = 0, temperature_eval: bool = True) -> Path:
    """Train the tiny run with W&B offline, then evaluate its checkpoints at two temperatures."""
    from mcsweep.config.validate import validate_config
    from mcsweep.train.run import train
    from mcsweep.train.temperature_eval import evaluate_at_temperatures

    torch.set_num_threads(1)
    with initialize_config_dir(CONF, version_base="1.3"):
        raw = compose("config", overrides=[*TINY_WANDB, f"runs_root={runs_root}", f"seed={seed}"])
    run_dir = Path(train(validate_config(raw), raw)["run_dir"])
    if temperature_eval:
        evaluate_at_temperatures(run_dir, list(TEMPERATURES), steps=[0, 2], samples=2)
    return run_dir


class IncompleteRecords(ValueError):
    """A `.wandb` file that ends inside a record or holds no exit record yet: still being written."""


def read_records(path: Path) -> list[pb.Record]:
    """Every record of one `.wandb` file; IncompleteRecords if it ends inside a record or one does not
    parse (wandb-core may still be flushing it)."""
    data = path.read_bytes()
    if data[:4] != b":W&B":
        raise ValueError(f"{path} is not a .wandb file (header {data[:7]!r})")
    pos, payload, records = HEADER, b"", []
    while pos + 7 <= len(data):
        left = BLOCK - pos % BLOCK
        if left < 7:  # a block's tail too short for a record header is padding
            pos += left
            continue
        _checksum, length, kind = struct.unpack("<IHB", data[pos : pos + 7])
        if kind == 0 and length == 0:
            pos += left
            continue
        if pos + 7 + length > len(data):
            raise IncompleteRecords(f"{path} ends inside a record at byte {pos}")
        payload += data[pos + 7 : pos + 7 + length]
        pos += 7 + length
        if kind in (FULL, LAST):
            record = pb.Record()
            try:
                record.ParseFromString(payload)
            except DecodeError as err:
                raise IncompleteRecords(f"{path}: record ending at byte {pos} does not parse ({err})") from err
            records.append(record)
            payload = b""
    return records


def _complete_records(path: Path) -> list[pb.Record]:
    records = read_records(path)
    if not any(r.WhichOneof("record_type") == "exit" for r in records):
        raise IncompleteRecords(f"{path} has no exit record yet")
    return records


def run_records(run_dir: Path, wait_s: float = 60.0) -> list[pb.Record]:
    """Records of every W&B session of the run (training, then each resume), in order. A file still
    being flushed after `wandb.finish()` returned (seen under heavy load) is read again until it is
    complete, for up to `wait_s` seconds."""
    files = sorted(run_dir.glob("wandb/*run-*/run-*.wandb"), key=lambda p: p.parent.name)
    if not files:
        raise FileNotFoundError(f"no .wandb file under {run_dir}/wandb")
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return [r for f in files for r in _complete_records(f)]
        except IncompleteRecords:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _items(items: Any) -> dict[str, Any]:
    return {"/".join(i.nested_key) or i.key: json.loads(i.value_json) for i in items}


def history(records: list[pb.Record]) -> list[dict[str, Any]]:
    """History rows as logged; `_step` renumbered across sessions as the server continues it."""
    rows = [_items(r.history.item) for r in records if r.WhichOneof("record_type") == "history"]
    return [{**row, "_step": i} for i, row in enumerate(rows)]


def run_record(records: list[pb.Record]) -> pb.RunRecord:
    return next(r.run for r in records if r.WhichOneof("record_type") == "run")


def config(records: list[pb.Record]) -> dict[str, Any]:
    """The run config after every update (init, then TRL's callback, then resumes)."""
    out: dict[str, Any] = {}
    for r in records:
        kind = r.WhichOneof("record_type")
        updates = r.run.config.update if kind == "run" else r.config.update if kind == "config" else []
        out |= {u.key: json.loads(u.value_json) for u in updates if u.key}
    return out


def summary(records: list[pb.Record]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in records:
        if r.WhichOneof("record_type") == "summary":
            out |= _items(r.summary.update)
    return out


def artifacts(records: list[pb.Record]) -> list[pb.ArtifactRecord]:
    return [r.artifact for r in records if r.WhichOneof("record_type") == "artifact"]


def metric_definitions(records: list[pb.Record]) -> dict[str, pb.MetricRecord]:
    return {r.metric.name or r.metric.glob_name: r.metric for r in records if r.WhichOneof("record_type") == "metric"}
