"""Dataclass schemas for every config group (verl-style config tree).

Each group's YAML file in `conf/<group>/` is merged onto its dataclass, so an unknown key fails at
once; `__post_init__` checks ranges and names the offending key. Cross-group checks live in
`RunConfig.__post_init__`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from mcsweep.micro.policy import PolicySpec

COMPARATORS = ("livecodebench", "microcoder")
TEMPERATURE_KINDS = ("fixed", "staged", "ramp", "diversity")
MASKING_MODES = ("none", "all", "all_failed", "conditional")
NON_INCORRECT = ("no_answer", "unparsable", "not_wrong_answer")
LOSS_TYPES = ("grpo", "dapo", "bnpo", "dr_grpo")
IS_MODES = ("sequence_mask", "sequence_truncate", "token_mask", "token_truncate")  # TRL 1.16's


class ConfigError(ValueError):
    """A config value is invalid; the message starts with the dotted key."""


def check(ok: bool, key: str, message: str) -> None:
    if not ok:
        raise ConfigError(f"{key}: {message}")


@dataclass
class EvaluatorConfig:
    name: str = "microcoder"
    comparator: str = "microcoder"
    shadow: list[str] = field(default_factory=list)
    timeout_s: float = 2.0
    memory_mb: int = 1024
    workers: int = 2

    def __post_init__(self) -> None:
        for key, value in [("comparator", self.comparator), *[("shadow", s) for s in self.shadow]]:
            check(value in COMPARATORS, f"evaluator.{key}", f"unknown comparator {value!r}; one of {COMPARATORS}")
        check(self.timeout_s > 0, "evaluator.timeout_s", f"must be > 0 (got {self.timeout_s})")
        check(self.memory_mb >= 64, "evaluator.memory_mb", f"must be >= 64 (got {self.memory_mb})")
        check(self.workers >= 1, "evaluator.workers", f"must be >= 1 (got {self.workers})")


@dataclass
class TemperatureConfig:
    """`stages` is a list of [step, temperature]: discrete switches (staged) or ramp knots (ramp)."""

    name: str = "fixed_1.2"
    kind: str = "fixed"
    value: float = 1.2
    stages: list[Any] = field(default_factory=list)
    candidates: list[float] = field(default_factory=list)
    target_diversity: float = 0.5
    target_from: str | None = None  # a pilot run folder, sweep folder or run id: its final diversity
    measure: str = "pooled"  # the diversity measure of probe and target: pooled or per_sample
    probe_prompts: int = 16

    def __post_init__(self) -> None:
        check(
            self.kind in TEMPERATURE_KINDS,
            "temperature.kind",
            f"unknown kind {self.kind!r}; one of {TEMPERATURE_KINDS}",
        )
        check(self.value > 0, "temperature.value", f"must be > 0 (got {self.value})")
        for i, stage in enumerate(self.stages):
            ok = len(stage) == 2 and all(isinstance(x, int | float) for x in stage)
            check(
                ok and stage[0] >= 0 and stage[1] > 0,
                f"temperature.stages[{i}]",
                f"must be [step >= 0, temperature > 0] (got {stage})",
            )
        steps = [s[0] for s in self.stages]
        check(steps == sorted(steps), "temperature.stages", f"steps must increase (got {steps})")
        if self.kind in ("staged", "ramp"):
            check(len(self.stages) >= 1, "temperature.stages", f"{self.kind} needs at least one stage")
        else:
            check(not self.stages, "temperature.stages", f"only staged and ramp read stages, not {self.kind}")
        check(
            self.kind == "diversity" or not self.candidates,
            "temperature.candidates",
            f"only diversity reads candidates, not {self.kind}",
        )
        check(
            self.measure in ("pooled", "per_sample"),
            "temperature.measure",
            f"unknown {self.measure!r}; one of pooled, per_sample",
        )
        check(
            self.kind == "diversity" or self.target_from is None,
            "temperature.target_from",
            f"only diversity reads target_from, not {self.kind}",
        )
        if self.kind == "diversity":
            check(
                len(self.candidates) >= 1 and all(c > 0 for c in self.candidates),
                "temperature.candidates",
                f"needs positive candidates (got {self.candidates})",
            )
            check(
                0 < self.target_diversity <= 1,
                "temperature.target_diversity",
                f"must be in (0, 1] (got {self.target_diversity})",
            )


DATA_SOURCES = ("micro", "jsonl", "hf")


@dataclass
class DataConfig:
    """`source`: micro (embedded sets), jsonl (a problem-record file) or hf (a hub dataset).

    The test split comes from `test_source` (default: `source`) and `test_path` (default: `path`), so
    that a pipeline-built training file can be tested on the micro world's test split. `n_test`
    problems are a random sample of it drawn with `test_seed`, fixed per sweep (not the run seed).
    """

    name: str = "hard"
    source: str = "micro"
    train_set: str = "hard"
    path: str | None = None
    n_train: int | None = None
    test_set: str = "test"
    test_source: str | None = None
    test_path: str | None = None
    n_test: int = 60
    test_seed: int = 0

    def __post_init__(self) -> None:
        for key, value in (("source", self.source), ("test_source", self.test_source or self.source)):
            check(value in DATA_SOURCES, f"data.{key}", f"unknown source {value!r}; one of {', '.join(DATA_SOURCES)}")
        check(self.source == "micro" or self.path is not None, "data.path", f"required for source {self.source}")
        check(self.n_test >= 1, "data.n_test", f"must be >= 1 (got {self.n_test})")
        check(self.n_train is None or self.n_train >= 1, "data.n_train", f"must be >= 1 (got {self.n_train})")


@dataclass
class ContextConfig:
    """Training max response length, the extended lengths for evaluation, and an extension schedule.

    `common_eval_length` is one length shared by every arm of a sweep (the sweep's longest training
    or extension length), so arms trained at different lengths are also tested on equal terms;
    null means the run's own longest training length."""

    name: str = "mid"
    max_completion_length: int = 160
    eval_lengths: list[int] = field(default_factory=lambda: [160, 256])
    extend_to: int | None = None
    extend_at_step: int | None = None
    repeat_window: int = 8
    # Longest prompt (chat-formatted, in tokens) a run sends; longer ones are dropped from the data.
    # vLLM's context is this plus the longest completion, and the memory estimate counts it.
    max_prompt_length: int = 2048
    common_eval_length: int | None = None

    @property
    def longest_training_length(self) -> int:
        return max(self.max_completion_length, self.extend_to or 0)

    @property
    def common_length(self) -> int:
        return self.common_eval_length or self.longest_training_length

    def __post_init__(self) -> None:
        check(
            self.max_completion_length >= 8,
            "context.max_completion_length",
            f"must be >= 8 (got {self.max_completion_length})",
        )
        check(
            len(self.eval_lengths) >= 1 and all(x >= 8 for x in self.eval_lengths),
            "context.eval_lengths",
            f"needs lengths >= 8 (got {self.eval_lengths})",
        )
        check(
            (self.extend_to is None) == (self.extend_at_step is None),
            "context.extend_to",
            "extend_to and extend_at_step go together",
        )
        if self.extend_to is not None:
            check(
                self.extend_to > self.max_completion_length,
                "context.extend_to",
                f"must exceed max_completion_length ({self.max_completion_length})",
            )
        check(
            self.max_prompt_length >= 8,
            "context.max_prompt_length",
            f"must be >= 8 (got {self.max_prompt_length})",
        )
        check(
            self.common_eval_length is None or self.common_eval_length >= self.longest_training_length,
            "context.common_eval_length",
            f"must be >= every training/extension length of the run ({self.longest_training_length}); "
            f"got {self.common_eval_length}",
        )
        check(
            0 < self.repeat_window < self.max_completion_length,
            "context.repeat_window",
            f"must be in (0, max_completion_length) (got {self.repeat_window})",
        )


