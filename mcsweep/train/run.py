"""One GRPO run, end to end: model, data, evaluator, TRL trainer, evaluation and the run store."""

from __future__ import annotations

import importlib.util
import logging
from functools import partial
from pathlib import Path

import torch
from omegaconf import DictConfig

from mcsweep.algo.temperature import Schedule, choose, measured_target, probe_table, schedule_from_config
from mcsweep.config.schema import COMPARATORS, RunConfig
from mcsweep.evaluator import Evaluator
from mcsweep.gpu.batching import batch_layout
from mcsweep.gpu.layout import max_model_len
from mcsweep.launch.environment import SINGLE_PROCESS, LaunchEnv
from mcsweep.launch.identity import run_dir as resolve_run_dir
from mcsweep.launch.identity import run_id as resolve_run_id
from mcsweep.launch.processes import setup_processes
from mcsweep.launch.reuse import copy_run, finished_twin
from mcsweep.launch.status import CardStatus
from mcsweep.micro.policy import PolicySpec, policy_path
from mcsweep.micro.problems import WorldSpec
from mcsweep.train import callbacks as cb
from mcsweep.train import tracking
from mcsweep.train.chat_format import ChatFormat
from mcsweep.train.data import DataError, fitting_prompts, prompt_dataset, test_problems, train_problems
from mcsweep.train.evaluation import EvalSettings, sample_completions
from mcsweep.train.reward import ExecutionReward, ScaledOverlongPunishment
from mcsweep.train.run_store import RunStore
from mcsweep.train.session import final_summary, record_copy, run_session
from mcsweep.train.trainer import MaskSettings, MicroCoderGRPOTrainer

log = logging.getLogger(__name__)


def policy_spec(cfg: RunConfig) -> PolicySpec:
    """The micro policy's build settings: `model.micro` overrides, world seed and version under
    `world_seed` and `world_version`."""
    return cfg.model.micro.policy_spec()


def load_policy(cfg: RunConfig):
    """(model, tokenizer) through the Auto classes, whether built locally or from the hub."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = str(policy_path(policy_spec(cfg))) if cfg.model.kind == "micro" else cfg.model.path
    dtype = getattr(torch, cfg.model.dtype)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, attn_implementation=cfg.model.attn_implementation)
    tokenizer = AutoTokenizer.from_pretrained(path, padding_side="left")
    return model, tokenizer


def grpo_args(cfg: RunConfig, store: RunStore, temperature: float, env: LaunchEnv = SINGLE_PROCESS):
    """TRL's GRPOConfig from the axes; the batch axis maps onto generation batch and steps per generation
    over `env.world_size` processes.

    The vLLM server's host is `env.vllm_host` when the launcher placed it (the SLURM layout does), so
    where the server runs never changes the run's identity."""
    from trl import GRPOConfig

    b, k, r = cfg.batch, cfg.kl_clip, cfg.rollout
    layout = batch_layout(b, env.world_size, cfg.train.micro_batch)
    return GRPOConfig(
        output_dir=str(store.path / "checkpoints"),
        max_steps=cfg.train.steps,
        seed=cfg.seed,
        learning_rate=cfg.train.learning_rate,
        lr_scheduler_type="constant",
        warmup_steps=0,
        per_device_train_batch_size=layout.per_device_train_batch_size,
        gradient_accumulation_steps=layout.gradient_accumulation_steps,
        steps_per_generation=layout.steps_per_generation,
        num_generations=b.group_size,
        num_iterations=1,
        max_completion_length=cfg.context.max_completion_length,
        temperature=temperature,
        top_p=1.0,
        top_k=0,
        beta=k.beta,
        epsilon=k.epsilon,
        epsilon_high=k.epsilon_high,
        loss_type=cfg.algo.loss_type,
        scale_rewards=cfg.algo.scale_rewards,
        mask_truncated_completions=False,
        logging_steps=1,
        save_strategy="steps",
        save_steps=cfg.train.save_every,
        save_total_limit=cfg.train.keep_checkpoints,
        report_to=tracking.report_to(cfg),
        bf16=torch.cuda.is_available(),
        use_cpu=not torch.cuda.is_available(),
        gradient_checkpointing=cfg.train.gradient_checkpointing,
        dataloader_num_workers=0,
        log_completions=False,
        disable_tqdm=False,
        chat_template_kwargs=dict(cfg.model.chat_template_kwargs) or None,
        use_vllm=r.backend == "vllm",
        vllm_mode=r.vllm_mode,
        vllm_gpu_memory_utilization=r.gpu_memory_utilization,
        vllm_server_host=env.vllm_host or r.server_host,
        vllm_max_model_length=max_model_len(cfg) if r.backend == "vllm" else None,
        vllm_server_port=r.server_port,
        vllm_tensor_parallel_size=r.tensor_parallel_size,
        vllm_importance_sampling_correction=r.importance_sampling_correction,
        vllm_importance_sampling_mode=r.importance_sampling_mode,
        vllm_importance_sampling_clip_max=r.importance_sampling_clip_max,
        vllm_importance_sampling_clip_min=r.importance_sampling_clip_min,
    )


