"""The W&B loader against replayed API responses (no network here), through the real wandb client.

wandb 0.31 sends every public-API request through ``ServiceApi.send_api_request`` (to wandb-core);
the replay answers there, from ``fixtures/wandb_responses.json``, so wandb's own parsing of runs,
configs and history pages is exercised. Unknown requests fail the test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import wandb
from wandb.apis.public import service_api
from wandb_api import ApiStandIn

from mcsweep.analysis import load, load_report

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "wandb_responses.json").read_text())


class Replay(ApiStandIn):
    """Answers ApiRequests from the fixture and records which ones were asked."""

    def graphql(self, op: str, variables: dict[str, Any], query: str) -> dict[str, Any]:
        data = FIXTURE["graphql"][op]
        return data[variables["name"]] if op == "RunHistoryKeys" else data

    def history_rows(self, run_id: str) -> list[dict[str, Any]]:
        return FIXTURE["history"][run_id]


@pytest.fixture
def replay(monkeypatch: pytest.MonkeyPatch) -> Replay:
    rep = Replay()
    monkeypatch.setattr(service_api.ServiceApi, "send_api_request", rep.send)
    monkeypatch.setattr(service_api.ServiceApi, "finalize", lambda *_a, **_k: lambda: None)
    return rep


def test_wandb_runs_load_into_the_tidy_schema(replay: Replay) -> None:
    api = wandb.Api(api_key="0" * 40)
    frame = load("wandb:sim-entity/micro/kl_clip", api=api)
    assert "Runs" in replay.asked and "read_run_history_request" in replay.asked
    assert set(frame["run_id"]) == {"trl0001", "verl002", "nostep3"}
    assert set(frame["sweep"]) == {"kl_clip"}
    trl = frame[frame["run_id"] == "trl0001"]
    assert trl["kl_clip"].unique().tolist() == ["kl"]
    assert trl.loc[trl["metric"] == "eval/pass@1", ["step", "value"]].values.tolist() == [
        [1, 0.35],
        [2, 0.36],
    ]
    assert trl.loc[trl["metric"] == "reward", "step"].tolist() == [1, 2]
    assert not {"_runtime", "epoch", "_step", "global_step"} & set(trl["metric"])


def test_verl_names_are_mapped_and_partial_runs_reported(replay: Replay) -> None:
    frame = load("wandb:sim-entity/micro/kl_clip", api=wandb.Api(api_key="0" * 40))
    verl = frame[frame["run_id"] == "verl002"]
    assert {"reward", "completions/mean_length", "entropy", "time/generation_s", "eval/pass@1"} <= set(verl["metric"])
    assert verl.loc[verl["metric"] == "eval/pass@1", "value"].tolist() == [0.37]
    assert verl["status"].unique().tolist() == ["failed"]
    rep = load_report(frame)
    assert rep.partial_runs() == ["verl002"]
    problems = {(i.run_id, i.problem) for i in rep.issues}
    assert ("nostep3", "no trainer step key; using W&B _step") in problems
    assert any(r == "verl002" and "partial" in p for r, p in problems)
    assert "custom_thing" in rep.unknown_metrics


def test_mcsweep_flat_axis_keys_and_group_give_the_card(replay: Replay) -> None:
    """Without a ``mcsweep`` config section (runs logged by older trackers), the option name gives the arm."""
    frame = load("wandb:sim-entity/micro/kl_clip", api=wandb.Api(api_key="0" * 40))
    run = frame[frame["run_id"] == "nostep3"].iloc[0]
    assert (run["sweep"], run["kl_clip"], run["temperature"], run["seed"]) == (
        "kl_clip",
        "no_kl_clip_high",
        "0.6->1.8",
        1,
    )
    assert run["world"] == "micro"


def test_default_api_comes_from_wandb(replay: Replay, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WANDB_API_KEY", "0" * 40)
    frame = load("wandb:sim-entity/micro")
    assert frame["run_id"].nunique() == 3


def test_bad_wandb_spec_is_an_error() -> None:
    with pytest.raises(ValueError, match="wandb:ENTITY/PROJECT"):
        load("wandb:only-entity", api=object())