@dataclass
class MaskingConfig:
    """Truncation masking of advantages; see mcsweep/algo/truncation_mask.py for the definitions."""

    name: str = "conditional"
    mode: str = "conditional"
    rho: float = 0.3
    non_incorrect: str = "no_answer"
    repeat_detector: str = "any_period"  # or "literal": the paper's repeat(o, m)
    normaliser: str = "exclude_masked"  # or "keep_masked": masked tokens stay in the loss normaliser

    def __post_init__(self) -> None:
        check(self.mode in MASKING_MODES, "masking.mode", f"unknown mode {self.mode!r}; one of {MASKING_MODES}")
        check(
            self.repeat_detector in ("literal", "any_period"),
            "masking.repeat_detector",
            f"unknown detector {self.repeat_detector!r}; one of literal, any_period",
        )
        check(
            self.normaliser in ("exclude_masked", "keep_masked"),
            "masking.normaliser",
            f"unknown {self.normaliser!r}; one of exclude_masked, keep_masked",
        )
        check(0.0 <= self.rho <= 1.0, "masking.rho", f"must be in [0, 1] (got {self.rho})")
        check(
            self.non_incorrect in NON_INCORRECT,
            "masking.non_incorrect",
            f"unknown definition {self.non_incorrect!r}; one of {NON_INCORRECT}",
        )


