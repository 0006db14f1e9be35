"""TrainerCallbacks that connect TRL's loop to mcsweep: schedules, timing, evaluation, run store.

Order matters inside one optimizer step: `on_step_end` callbacks push their numbers into the
trainer's metric buffer, then TRL's `log` averages the buffer, then `on_log` writes the row.
"""

from __future__ import annotations

import logging
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import torch
from accelerate.utils import gather_object
from transformers import TrainerCallback

from mcsweep.algo.temperature import Schedule
from mcsweep.evaluator import Evaluator
from mcsweep.train import tracking
from mcsweep.train.eval_split import evaluate_split
from mcsweep.train.evaluation import EvalSettings, eval_lengths
from mcsweep.train.ranks import gather_rows, weight_checksum
from mcsweep.train.run_store import RunStore

log = logging.getLogger(__name__)


class BoundCallback(TrainerCallback):
    """A callback that needs the trainer itself (HF passes callbacks only the model and tokenizer), so
    it takes it at construction, as TRL's SyncRefModelCallback takes its accelerator."""

    def __init__(self, trainer) -> None:
        self.trainer = trainer

    def push(self, metrics: dict[str, float]) -> None:
        for name, value in metrics.items():
            self.trainer._metrics["train"][name].append(value)


class ScheduleCallback(BoundCallback):
    """Temperature schedule and context extension, applied only where a rollout starts.

    Completions buffered for later optimizer steps were sampled at the old temperature, so a change
    waits for the next generation (TRL's own condition, which also holds right after a resume)."""

    def __init__(
        self,
        trainer,
        schedule: Schedule | None,
        extend_to: int | None,
        extend_at: int | None,
        probe: Callable[[], Schedule] | None = None,
    ) -> None:
        super().__init__(trainer)
        self.schedule, self.extend_to, self.extend_at, self.probe = schedule, extend_to, extend_at, probe

    def on_train_begin(self, args, state, control, **kwargs):
        """A schedule the diversity probe decides is made here, once the model is prepared."""
        if self.schedule is None:
            self.schedule = self.probe()
            self.trainer.set_temperature(self.schedule.at(state.global_step))

    def on_step_begin(self, args, state, control, **kwargs):
        if not self.trainer.at_rollout_boundary():
            return
        new_t = self.schedule.at(state.global_step)
        if new_t != self.trainer.temperature:
            log.info("step %d: temperature %.2f -> %.2f", state.global_step, self.trainer.temperature, new_t)
            self.trainer.set_temperature(new_t)
        due = self.extend_at is not None and state.global_step >= self.extend_at
        if due and self.trainer.max_completion_length != self.extend_to:
            log.info("step %d: max completion length -> %d", state.global_step, self.extend_to)
            self.trainer.set_max_completion_length(self.extend_to)


def updates_per_rollout(args) -> int:
    """Optimizer steps between generations: TRL counts steps_per_generation in micro-steps."""
    return args.steps_per_generation // args.gradient_accumulation_steps


def peak_memory_gb() -> float:
    """Peak GPU memory allocated by torch; on CPU, the process's peak resident set."""
    if torch.cuda.is_available():
        return torch.cuda.max_memory_allocated() / 2**30
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


class PhaseTimer(BoundCallback):
    """Seconds per optimizer step: generation, reward, old/ref log-probs (TRL's scoring) and update."""

    def on_step_begin(self, args, state, control, **kwargs):
        t = self.trainer
        self._start = (
            time.perf_counter(),
            t.phase_seconds["generation"],
            t.phase_seconds["score"],
            t.execution_reward.total_seconds,
        )

    def on_step_end(self, args, state, control, **kwargs):
        t = self.trainer
        wall0, gen0, score0, reward0 = self._start
        step_s = time.perf_counter() - wall0
        score_s = t.phase_seconds["score"] - score0
        gen_s = t.phase_seconds["generation"] - gen0
        reward_s = t.execution_reward.total_seconds - reward0
        self.push(
            {
                "time/step_s": step_s,
                "time/generation_s": gen_s,
                "time/reward_s": reward_s,
                "time/logprob_s": score_s - gen_s - reward_s,
                "time/update_s": step_s - score_s,
                "rollout/updates_per_rollout": updates_per_rollout(args),
                "memory/max_allocated_gb": peak_memory_gb(),
            }
        )
        self.push(t.execution_reward.judge_metrics())


@dataclass(frozen=True)
class HeldOut:
    """What a test evaluation reads and writes: the run store, the test problems, the judge, the
    sampling settings, and where step-0 samples are shared with other runs of the same weights
    (`mcsweep.train.sample_share`; None: not shared)."""

    store: RunStore
    problems: list[dict]
    evaluator: Evaluator
    settings: EvalSettings
    share_root: Path | None = None


class HeldOutEvalCallback(BoundCallback):
    """A callback that evaluates the training model on the test problems, split over the processes."""

    def __init__(self, trainer, held: HeldOut) -> None:
        super().__init__(trainer)
        self.held, self.store, self.settings = held, held.store, held.settings

    def evaluate(self, settings: EvalSettings, step: int) -> tuple[list[dict], list[dict]]:
        t = self.trainer
        return evaluate_split(
            t.model_wrapped,
            t.processing_class,
            t.accelerator,
            self.held.problems,
            self.held.evaluator,
            settings,
            step,
            lockstep=t.is_fsdp_enabled,
            share_root=self.held.share_root if step == 0 else None,
        )