def reward_funcs(cfg: RunConfig, reward: ExecutionReward) -> list:
    funcs: list = [reward]
    if cfg.algo.overlong_shaping:
        funcs.append(ScaledOverlongPunishment(cfg.context.max_completion_length, cfg.algo.overlong_buffer_frac))
    return funcs


def pick_temperature(
    cfg: RunConfig, model, tokenizer, problems: list[dict], store: RunStore, synced_gpus: bool = False
) -> float | None:
    """Diversity-determined temperature: probe D0(t) on a sample of training prompts before training.

    A resumed run reuses its recorded choice, so the temperature cannot change mid-run."""
    t = cfg.temperature
    if t.kind != "diversity":
        return None
    recorded = store.read_json("temperature_probe.json")
    if recorded:
        return recorded["chosen"]
    probe, chat = problems[: t.probe_prompts], chat_format(cfg, tokenizer)

    def sample(temp: float):
        length, sampled = (cfg.context.max_completion_length,), t.sampling(temp)
        settings = EvalSettings(
            cfg.batch.group_size,
            sampled,
            length,
            seed=cfg.seed,
            sampler=cfg.rollout.sampler,
            chat=chat,
            synced_gpus=synced_gpus,
        )
        return [s.ids for s in sample_completions(model, tokenizer, probe, settings)]

    target, pilots = t.target_diversity, []
    if t.target_from is not None:
        target, pilots = measured_target(t.target_from, cfg.runs_root, t.measure)
    table = probe_table(sample, t.candidates, cfg.batch.group_size, t.measure)
    chosen = choose(table, target)
    store.write_json(
        "temperature_probe.json",
        {
            "table": table,
            "unit": t.unit,
            "measure": t.measure,
            "target": target,
            "target_from": pilots,
            "chosen": chosen,
        },
    )
    log.info("diversity probe %s -> temperature %.2f", table, chosen)
    return chosen


def probe_schedule(cfg: RunConfig, trainer, tokenizer, problems: list[dict], store: RunStore) -> Schedule:
    """The diversity probe's schedule, run once accelerate has prepared the model: before that, ZeRO-3's
    weights are shards (`zero3_init_flag`) and FSDP's are meta tensors above rank 0, and generate
    failed. Every process probes with the whole weights (FSDP in step); rank 0's choice is everyone's."""
    from accelerate.utils import broadcast_object_list
    from trl.models.utils import unwrap_model_for_generation

    acc = trainer.accelerator
    synced = trainer.is_fsdp_enabled and acc.num_processes > 1
    with unwrap_model_for_generation(trainer.model_wrapped, acc) as model:
        chosen = pick_temperature(cfg, model, tokenizer, problems, store, synced_gpus=synced)
    if acc.num_processes > 1:
        chosen = broadcast_object_list([chosen])[0]
    return schedule_from_config(cfg.temperature, chosen)


def fitting_problems(cfg: RunConfig, store: RunStore, tokenizer, world: WorldSpec) -> tuple[list[dict], list[dict]]:
    """Training problems whose prompts fit `context.max_prompt_length` (the dropped ones are logged and
    counted in the run card's `prompt_filter`, never sent to vLLM), and the whole test sample.

    The test set is not filtered: the evaluation samples with HF generate, which has no prompt budget,
    and a filtered one was a subset that depended on the tokenizer and template (Table 1's models were
    scored on different problems). Its prompts over the budget are counted in the card all the same."""
    limit, kwargs = cfg.context.max_prompt_length, dict(cfg.model.chat_template_kwargs)
    train, dropped = fitting_prompts(train_problems(cfg.data, world), tokenizer, limit, kwargs)
    if dropped:
        log.warning(
            "train: dropped %d of %d prompts longer than %d tokens", len(dropped), len(train) + len(dropped), limit
        )
    if not train:
        raise DataError(f"context.max_prompt_length={limit}: no train prompt fits")
    test = test_problems(cfg.data, world)
    over = fitting_prompts(test, tokenizer, limit, kwargs)[1]
    report = {
        "max_prompt_length": limit,
        "train": {"kept": len(train), "dropped": len(dropped), "dropped_ids": dropped},
        "test": {"kept": len(test), "over_budget": len(over), "over_budget_ids": over},
    }
    store.update_card(prompt_filter=report)
    return train, test