@dataclass
class BatchConfig:
    """train_batch = prompts per rollout, mini_batch = prompts per update, group_size = G."""

    name: str = "default"
    train_batch: int = 8
    mini_batch: int = 8
    group_size: int = 8

    def __post_init__(self) -> None:
        check(self.train_batch >= 1, "batch.train_batch", f"must be >= 1 (got {self.train_batch})")
        check(
            1 <= self.mini_batch <= self.train_batch,
            "batch.mini_batch",
            f"must be in [1, train_batch={self.train_batch}] (got {self.mini_batch})",
        )
        check(
            self.train_batch % self.mini_batch == 0,
            "batch.mini_batch",
            f"must divide train_batch={self.train_batch} (got {self.mini_batch})",
        )
        check(self.group_size >= 2, "batch.group_size", f"must be >= 2 (got {self.group_size})")


@dataclass
class KLClipConfig:
    name: str = "no_kl_clip_high"
    beta: float = 0.0
    epsilon: float = 0.2
    epsilon_high: float = 0.28

    def __post_init__(self) -> None:
        check(self.beta >= 0, "kl_clip.beta", f"must be >= 0 (got {self.beta})")
        check(0 < self.epsilon < 1, "kl_clip.epsilon", f"must be in (0, 1) (got {self.epsilon})")
        check(
            self.epsilon_high >= self.epsilon,
            "kl_clip.epsilon_high",
            f"must be >= epsilon={self.epsilon} (got {self.epsilon_high})",
        )


@dataclass
class AlgoConfig:
    """The preset's name and the knobs that are not an axis of their own."""

    name: str = "microcoder_grpo"
    loss_type: str = "dapo"
    scale_rewards: str = "group"
    overlong_shaping: bool = False
    overlong_buffer_frac: float = 0.2  # DAPO: 4096 of 20480 tokens
    overlong_start_check: str = "warn"  # first rollout mostly in the penalty zone: warn, fail or off

    def __post_init__(self) -> None:
        check(self.loss_type in LOSS_TYPES, "algo.loss_type", f"unknown {self.loss_type!r}; one of {LOSS_TYPES}")
        check(
            0 < self.overlong_buffer_frac < 1,
            "algo.overlong_buffer_frac",
            f"must be in (0, 1) (got {self.overlong_buffer_frac})",
        )
        check(
            self.overlong_start_check in ("fail", "warn", "off"),
            "algo.overlong_start_check",
            f"unknown {self.overlong_start_check!r}; one of fail, warn, off",
        )
        check(
            self.scale_rewards in ("group", "batch", "none"),
            "algo.scale_rewards",
            f"unknown {self.scale_rewards!r}; one of group, batch, none",
        )


@dataclass
class ModelConfig:
    """`kind`: micro (built and cached locally) or hf (a hub id or local folder in `path`)."""

    name: str = "micro"
    kind: str = "micro"
    path: str | None = None
    dtype: str = "float32"
    attn_implementation: str = "sdpa"
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    micro: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check(self.kind in ("micro", "hf"), "model.kind", f"unknown {self.kind!r}; one of micro, hf")
        check(self.kind == "micro" or bool(self.path), "model.path", "required for kind hf")
        check(self.dtype in ("float32", "bfloat16", "float16"), "model.dtype", f"unknown dtype {self.dtype!r}")
        known = {f.name for f in fields(PolicySpec)} | {"world_seed", "world_version"}
        for key in self.micro:
            check(key in known, f"model.micro.{key}", f"unknown micro policy setting; one of {sorted(known)}")
        batch = self.micro.get("sft_batch", PolicySpec.sft_batch)
        micro = self.micro.get("sft_micro_batch", PolicySpec.sft_micro_batch)
        check(
            micro >= 1 and batch % micro == 0,
            "model.micro.sft_micro_batch",
            f"must divide sft_batch ({batch}); got {micro}",
        )


@dataclass
class RolloutConfig:
    name: str = "hf"
    backend: str = "hf"
    vllm_mode: str = "colocate"
    gpu_memory_utilization: float = 0.3
    server_host: str = "127.0.0.1"
    server_port: int = 8000
    tensor_parallel_size: int = 1
    # TRL's correction for vLLM's sampling log-probs differing from the trainer's (TRL's default is on,
    # and it reweights the loss); off by default so the vLLM and HF paths run the same algorithm.
    importance_sampling_correction: bool = False
    importance_sampling_mode: str = "sequence_mask"
    importance_sampling_clip_max: float | None = 3.0
    importance_sampling_clip_min: float | None = None
    sampler: str = "fast"  # HF backend: fast (mcsweep.train.sampler) or hf_generate

    def __post_init__(self) -> None:
        check(self.backend in ("hf", "vllm"), "rollout.backend", f"unknown {self.backend!r}; one of hf, vllm")
        check(
            self.importance_sampling_mode in IS_MODES,
            "rollout.importance_sampling_mode",
            f"unknown {self.importance_sampling_mode!r}; one of {', '.join(IS_MODES)}",
        )
        check(
            self.sampler in ("fast", "hf_generate"),
            "rollout.sampler",
            f"unknown {self.sampler!r}; one of fast, hf_generate",
        )
        check(self.vllm_mode in ("colocate", "server"), "rollout.vllm_mode", f"unknown {self.vllm_mode!r}")
        check(
            0 < self.gpu_memory_utilization <= 1,
            "rollout.gpu_memory_utilization",
            f"must be in (0, 1] (got {self.gpu_memory_utilization})",
        )