class EvalCallback(HeldOutEvalCallback):
    """Test pass@1 at the start, every `every` steps, and at the last step."""

    def __init__(self, trainer, held: HeldOut, every: int, at_start: bool) -> None:
        super().__init__(trainer, held)
        self.every, self.at_start = every, at_start

    def _done(self, step: int) -> bool:
        return any(r["step"] == step for r in self.store.rows("evals"))

    def run(self, step: int) -> dict[str, float]:
        """Evaluate at the current training length (after any extension), the common length and the
        configured `settings.lengths`, each once, split over the processes."""
        s, t = self.settings, self.trainer
        lengths = eval_lengths(t.max_completion_length, s.common_length, s.lengths)
        settings = replace(s, seed=s.seed + step, lengths=lengths, train_length=t.max_completion_length)
        summaries, rows = self.evaluate(settings, step)
        self.store.append("evals", summaries)
        tracking.log_eval_rows("evals", summaries)
        self.store.append("eval_samples", rows)
        names = ["eval/pass@1", *[f"eval/pass@1_len{s['max_length']}" for s in summaries[1:]]]
        metrics = {name: s["pass@1"] for name, s in zip(names, summaries, strict=True)}
        metrics["eval/pass@1_ext"] = max(summaries, key=lambda s: s["max_length"])["pass@1"]
        for common in (s for s in summaries if s["common_length"]):
            metrics["eval/pass@1_common"] = common["pass@1"]
        metrics["eval/diversity"] = summaries[0]["diversity"]
        log.info("step %d: test pass@1 %s", step, {k: round(v, 3) for k, v in metrics.items()})
        return metrics

    def on_train_begin(self, args, state, control, **kwargs):
        if self.at_start and state.global_step == 0 and not self._done(0):
            row = {"step": state.global_step, **self.run(state.global_step)}
            self.store.append("metrics", [row])
            tracking.log_metrics(row)

    def on_step_end(self, args, state, control, **kwargs):
        step = state.global_step
        if (step % self.every == 0 or step == state.max_steps) and not self._done(step):
            self.push(self.run(step))


class RobustnessEvalCallback(HeldOutEvalCallback):
    """Test pass@1 at several temperatures at step 0 and every `every` steps (the checkpoints), at
    the run's configured length: what `mcsweep.train.temperature_eval` does from saved checkpoints,
    done in the run so that the temperature-robustness panels need no checkpoint kept."""

    def __init__(self, trainer, held: HeldOut, temperatures: list[float], every: int) -> None:
        super().__init__(trainer, held)
        self.temperatures, self.every = temperatures, every

    def run(self, step: int) -> None:
        done = {(r["step"], r["temperature"]) for r in self.store.rows("temperature_evals")}
        for temp in self.temperatures:
            if (step, temp) in done:
                continue
            summaries, rows = self.evaluate(
                replace(self.settings, temperature=temp, seed=self.settings.seed + step), step
            )
            summary = {**summaries[0], "temperature": temp}
            self.store.append("eval_samples", rows)
            self.store.append("temperature_evals", [summary])
            tracking.log_eval_rows("temperature_evals", [summary])
            log.info("step %d: test pass@1 at temperature %.2f: %.3f", step, temp, summary["pass@1"])

    def on_train_begin(self, args, state, control, **kwargs):
        if state.global_step == 0:
            self.run(0)

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step % self.every == 0 or state.global_step == state.max_steps:
            self.run(state.global_step)


class RunStoreCallback(BoundCallback):
    """Metric rows to metrics.jsonl, and training completions to completions.jsonl.

    Completions are written in the step whose rollout made them, for the rollouts that start at a
    multiple of `completions_every` steps, so no row is ever relabelled with a later step."""

    def __init__(self, trainer, store: RunStore, completions_every: int) -> None:
        super().__init__(trainer)
        self.store, self.completions_every = store, completions_every

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not logs or "train_runtime" in logs:
            return
        self.store.append("metrics", [{"step": state.global_step, **logs}])

    def on_step_end(self, args, state, control, **kwargs):
        made_at = self.trainer.rollout_log.step
        if made_at == state.global_step - 1 and made_at % self.completions_every == 0:
            rows = gather_rows(self.trainer.accelerator, self._completion_rows(state.global_step))
            self.store.append("completions", rows)

    def _completion_rows(self, step: int) -> list[dict]:
        t = self.trainer
        record, rollout = t.execution_reward.last, t.rollout_log
        if record is None or rollout.decision is None:
            return []
        d = rollout.decision
        return [
            {
                "step": step,
                "id": record.ids[i],
                "completion": t.processing_class.decode(ids),
                "reward": record.rewards[i],
                "verdict": record.verdicts[i],
                "length": len(ids),
                "truncated": bool(d.truncated[i]),
                "masked": bool(d.masked[i]),
                "advantage": float(rollout.advantages_after[i]),
            }
            for i, ids in enumerate(rollout.completion_ids)
        ]


class ReplicaCheck(BoundCallback):
    """`dist/replica_spread`: max - min over processes of the weight checksum after each update
    (0 when DDP averaged the same gradients into every replica). Only for DDP: DeepSpeed and FSDP
    shard what they sync, so the metric is absent there."""

    def on_step_end(self, args, state, control, **kwargs):
        t = self.trainer
        acc = t.accelerator
        if acc.num_processes == 1 or t.is_fsdp_enabled or getattr(acc.state, "deepspeed_plugin", None):
            return
        sums = gather_object([weight_checksum(acc.unwrap_model(t.model_wrapped))])
        self.push({"dist/replica_spread": max(sums) - min(sums)})