def build_trainer(cfg: RunConfig, store: RunStore, model, tokenizer, evaluator: Evaluator, world: WorldSpec, args=None):
    """The trainer with mcsweep's callbacks; `args` is the GRPOConfig that `train` builds before it
    loads the model (see there); without it, `grpo_args` for the environment this process was launched in."""
    train, test = fitting_problems(cfg, store, tokenizer, world)
    chat = chat_format(cfg, tokenizer)
    reward = ExecutionReward(evaluator, chat)
    mask = MaskSettings(
        cfg.masking.mode,
        cfg.masking.rho,
        cfg.masking.non_incorrect,
        cfg.context.repeat_window,
        cfg.seed,
        repeat_detector=cfg.masking.repeat_detector,
        normaliser=cfg.masking.normaliser,
    )
    trainer = MicroCoderGRPOTrainer(
        model=model,
        reward_funcs=reward_funcs(cfg, reward),
        args=args or grpo_args(cfg, store, cfg.temperature.sampled_value, LaunchEnv.from_environ()),
        train_dataset=prompt_dataset(train),
        processing_class=tokenizer,
        reward=reward,
        mask=mask,
        sampler=cfg.rollout.sampler,
        shared_prompt=cfg.train.shared_prompt,
        cpu_bf16_update=cfg.train.cpu_bf16_update,
        overlong_start_check=cfg.algo.overlong_start_check,
    )
    schedule, probe = None, partial(probe_schedule, cfg, trainer, tokenizer, train, store)
    if cfg.temperature.kind != "diversity":
        schedule, probe = schedule_from_config(cfg.temperature), None
        trainer.set_temperature(schedule.at(0))
    settings = EvalSettings(
        cfg.train.eval_samples,
        cfg.train.eval_temperature,
        tuple(cfg.context.eval_lengths),
        prompts_per_batch=cfg.train.eval_prompts_per_batch,
        seed=cfg.seed,
        sampler=cfg.rollout.sampler,
        common_length=cfg.context.common_length,
        chat=chat,
    )
    for callback in (
        cb.ScheduleCallback(trainer, schedule, cfg.context.extend_to, cfg.context.extend_at_step, probe),
        cb.PhaseTimer(trainer),
        cb.EvalCallback(
            trainer,
            cb.HeldOut(store, test, evaluator, settings, share_root(cfg)),
            cfg.train.eval_every,
            cfg.train.eval_at_start,
        ),
        cb.RunStoreCallback(trainer, store, cfg.train.completions_every),
        cb.ReplicaCheck(trainer),
    ):
        trainer.add_callback(callback)
    if cfg.train.robustness_temperatures:
        trainer.add_callback(robustness_callback(cfg, trainer, store, test, evaluator, chat))
    for callback in tracking.callbacks(cfg, store.path):
        trainer.add_callback(callback)
    return trainer


def robustness_callback(
    cfg: RunConfig, trainer, store: RunStore, test: list[dict], evaluator, chat: ChatFormat
) -> cb.RobustnessEvalCallback:
    """The in-run temperature-robustness evaluations, with the settings `temperature_eval` uses: the
    configured training length, no common-length flag."""
    held = cb.HeldOut(store, test, evaluator, robustness_settings(cfg, chat), share_root(cfg))
    return cb.RobustnessEvalCallback(trainer, held, cfg.train.robustness_temperatures, cfg.train.save_every)


def robustness_settings(cfg: RunConfig, chat: ChatFormat) -> EvalSettings:
    """The temperature-robustness evaluations' settings, in the run and from its checkpoints alike (each
    evaluation adds its step to the seed and sets its temperature)."""
    t = cfg.train
    return EvalSettings(
        t.robustness_samples or t.eval_samples,
        t.eval_temperature,
        (cfg.context.max_completion_length,),
        prompts_per_batch=t.eval_prompts_per_batch,
        seed=cfg.seed,
        sampler=cfg.rollout.sampler,
        chat=chat,
    )


def chat_format(cfg: RunConfig, tokenizer) -> ChatFormat:
    """The run's prompts as TRL renders them (the model's chat_template_kwargs), for every sampler
    outside the trainer and for the reward."""
    return ChatFormat.of(tokenizer, dict(cfg.model.chat_template_kwargs))


def share_root(cfg: RunConfig) -> Path | None:
    """Where runs of this runs root share their step-0 test samples, if `launcher.share_eval_samples`."""
    return Path(cfg.runs_root) / ".eval_samples" if cfg.launcher.share_eval_samples else None