@dataclass
class TrackerConfig:
    """`auto`: WANDB_MODE if set, else online when logged in, else offline."""

    name: str = "wandb"
    wandb: bool = True
    project: str = "mcsweep"
    entity: str | None = None
    mode: str = "auto"
    job_type: str = "train"
    profiling: bool = False  # TRL's per-call `profiling/...` timers in W&B (six keys per step)

    def __post_init__(self) -> None:
        check(
            self.mode in ("offline", "online", "auto", "disabled"),
            "tracker.mode",
            f"unknown {self.mode!r}; one of offline, online, auto, disabled",
        )


@dataclass
class LauncherConfig:
    """`processes`: training processes per point (one task each, one per GPU); `accelerate`: the
    `accelerate` group's settings (DDP, DeepSpeed or FSDP) for them (mcsweep/launch/processes.py)."""

    name: str = "local"
    torch_threads: int = 0
    processes: int = 1
    accelerate: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check(self.torch_threads >= 0, "launcher.torch_threads", f"must be >= 0 (got {self.torch_threads})")
        check(self.processes >= 1, "launcher.processes", f"must be >= 1 (got {self.processes})")


@dataclass
class TrainConfig:
    steps: int = 140
    learning_rate: float = 1e-4
    eval_every: int = 70
    eval_samples: int = 4
    eval_temperature: float = 1.0
    eval_at_start: bool = True
    save_every: int = 35
    keep_checkpoints: int | None = None
    completions_every: int = 5
    micro_batch: int | None = None
    gradient_checkpointing: bool = False
    eval_prompts_per_batch: int = 16
    shared_prompt: bool = True  # each distinct prompt once in the update's forward (mcsweep.train.shared_prompt)
    cpu_bf16_update: bool = False  # the CPU update's matrix products in bf16 (AMX), attention fp32 (train.precision)

    def __post_init__(self) -> None:
        check(self.steps >= 1, "train.steps", f"must be >= 1 (got {self.steps})")
        check(self.learning_rate > 0, "train.learning_rate", f"must be > 0 (got {self.learning_rate})")
        check(self.eval_every >= 1, "train.eval_every", f"must be >= 1 (got {self.eval_every})")
        check(self.eval_samples >= 1, "train.eval_samples", f"must be >= 1 (got {self.eval_samples})")
        check(self.eval_temperature > 0, "train.eval_temperature", f"must be > 0 (got {self.eval_temperature})")
        check(self.save_every >= 1, "train.save_every", f"must be >= 1 (got {self.save_every})")
        check(
            self.micro_batch is None or self.micro_batch >= 1,
            "train.micro_batch",
            f"must be >= 1 (got {self.micro_batch})",
        )
        check(
            self.eval_prompts_per_batch >= 1,
            "train.eval_prompts_per_batch",
            f"must be >= 1 (got {self.eval_prompts_per_batch})",
        )
        check(
            self.keep_checkpoints is None or self.keep_checkpoints >= 1,
            "train.keep_checkpoints",
            f"must be >= 1, or null to keep all (got {self.keep_checkpoints})",
        )


@dataclass
class RunConfig:
    evaluator: EvaluatorConfig = field(default_factory=EvaluatorConfig)
    temperature: TemperatureConfig = field(default_factory=TemperatureConfig)
    data: DataConfig = field(default_factory=DataConfig)
    context: ContextConfig = field(default_factory=ContextConfig)
    masking: MaskingConfig = field(default_factory=MaskingConfig)
    batch: BatchConfig = field(default_factory=BatchConfig)
    kl_clip: KLClipConfig = field(default_factory=KLClipConfig)
    algo: AlgoConfig = field(default_factory=AlgoConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
    tracker: TrackerConfig = field(default_factory=TrackerConfig)
    launcher: LauncherConfig = field(default_factory=LauncherConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    seed: int = 0
    runs_root: str = "runs"
    sweep_name: str = "single"
    scale: str = "micro"
    sizes: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check(
            self.context.max_completion_length <= max(self.context.eval_lengths),
            "context.eval_lengths",
            "the longest evaluation length must be >= max_completion_length",
        )
        check(self.scale in ("micro", "paper"), "scale", f"unknown {self.scale!r}; one of micro, paper")
