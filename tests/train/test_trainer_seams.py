"""The seams into TRL, checked on the trainer's own tensors (tiny micro policy, real TRL).

The reward here is scripted so that each case (all-equal rewards, truncated and correct,
truncated with no answer, truncated and looping) is known; everything else is the real trainer.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from trainer_build import direct_trainer
from transformers import AutoTokenizer

from mcsweep.algo import truncation_mask as tm
from mcsweep.evaluator import Evaluator
from mcsweep.train.data import train_problems
from mcsweep.train.reward import ExecutionReward, RewardRecord
from mcsweep.train.run import build_trainer, load_policy, pick_temperature, policy_spec
from mcsweep.train.run_store import RunStore
from mcsweep.train.trainer import MaskSettings

G = 4
# Group 1 mixes verdicts; group 2 is all wrong (all-equal rewards, so zero advantages).
SCRIPT = ["accepted", "no_code", "wrong_answer", "no_code"] + ["wrong_answer"] * G


class ScriptedReward(ExecutionReward):
    """Verdicts from SCRIPT instead of execution, so the expected mask is known."""

    def __call__(self, prompts, completions, problem_id, **_):
        rewards = [1.0 if v == "accepted" else 0.0 for v in SCRIPT]
        self.last = RewardRecord([str(i) for i in range(len(SCRIPT))], list(SCRIPT), rewards)
        return rewards


def built(cfg, tmp_path):
    """(trainer, run store) for `cfg` on the tiny policy, with a one-worker judge."""
    model, tokenizer = load_policy(cfg)
    evaluator = Evaluator(comparator="microcoder", workers=1, timeout_s=2.0)
    store = RunStore(tmp_path / "run").create()
    return build_trainer(cfg, store, model, tokenizer, evaluator, policy_spec(cfg).world), store


def train_closing(trainer) -> None:
    try:
        trainer.train()
    finally:
        trainer.execution_reward.evaluator.close()


def _trainer(tiny_run, tmp_path, mode: str, rho: float, generation_kwargs=None, normaliser="exclude_masked"):
    cfg, _ = tiny_run(
        [
            "batch.train_batch=2",
            "batch.mini_batch=2",
            f"batch.group_size={G}",
            "context.max_completion_length=24",
            "context.eval_lengths=[24]",
            "context.repeat_window=4",
        ]
    )
    reward = ScriptedReward(evaluator=None)
    mask = MaskSettings(mode, rho, "no_answer", 4, seed=7, normaliser=normaliser)
    trainer = direct_trainer(cfg, tmp_path / f"run-{normaliser}", reward, mask, generation_kwargs)
    return trainer, trainer.processing_class


def _hand_advantages(rewards: list[float]) -> torch.Tensor:
    r = torch.tensor(rewards).view(-1, G)
    return ((r - r.mean(1, keepdim=True)) / (r.std(1, keepdim=True) + 1e-4)).view(-1)


def _rollout(trainer):
    rows = [trainer.train_dataset[i] for i in range(2) for _ in range(G)]
    trainer.model.train()
    return trainer._generate_and_score_completions(rows)


@pytest.mark.parametrize(
    ("mode", "rho"), [("none", 0.3), ("all", 0.3), ("all_failed", 0.3), ("conditional", 1.0), ("conditional", 0.0)]
)
def test_masked_advantages_equal_the_hand_computation(tiny_run, tmp_path, mode, rho):
    trainer, tokenizer = _trainer(tiny_run, tmp_path, mode, rho)
    out = _rollout(trainer)
    ids = trainer.rollout_log.completion_ids
    stop = [tokenizer.eos_token_id, tokenizer.pad_token_id]
    truncated = np.array([ids_[-1] not in stop for ids_ in ids])
    repeat = np.array([tm.is_repeat(x, 4) for x in ids])
    rewards = [1.0 if v == "accepted" else 0.0 for v in SCRIPT]
    expected_mask = {
        "none": np.zeros(len(ids), bool),
        "all": truncated,
        "all_failed": truncated & (np.array(rewards) == 0),
        "conditional": truncated & np.array([v == "no_code" for v in SCRIPT]) & ~repeat & (rho == 1.0),
    }[mode]
    expected = _hand_advantages(rewards) * torch.tensor(~expected_mask, dtype=torch.float32)
    assert torch.allclose(out["advantages"], expected, atol=1e-5)
    assert torch.all(out["advantages"][G:] == 0)  # all-equal rewards give zero advantages
    assert truncated[:G].any(), "the case needs truncated responses (max length 24)"


def _gradient(trainer, output) -> torch.Tensor:
    """The loss's gradient for one update on `output`, as TRL's training step computes it."""
    trainer.current_gradient_accumulation_steps = trainer.args.gradient_accumulation_steps
    trainer.model.zero_grad()
    trainer.compute_loss(trainer.model, output).backward()
    return torch.cat([p.grad.flatten() for p in trainer.model.parameters() if p.grad is not None])


def test_masked_tokens_leave_the_loss_normaliser(tiny_run, tmp_path):
    """Same rollout, both conventions: keeping masked tokens scales the step by the unmasked share."""
    outputs, grads = {}, {}
    for normaliser in ("keep_masked", "exclude_masked"):
        trainer, _ = _trainer(tiny_run, tmp_path, "all_failed", 1.0, normaliser=normaliser)
        torch.manual_seed(0)
        outputs[normaliser] = out = _rollout(trainer)
        grads[normaliser] = _gradient(trainer, out)
        decision, ids = trainer.rollout_log.decision, trainer.rollout_log.completion_ids
        (frac,) = trainer._metrics["train"]["mask/masked_token_frac"]
        outputs[normaliser]["ids"] = ids
    assert outputs["keep_masked"]["ids"] == outputs["exclude_masked"]["ids"]  # one rollout, seeded
    lengths = torch.tensor([len(x) for x in ids], dtype=torch.float32)
    kept = lengths[torch.as_tensor(~decision.masked)].sum()
    assert decision.masked.any() and kept > 0, "the case needs masked and unmasked responses"
    assert frac == pytest.approx(float(1 - kept / lengths.sum()))
    assert outputs["keep_masked"]["num_items_in_batch"] == lengths.sum()
    assert outputs["exclude_masked"]["num_items_in_batch"] == kept
    assert not outputs["exclude_masked"]["completion_mask"][torch.as_tensor(decision.masked)].any()
    assert grads["keep_masked"].abs().sum() > 0
    torch.testing.assert_close(
        grads["exclude_masked"], grads["keep_masked"] * lengths.sum() / kept, rtol=1e-4, atol=1e-7
    )


def test_truncated_loops_escape_the_conditional_mask(tiny_run, tmp_path):
    """A dominant token makes every response loop; looping truncations are never masked."""
    probe = AutoTokenizer.from_pretrained(
        str(__import__("mcsweep.micro.policy", fromlist=["x"]).policy_path(policy_spec(tiny_run()[0])))
    )
    token = probe.convert_tokens_to_ids("a")
    trainer, _ = _trainer(tiny_run, tmp_path, "conditional", 1.0, {"sequence_bias": {(token,): 50.0}})
    out = _rollout(trainer)
    assert all(tm.is_repeat(x, 4) for x in trainer.rollout_log.completion_ids)
    assert trainer.rollout_log.decision.masked.sum() == 0
    rewards = [1.0 if v == "accepted" else 0.0 for v in SCRIPT]
    assert torch.allclose(out["advantages"], _hand_advantages(rewards), atol=1e-5)


def test_staged_switch_changes_generation_and_loss_temperature_together(tiny_run, tmp_path):
    cfg, _ = tiny_run(
        [
            "temperature=staged_0.6_1.8",
            "temperature.value=0.7",
            "temperature.stages=[[1,2.0]]",
            "temperature.unit=1.0",  # sampled as configured (the smoke run checks the unit's scaling)
            "train.steps=2",
            "train.eval_at_start=false",
            "train.eval_every=100",
            "batch.train_batch=2",
            "batch.mini_batch=2",
            f"batch.group_size={G}",
            "context.max_completion_length=24",
            "context.eval_lengths=[24]",
            "context.repeat_window=4",
        ]
    )
    trainer, store = built(cfg, tmp_path)
    train_closing(trainer)
    temps = [r.get("temperature") for r in store.rows("metrics") if "temperature" in r]
    assert temps == [0.7, 2.0]
    assert trainer.temperature == trainer.generation_config.temperature == 2.0

    text = "Given a list of integers, sort the list ascending."
    ids = trainer.processing_class(text, return_tensors="pt")["input_ids"]
    mask = torch.ones_like(ids)
    logps, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, mask, ids.shape[1] - 1)
    with torch.no_grad():
        logits = trainer.model(input_ids=ids, attention_mask=mask).logits[:, :-1] / 2.0
    manual = torch.log_softmax(logits, -1).gather(-1, ids[:, 1:, None]).squeeze(-1)
    assert torch.allclose(logps, manual[:, -logps.shape[1] :], atol=1e-4)


def test_context_extension_takes_effect_at_its_step(tiny_run, tmp_path):
    """Training and evaluation follow the extension; every evaluation also grades the common length."""
    cfg, _ = tiny_run(
        [
            "context.max_completion_length=16",
            "context.eval_lengths=[16]",
            "context.extend_to=32",
            "context.extend_at_step=2",
            "context.common_eval_length=40",
            "context.repeat_window=4",
            "train.steps=3",
            "train.eval_at_start=true",
            "train.eval_every=100",
            "batch.train_batch=2",
            "batch.mini_batch=2",
            f"batch.group_size={G}",
        ]
    )
    trainer, store = built(cfg, tmp_path)
    train_closing(trainer)
    lengths = {r["step"]: r["completions/max_length"] for r in store.rows("metrics") if "completions/max_length" in r}
    assert lengths[1] <= 16 and lengths[2] <= 16 and 16 < lengths[3] <= 32
    assert trainer.max_completion_length == trainer.generation_config.max_new_tokens == 32
    evals = {(r["step"], r["max_length"]): (r["train_length"], r["common_length"]) for r in store.rows("evals")}
    assert evals == {
        (0, 16): (True, False),
        (0, 40): (False, True),
        (3, 16): (False, False),
        (3, 32): (True, False),
        (3, 40): (False, True),
    }


def test_the_diversity_probe_samples_each_candidate_times_the_unit(tiny_run, tmp_path):
    """Candidate 2.0 at unit 0.025 is sampled at 0.05 (near greedy: low D0), so with the same seed it
    gives candidate 0.05's D0 at unit 1, not candidate 2.0's (the tiny policy's D0 is 1 there)."""
    base = ["temperature=diversity", "temperature.probe_prompts=2", "context.max_completion_length=24"]
    d0 = {}
    for candidate, unit in ((0.05, 1.0), (2.0, 0.025), (2.0, 1.0)):
        cfg, _ = tiny_run([*base, f"temperature.candidates=[{candidate}]", f"temperature.unit={unit}"])
        model, tokenizer = load_policy(cfg)
        store = RunStore(tmp_path / f"probe-{candidate}-{unit}").create()
        problems = train_problems(cfg.data, policy_spec(cfg).world)
        assert pick_temperature(cfg, model, tokenizer, problems, store) == candidate
        probe = store.read_json("temperature_probe.json")
        assert probe["unit"] == unit and [r["temperature"] for r in probe["table"]] == [candidate]
        d0[candidate, unit] = probe["table"][0]["diversity"]
    assert d0[2.0, 0.025] == d0[0.05, 1.0] < d0[2.0, 1.0]


def test_the_diversity_probe_runs_once_training_is_set_up(tiny_run, tmp_path):
    """Probed while the trainer was built, generate met ZeRO-3's shards (`zero3_init_flag`) and FSDP's meta
    tensors: the probe runs at train begin, on the prepared model, and its pick is the first rollout's."""
    cfg, _ = tiny_run(
        [
            "temperature=diversity",
            "temperature.probe_prompts=2",
            "temperature.candidates=[0.05]",
            "temperature.unit=1.0",
            "context.max_completion_length=16",
            "context.eval_lengths=[16]",
            "context.repeat_window=4",
            "train.steps=1",
            "train.eval_at_start=false",
            "train.eval_every=100",
            "batch.train_batch=2",
            "batch.mini_batch=2",
            f"batch.group_size={G}",
        ]
    )
    trainer, store = built(cfg, tmp_path)
    assert not store.read_json("temperature_probe.json"), "probed before the model was prepared"
    train_closing(trainer)
    assert store.read_json("temperature_probe.json")["chosen"] == 0.05
    assert [r["temperature"] for r in store.rows("metrics") if "temperature" in r] == [0.05]


def test_many_temperature_changes_keep_one_fused_head(tiny_run, tmp_path):
    """A ramp changes the temperature at every rollout: each change replaces the fused LM head rather than
    wrapping the previous one (2,000 changes nested 2,000 forwards: a RecursionError in generation)."""
    trainer, tokenizer = _trainer(tiny_run, tmp_path, "none", 0.0)
    for step in range(2000):
        trainer.set_temperature(0.5 + step / 1000)
    ids = tokenizer("Given a list of integers, sort it.", return_tensors="pt")["input_ids"]
    mask = torch.ones_like(ids)
    logps, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, mask, ids.shape[1] - 1)
    with torch.no_grad():
        logits = trainer.model(input_ids=ids, attention_mask=mask).logits[:, :-1] / trainer.temperature
    manual = torch.log_softmax(logits, -1).gather(-1, ids[:, 1:, None]).squeeze(-1)
    assert torch.allclose(logps, manual[:, -logps.shape[1] :], atol=1e-4)
