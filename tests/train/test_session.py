"""The run session marks every run's card: failed when anything raises (mid-training or while the
run is being opened), finished with its final summary otherwise."""

from __future__ import annotations

import json
import resource

import pytest
from transformers import TrainerCallback

from mcsweep.evaluator import Evaluator, GradeRequest
from mcsweep.launch.identity import run_dir, run_id
from mcsweep.launch.status import CardStatus
from mcsweep.train import tracking
from mcsweep.train.run import train
from mcsweep.train.run_store import RunStore
from mcsweep.train.session import run_session

SHORT = [
    "train.steps=2",
    "train.eval_every=2",
    "train.eval_at_start=false",
    "batch.train_batch=2",
    "batch.mini_batch=2",
    "batch.group_size=2",
    "context.max_completion_length=24",
    "context.eval_lengths=[24]",
    "context.repeat_window=4",
]


class FailAtStep(TrainerCallback):
    """Raises as the second optimizer step begins, after the first one was logged."""

    def on_step_begin(self, args, state, control, **kwargs):
        if state.global_step == 1:
            raise RuntimeError("injected failure at step 2")


def test_a_run_that_raises_mid_training_is_failed_and_its_rerun_finished(tiny_run, monkeypatch):
    cfg, raw = tiny_run(SHORT)
    store = RunStore(run_dir(raw))
    with monkeypatch.context() as patch:
        patch.setattr(tracking, "callbacks", lambda cfg, path: [FailAtStep()])
        with pytest.raises(RuntimeError, match="injected failure"):
            train(cfg, raw)
    card = store.read_json("run_card.json")
    assert card["status"] == CardStatus.FAILED and card["finished"] and "final" not in card
    assert [r["step"] for r in store.rows("metrics")] == [1], "it failed after training a step"

    summary = train(cfg, raw)
    card = store.read_json("run_card.json")
    assert card["status"] == CardStatus.FINISHED and card["final"] == summary
    assert summary["step"] == 2 and 0.0 <= summary["pass@1"] <= 1.0


def test_a_failure_while_opening_the_run_marks_it_failed(tiny_run):
    cfg, raw = tiny_run(SHORT)
    store = RunStore(run_dir(raw)).create()

    def no_evaluator() -> Evaluator:
        raise OSError("no sandbox here")

    with pytest.raises(OSError, match="no sandbox"), run_session(cfg, raw, run_id(raw), store, no_evaluator):
        pytest.fail("the session must not open without its evaluator")
    assert store.read_json("run_card.json")["status"] == CardStatus.FAILED
    assert (store.path / "config.yaml").exists()


BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.8: pass\nprint(1)"


def test_the_session_closes_its_evaluator_and_finishes_the_card(tiny_run):
    cfg, raw = tiny_run(SHORT)
    store = RunStore(run_dir(raw)).create()
    opened: list[Evaluator] = []

    def evaluator() -> Evaluator:
        opened.append(Evaluator(comparator="microcoder", workers=1, timeout_s=2.0))
        return opened[0]

    request = GradeRequest("a", code=BURN, input_output=json.dumps({"inputs": [""], "outputs": ["1\n"]}))
    own = resource.getrusage(resource.RUSAGE_SELF)
    with run_session(cfg, raw, run_id(raw), store, evaluator, world_size=3) as session:
        assert session.evaluator is opened[0]
        assert store.read_json("run_card.json")["status"] == CardStatus.RUNNING
        assert session.evaluator.grade(request).passed
    after = resource.getrusage(resource.RUSAGE_SELF)
    card = store.read_json("run_card.json")
    assert card["status"] == CardStatus.FINISHED and card["final"] == {"run_dir": str(store.path)}
    assert card["judge_sandbox"] == opened[0].isolation.summary()  # what the rewards were graded under
    assert card["judge_sandbox"]["runs_apart_by"] in {"uid", "user_namespace", "rlimits"}
    with pytest.raises(RuntimeError, match="after shutdown"):
        opened[0].grade(request)
    # The solution's 0.8 s of CPU ran in a sandbox worker: counted once the session closed the workers.
    own_s = after.ru_utime + after.ru_stime - own.ru_utime - own.ru_stime
    cost = card["compute"]
    assert cost["cpu_s"] >= own_s + 0.7, (cost, own_s)
    assert cost["world_size"] == 3 and len(cost["segments"]) == 1 and cost["wall_s"] >= 0.8
