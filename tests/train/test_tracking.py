"""A real tiny offline run carries every column of its run folder into W&B (read from its `.wandb` records)."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest
import wandb_records as wr
import yaml
from transformers.integrations import WandbCallback
from transformers.integrations.integration_utils import rewrite_logs

from mcsweep.train import tracking
from mcsweep.train.run_store import RunStore
from mcsweep.train.tracking import AXES, STEP


@pytest.fixture(scope="module")
def run(wandb_runs: list[Path]) -> tuple[Path, list]:
    """The seed-0 run (trained, then evaluated at two temperatures) and its records."""
    return wandb_runs[0], wr.run_records(wandb_runs[0])


def _history_at(history: list[dict], step: int, key: str) -> list:
    return [row[key] for row in history if row.get(STEP) == step and key in row]


def test_run_is_named_tagged_and_typed(run) -> None:
    run_dir, records = run
    card = json.loads((run_dir / "run_card.json").read_text())
    rec = wr.run_record(records)
    assert rec.run_id == card["run_id"] and rec.run_group == "temperature"
    assert rec.display_name == "temperature/staged_0.6_1.8/s0"
    assert rec.job_type == "train"
    assert set(rec.tags) == {
        "sweep:temperature",
        f"algo:{card['algo']}",
        *(f"{a}:{o}" for a, o in card["axes"].items()),
    }


def test_mcsweep_config_survives_trl_callback(run) -> None:
    """TRL's callback writes its own `temperature` (a number) at the top level; mcsweep's section,
    under `mcsweep`, still holds the staged schedule the run folder has."""
    run_dir, records = run
    config = wr.config(records)
    local = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert isinstance(config["temperature"], float)  # TRL's GRPOConfig.temperature
    # The validated config: the run folder's keys, plus the schema's defaults for keys its YAML leaves out.
    assert local["temperature"].items() <= config["mcsweep"]["temperature"].items()
    assert config["mcsweep"]["temperature"]["stages"] == [[1, 1.8]]
    assert {k.removeprefix("axis/"): v for k, v in config.items() if k.startswith("axis/")} == {
        a: local[a]["name"] for a in AXES
    }
    assert config["run_card"]["run_id"] == run_dir.name


def test_every_metrics_row_reaches_history_on_the_trainer_step(run) -> None:
    run_dir, records = run
    history = wr.history(records)
    rows = RunStore(run_dir).rows("metrics")
    assert [r["step"] for r in rows] == [0, 1, 2]
    for row in rows:  # step 0 included: the initial evaluation
        for key, value in row.items():
            if key != "step" and isinstance(value, int | float):
                [wandb_key] = rewrite_logs({key: value})
                got = _history_at(history, row["step"], wandb_key)  # epoch also in TRL's closing row
                assert got and all(g == value for g in got), (row["step"], key, got)


def test_every_evaluation_cell_reaches_history(run) -> None:
    run_dir, records = run
    history = wr.history(records)
    store = RunStore(run_dir)
    evals = store.rows("evals")
    temps = [json.loads(x) for x in (run_dir / "temperature_evals.jsonl").read_text().splitlines()]
    assert len({r["max_length"] for r in evals}) == 3 and len(temps) == 4  # training, common, extended
    for table, rows in (("evals", evals), ("temperature_evals", temps)):
        for row in rows:
            prefix = tracking.row_prefix(table, row)
            cells = {k: v for k, v in row.items() if k not in tracking.IDENTITY}
            assert cells, row
            for key, value in cells.items():
                assert _history_at(history, row["step"], f"{prefix}/{key}") == [value], (prefix, key)


def test_step_metric_summaries_and_no_profiling(run) -> None:
    _, records = run
    defined = wr.metric_definitions(records)
    assert defined["*"].step_metric == STEP
    history = wr.history(records)
    assert not [k for row in history for k in row if k.startswith("profiling/")]
    evals = RunStore(run[0]).rows("metrics")
    acc = [r["eval/pass@1"] for r in evals if "eval/pass@1" in r]
    summary = wr.summary(records)
    assert summary["train/eval/pass@1"] == {"last": acc[-1], "max": max(acc)}
    assert defined["train/eval/pass@1"].summary.max and defined["train/eval/pass@1"].summary.last


def test_the_run_cost_reaches_the_summary(run) -> None:
    run_dir, records = run
    cost = json.loads((run_dir / "run_card.json").read_text())["compute"]
    summary = wr.summary(records)
    assert {k: summary[f"compute/{k}"] for k in ("wall_s", "cpu_s", "world_size")} == {
        k: cost[k] for k in ("wall_s", "cpu_s", "world_size")
    }
    assert cost["cpu_s"] > 0 and cost["wall_s"] > 0


def _md5(path: Path) -> str:
    return base64.b64encode(hashlib.md5(path.read_bytes()).digest()).decode()


def test_run_store_artifact_versions_hold_the_run_folder(run) -> None:
    run_dir, records = run
    arts = wr.artifacts(records)
    assert {a.type for a in arts} == {"run-store"} and {a.name for a in arts} == {f"run-store-{run_dir.name}"}
    assert [a for a in arts[-1].aliases if a != "latest"] == ["temperature-eval"]
    assert {a for art in arts for a in art.aliases} >= {"step-1", "step-2", "end", "temperature-eval"}
    last = {c.path: c.digest for c in arts[-1].manifest.contents}
    jsonl = {p.name for p in run_dir.glob("*.jsonl")}
    assert jsonl <= set(last) and "temperature_evals.jsonl" in jsonl
    for name, digest in last.items():
        assert digest == _md5(run_dir / name), name  # the folder as it is now


def test_profiling_keys_are_opt_in(tiny_run) -> None:
    cfg, _ = tiny_run(["tracker=wandb"])
    assert tracking.report_to(cfg) == []
    assert any(isinstance(c, WandbCallback) for c in tracking.callbacks(cfg, Path(".")))
    cfg, _ = tiny_run(["tracker=wandb", "tracker.profiling=true"])
    assert tracking.report_to(cfg) == ["wandb"]
    assert not any(isinstance(c, WandbCallback) for c in tracking.callbacks(cfg, Path(".")))
    cfg, _ = tiny_run(["tracker=none"])
    assert tracking.report_to(cfg) == [] and tracking.callbacks(cfg, Path(".")) == []


def test_run_names_follow_the_swept_axis(tiny_run) -> None:
    cfg, _ = tiny_run(["sweep_name=temperature_schedules", "temperature=ramp_0.6_1.8", "seed=2"])
    assert tracking.run_name(cfg) == "temperature_schedules/ramp_0.6_1.8/s2"
    cfg, _ = tiny_run(["sweep_name=table1", "algo=dapo"])
    assert tracking.run_name(cfg) == "table1/dapo/s0"


def test_new_columns_and_row_fields_flow_through_generically() -> None:
    """Another helper's new evals column or a per-comparator row reaches W&B and reads back."""
    from mcsweep.analysis.load_wandb import EVAL_KEY

    row = {"step": 3, "max_length": 64, "comparator": "exact", "pass@1": 0.5, "pass@1/common_length": 0.25}
    prefix = tracking.row_prefix("evals", row)
    assert prefix == "evals/len64/comparator=exact"
    parsed = {
        (m["length"], m["column"])
        for m in (EVAL_KEY.match(f"{prefix}/{k}") for k in ("pass@1", "pass@1/common_length"))
    }
    assert parsed == {("64", "pass@1"), ("64", "pass@1/common_length")}


def test_records_of_a_file_still_being_written_are_not_read_as_complete(run, tmp_path: Path) -> None:
    """The `.wandb` reader behind these tests: a file cut inside a record, or without its exit record
    (wandb-core still flushing), is IncompleteRecords, and run_records waits for it rather than
    reading a partial run."""
    run_dir, records = run
    assert any(r.WhichOneof("record_type") == "exit" for r in records)
    path = sorted(run_dir.glob("wandb/*run-*/run-*.wandb"))[0]
    data = path.read_bytes()
    cut = tmp_path / "wandb" / "offline-run-cut" / "run-cut.wandb"
    cut.parent.mkdir(parents=True)
    cut.write_bytes(data[: wr.HEADER + 7 + 1])  # one byte into the first record's payload
    with pytest.raises(wr.IncompleteRecords):
        wr.read_records(cut)
    with pytest.raises(wr.IncompleteRecords):
        wr.run_records(tmp_path, wait_s=0.6)