def make_evaluator(cfg: RunConfig, shadow: bool) -> Evaluator:
    """The sandboxed judge as the `evaluator` group sets it. With `shadow`, every other comparator
    judges too (the configured shadows first): test samples are graded by both in every arm."""
    e = cfg.evaluator
    others = [c for c in COMPARATORS if c != e.comparator]
    return Evaluator(
        comparator=e.comparator,
        workers=e.workers,
        timeout_s=e.timeout_s,
        memory_mb=e.memory_mb,
        shadow_comparators=tuple(dict.fromkeys([*e.shadow, *others])) if shadow else (),
        dedupe=e.dedupe,
    )


def require_rollout_backend(cfg: RunConfig) -> None:
    """Fail before anything is built when the vLLM paths are chosen without vLLM or a GPU."""
    if cfg.rollout.backend != "vllm":
        return
    if importlib.util.find_spec("vllm") is None:
        raise RuntimeError(
            f"rollout={cfg.rollout.name} needs vLLM, which is not installed; install the GPU "
            "extra (pip install -e '.[gpu]') or use rollout=hf"
        )
    if not torch.cuda.is_available():
        raise RuntimeError(f"rollout={cfg.rollout.name} needs a CUDA GPU; none is visible (use rollout=hf on CPU)")


def warn_if_too_big(cfg: RunConfig, env: LaunchEnv) -> None:
    """On GPU, estimate memory per device before building anything, and warn when it cannot fit."""
    if not torch.cuda.is_available():
        return
    from mcsweep.gpu import check_fits, launch_strategy

    est = check_fits(
        cfg,
        env.world_size,
        torch.cuda.get_device_properties(0).total_memory / 2**30,
        strategy=launch_strategy(),
    )
    log.info("memory estimate: %s", est.summary())
    if est.warning:
        log.warning("memory estimate: %s", est.warning)


def build_policy_alone(cfg: RunConfig) -> None:
    """Build a missing micro policy before the training processes meet. The build trains with its own
    (single-process) Trainer: under the rank variables it would wait for the other ranks, which wait
    on its lock. The accelerate state it leaves is reset so the training processes set up theirs."""
    if cfg.model.kind != "micro" or cfg.launcher.processes == 1:
        return
    from accelerate.state import AcceleratorState

    policy_path(policy_spec(cfg))
    AcceleratorState._reset_state(reset_partial_state=True)


def _copy_of(twin: Path, cfg: RunConfig, raw: DictConfig, run_id: str, store: RunStore, main_process: bool) -> dict:
    """The point as a copy of its finished twin from another sweep; only the main process copies,
    the others report the twin's summary (the same numbers)."""
    if not main_process:
        return final_summary(RunStore(twin, writer=False))
    record_copy(cfg, run_id, store, copy_run(twin, store.path, raw, run_id))
    return final_summary(store)


def train(cfg: RunConfig, raw: DictConfig) -> dict:
    """Run (or resume, or skip when finished, or copy from a finished twin in another sweep) the GRPO
    run that `raw` describes; returns its last metrics."""
    build_policy_alone(cfg)
    setup_processes(cfg.launcher.processes, cfg.launcher.accelerate)
    env = LaunchEnv.from_environ()  # after setup_processes, which may set the rank variables
    require_rollout_backend(cfg)
    warn_if_too_big(cfg, env)
    if cfg.launcher.torch_threads:
        torch.set_num_threads(cfg.launcher.torch_threads)
    from accelerate import PartialState

    # cpu= as the Trainer will ask, or the first (shared) state would be non-distributed on a CPU.
    main_process = PartialState(cpu=not torch.cuda.is_available()).is_main_process
    run_id, store = resolve_run_id(raw), RunStore(resolve_run_dir(raw), writer=main_process).create()
    if store.read_json("run_card.json").get("status") == CardStatus.FINISHED:
        log.info("run %s is already finished in %s; nothing to do", run_id, store.path)
        return final_summary(store)
    ckpt = store.latest_checkpoint()
    twin = finished_twin(Path(str(raw.runs_root)), raw, store.path) if cfg.launcher.reuse and not ckpt else None
    if twin is not None:
        return _copy_of(twin, cfg, raw, run_id, store, main_process)
    store.truncate_after(int(ckpt.name.split("-")[-1]) if ckpt else -1)
    evaluator = partial(make_evaluator, cfg, shadow=True)
    with run_session(cfg, raw, run_id, store, evaluator, main_process, env.world_size) as session:
        # The trainer config before the model: under `accelerate launch` with ZeRO-3 it registers the
        # DeepSpeed config that from_pretrained reads to build the model sharded (zero3_init_flag).
        args = grpo_args(cfg, store, cfg.temperature.sampled_value, env)
        model, tokenizer = load_policy(cfg)
        trainer = build_trainer(cfg, store, model, tokenizer, session.evaluator, policy_spec(cfg).world, args)
        trainer.train(resume_from_checkpoint=str(ckpt) if ckpt else None)
    return final_summary(store)
