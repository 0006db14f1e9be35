"""Dataclass schemas for every config group (verl-style config tree), each field with its help.

Each group's YAML file in `conf/<group>/` is merged onto its dataclass, so an unknown key fails at
once, and a value outside an Enum fails naming the key and the allowed values (OmegaConf checks
them). `__post_init__` checks ranges and says how to fix the value; cross-group checks live in
`RunConfig.__post_init__`. Every field carries `metadata={"help": ...}` (TRL's convention), which
`python -m mcsweep --help-config [GROUP]` prints (mcsweep/config/help.py).

The Enums are `StrEnum`s whose members are named as their values, so YAML keeps plain strings and
code may compare a value with a string.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from dataclasses import dataclass, field, fields
from enum import Enum, StrEnum
from typing import Any

from mcsweep.micro.policy import PolicySpec
from mcsweep.micro.problems import WorldSpec


class ConfigError(ValueError):
    """A config value is invalid; the message starts with the dotted key."""


def check(ok: bool, key: str, message: str) -> None:
    if not ok:
        raise ConfigError(f"{key}: {message}")


@functools.cache
def enum_fields(cls: type) -> dict[str, type[Enum]]:
    """name -> Enum type of the fields typed with an Enum (optional or in a list included)."""
    out = {}
    for name, hint in typing.get_type_hints(cls).items():
        args = typing.get_args(hint) or (hint,)
        for arg in args:
            inner = typing.get_args(arg) or (arg,)
            found = [t for t in inner if isinstance(t, type) and issubclass(t, Enum)]
            if found:
                out[name] = found[0]
    return out


def allowed(enum: type[Enum]) -> str:
    return ", ".join(m.value for m in enum)


def coerce_enums(obj: Any, prefix: str) -> None:
    """Turn strings into the fields' Enum members: a dataclass built in code (not through OmegaConf,
    which checks them itself) gets the same check and the same types."""
    for name, enum in enum_fields(type(obj)).items():
        value = getattr(obj, name)
        values = value if isinstance(value, list) else [value]
        for v in values:
            check(
                v is None or v in enum._value2member_map_,
                f"{prefix}{name}",
                f"invalid value {v!r}; one of {allowed(enum)}",
            )
        converted = [enum(v) if v is not None else None for v in values]
        setattr(obj, name, converted if isinstance(value, list) else converted[0])


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    return [_plain(v) for v in value] if isinstance(value, list) else value


def plain_dict(cfg: Any) -> dict[str, Any]:
    """A config as plain data, Enums as their strings (for W&B's config and JSON files)."""
    return dataclasses.asdict(cfg, dict_factory=lambda items: {k: _plain(v) for k, v in items})


class Comparator(StrEnum):
    livecodebench = "livecodebench"
    microcoder = "microcoder"


COMPARATORS = tuple(c.value for c in Comparator)


class TemperatureKind(StrEnum):
    fixed = "fixed"
    staged = "staged"
    ramp = "ramp"
    diversity = "diversity"


class DiversityMeasure(StrEnum):
    pooled = "pooled"
    per_sample = "per_sample"


class DataSource(StrEnum):
    micro = "micro"
    jsonl = "jsonl"
    hf = "hf"
    deepcoder = "deepcoder"


class MaskingMode(StrEnum):
    none = "none"
    all = "all"
    all_failed = "all_failed"
    conditional = "conditional"


class NonIncorrect(StrEnum):
    no_answer = "no_answer"
    unparsable = "unparsable"
    not_wrong_answer = "not_wrong_answer"


class RepeatDetector(StrEnum):
    literal = "literal"
    any_period = "any_period"


class Normaliser(StrEnum):
    exclude_masked = "exclude_masked"
    keep_masked = "keep_masked"


class LossType(StrEnum):
    grpo = "grpo"
    dapo = "dapo"
    bnpo = "bnpo"
    dr_grpo = "dr_grpo"


class ScaleRewards(StrEnum):
    group = "group"
    batch = "batch"
    none = "none"


class StartCheck(StrEnum):
    fail = "fail"
    warn = "warn"
    off = "off"


class ModelKind(StrEnum):
    micro = "micro"
    hf = "hf"


class Dtype(StrEnum):
    float32 = "float32"
    bfloat16 = "bfloat16"
    float16 = "float16"


class RolloutBackend(StrEnum):
    hf = "hf"
    vllm = "vllm"


class VllmMode(StrEnum):
    colocate = "colocate"
    server = "server"


class ImportanceSamplingMode(StrEnum):
    """TRL 1.16's `vllm_importance_sampling_mode` values."""

    sequence_mask = "sequence_mask"
    sequence_truncate = "sequence_truncate"
    token_mask = "token_mask"
    token_truncate = "token_truncate"


class Sampler(StrEnum):
    fast = "fast"
    hf_generate = "hf_generate"


class TrackerMode(StrEnum):
    offline = "offline"
    online = "online"
    auto = "auto"
    disabled = "disabled"


class Scale(StrEnum):
    micro = "micro"
    paper = "paper"


@dataclass
class EvaluatorConfig:
    """The sandboxed judge of rewards and evaluations (mcsweep/evaluator)."""

    name: str = field(
        default="microcoder", metadata={"help": "The option's name (the evaluator axis' label in the run card)."}
    )
    comparator: Comparator = field(
        default=Comparator.microcoder,
        metadata={
            "help": "The judge that decides pass/fail: microcoder (tolerant output comparison, the study's) or "
            "livecodebench (LiveCodeBench's exact comparison)."
        },
    )
    shadow: list[Comparator] = field(
        default_factory=list,
        metadata={
            "help": "Comparators that also judge every solution, logged as reward/shadow_<name> (never the reward)."
        },
    )
    timeout_s: float = field(
        default=2.0,
        metadata={
            "help": "CPU seconds per test (its whole process tree) before a solution counts as time_limit; "
            "its wall limit is 3 times that, so that waiting for a busy CPU is not charged."
        },
    )
    memory_mb: int = field(
        default=1024, metadata={"help": "Address-space limit of a solution's process, in MB (at least 64)."}
    )
    workers: int = field(default=2, metadata={"help": "Sandbox processes grading in parallel."})
    dedupe: bool = field(
        default=True,
        metadata={
            "help": "Run identical code for the same problem once per batch; its copies share the verdict "
            "(a solution whose output depends on chance or timing then gets one draw for all its copies)."
        },
    )

    def __post_init__(self) -> None:
        coerce_enums(self, "evaluator.")
        check(self.timeout_s > 0, "evaluator.timeout_s", f"must be > 0 seconds (got {self.timeout_s})")
        check(self.memory_mb >= 64, "evaluator.memory_mb", f"must be >= 64 MB (got {self.memory_mb})")
        check(self.workers >= 1, "evaluator.workers", f"must be >= 1 (got {self.workers})")


@dataclass
class TemperatureConfig:
    """`stages` is a list of [step, temperature]: discrete switches (staged) or ramp knots (ramp)."""

    name: str = field(
        default="fixed_1.2", metadata={"help": "The option's name (the temperature axis' label in the run card)."}
    )
    kind: TemperatureKind = field(
        default=TemperatureKind.fixed,
        metadata={
            "help": "fixed: `value` throughout; staged: switch at each stage's step; ramp: linear between stages; "
            "diversity: probe `candidates` before training and pick the one reaching the target diversity."
        },
    )
    value: float = field(
        default=1.2,
        metadata={"help": "Temperature at step 0 (and throughout for fixed), in the study's scale (`unit`)."},
    )
    stages: list[Any] = field(
        default_factory=list,
        metadata={
            "help": "[step, temperature] pairs with increasing steps, e.g. [[140, 1.8]]; "
            "only staged and ramp read them."
        },
    )
    candidates: list[float] = field(
        default_factory=list, metadata={"help": "Temperatures the diversity probe tries (diversity only)."}
    )
    target_diversity: float = field(
        default=0.5,
        metadata={"help": "Diversity the probe aims for when `target_from` is null (diversity only), in (0, 1]."},
    )
    target_from: str | None = field(
        default=None,
        metadata={
            "help": "A pilot run folder, sweep folder or run id whose final diversity is the target (diversity only)."
        },
    )
    measure: DiversityMeasure = field(
        default=DiversityMeasure.pooled,
        metadata={
            "help": "Diversity measure of probe and target: pooled over the G samples of a prompt, or per_sample."
        },
    )
    probe_prompts: int = field(
        default=16, metadata={"help": "Training prompts the diversity probe samples G completions for."}
    )
    unit: float = field(
        default=1.0,
        metadata={
            "help": "Sampling temperature per unit of this axis' temperatures (value, stages, candidates): 1.0 "
            "for real models; the micro policy collapses at a lower temperature than a Qwen3, so scale=micro "
            "sets its measured ratio (docs/micro_world.md, 'Temperature unit')."
        },
    )

    def __post_init__(self) -> None:
        coerce_enums(self, "temperature.")
        check(self.value > 0, "temperature.value", f"must be > 0 (got {self.value})")
        check(self.unit > 0, "temperature.unit", f"must be > 0 (got {self.unit})")
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
            check(
                len(self.stages) >= 1,
                "temperature.stages",
                f"{self.kind} needs at least one stage, e.g. [[140, 1.8]]",
            )
        else:
            check(
                not self.stages,
                "temperature.stages",
                f"only staged and ramp read stages, not {self.kind} (set temperature.stages=[])",
            )
        check(
            self.kind == "diversity" or not self.candidates,
            "temperature.candidates",
            f"only diversity reads candidates, not {self.kind} (set temperature.candidates=[])",
        )
        check(
            self.kind == "diversity" or self.target_from is None,
            "temperature.target_from",
            f"only diversity reads target_from, not {self.kind} (set temperature.target_from=null)",
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

    def sampling(self, temperature: float) -> float:
        """The temperature sampled for one of this axis' temperatures (the study's scale)."""
        return temperature * self.unit

    @property
    def sampled_value(self) -> float:
        """The temperature sampled at step 0 (before the diversity probe's choice or any stage)."""
        return self.sampling(self.value)


@dataclass
class DataConfig:
    """`source`: micro (embedded sets), jsonl (a problem-record file), hf (a hub dataset of problem
    records) or deepcoder (a local snapshot of agentica-org/DeepCoder-Preview-Dataset, converted on load).

    The test split comes from `test_source` (default: `source`) and `test_path` (default: `path`), so
    that a pipeline-built training file can be tested on the micro world's test split. `n_test`
    problems are a random sample of it drawn with `test_seed`, fixed per sweep (not the run seed).
    """

    name: str = field(default="hard", metadata={"help": "The option's name (the data axis' label in the run card)."})
    source: DataSource = field(
        default=DataSource.micro,
        metadata={
            "help": "Where training problems come from: micro (built in), jsonl (a file), hf (a hub dataset of "
            "problem records) or deepcoder (a DeepCoder-Preview-Dataset snapshot)."
        },
    )
    train_set: str = field(
        default="hard",
        metadata={
            "help": "The set's name: a micro set (easy, hard), the hub dataset's split, or DeepCoder's subsets "
            "joined by + (primeintellect+taco+lcbv5)."
        },
    )
    path: str | None = field(
        default=None, metadata={"help": "The JSONL file or hub dataset id (required unless source is micro)."}
    )
    n_train: int | None = field(default=None, metadata={"help": "Use only the first n training problems (null: all)."})
    test_set: str = field(default="test", metadata={"help": "The test set's name, as `train_set`."})
    test_source: DataSource | None = field(
        default=None, metadata={"help": "Where test problems come from (null: `source`)."}
    )
    test_path: str | None = field(default=None, metadata={"help": "The test file or dataset id (null: `path`)."})
    n_test: int = field(default=60, metadata={"help": "Test problems sampled (with `test_seed`) for every evaluation."})
    test_seed: int = field(
        default=0,
        metadata={"help": "Seed of the test sample; fixed per sweep so every arm is tested on the same problems."},
    )

    def __post_init__(self) -> None:
        coerce_enums(self, "data.")
        check(
            self.source == "micro" or self.path is not None,
            "data.path",
            f"required for source {self.source} (a JSONL file or hub dataset id)",
        )
        check(self.n_test >= 1, "data.n_test", f"must be >= 1 (got {self.n_test})")
        check(
            self.n_train is None or self.n_train >= 1,
            "data.n_train",
            f"must be >= 1, or null for all (got {self.n_train})",
        )


@dataclass
class ContextConfig:
    """Training max response length, the extended lengths for evaluation, and an extension schedule.

    `common_eval_length` is one length shared by every arm of a sweep (the sweep's longest training
    or extension length), so arms trained at different lengths are also tested on equal terms;
    null means the run's own longest training length."""

    name: str = field(default="mid", metadata={"help": "The option's name (the context axis' label in the run card)."})
    max_completion_length: int = field(
        default=240, metadata={"help": "Longest response in training, in tokens (until `extend_to`)."}
    )
    eval_lengths: list[int] = field(
        default_factory=lambda: [240, 320],
        metadata={"help": "Response lengths every evaluation samples at (the training and common lengths are added)."},
    )
    extend_to: int | None = field(
        default=None, metadata={"help": "Context extension: the longer training length (with `extend_at_step`)."}
    )
    extend_at_step: int | None = field(
        default=None, metadata={"help": "The step the extension takes effect at (with `extend_to`)."}
    )
    repeat_window: int = field(
        default=8, metadata={"help": "Tokens the repetition detector of truncation masking looks back over."}
    )
    max_prompt_length: int = field(
        default=2048,
        metadata={
            "help": "Longest chat-formatted prompt sent, in tokens; longer ones are dropped and counted in the "
            "run card. "
            "vLLM's context is this plus the longest completion, and the memory estimate counts it."
        },
    )
    common_eval_length: int | None = field(
        default=None,
        metadata={
            "help": "One evaluation length shared by every arm of a sweep (null: the run's longest training length)."
        },
    )

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
            "extend_to and extend_at_step go together (set both, or both to null)",
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

    name: str = field(
        default="conditional", metadata={"help": "The option's name (the masking axis' label in the run card)."}
    )
    mode: MaskingMode = field(
        default=MaskingMode.conditional,
        metadata={
            "help": "none; all (every truncated response); all_failed (truncated and not accepted); conditional "
            "(truncated, non-incorrect and not repetitive, each with probability rho: the study's)."
        },
    )
    rho: float = field(
        default=0.3,
        metadata={
            "help": "conditional: probability of masking a truncated, non-incorrect, non-repetitive response, "
            "in [0, 1]."
        },
    )
    non_incorrect: NonIncorrect = field(
        default=NonIncorrect.no_answer,
        metadata={"help": "Which verdicts of a truncated response count as non-incorrect (conditional masks them)."},
    )
    repeat_detector: RepeatDetector = field(
        default=RepeatDetector.any_period,
        metadata={
            "help": "any_period: a response ending in a repeated block of any period; "
            "literal: the paper's repeat(o, m)."
        },
    )
    normaliser: Normaliser = field(
        default=Normaliser.exclude_masked,
        metadata={"help": "exclude_masked: masked tokens leave the loss normaliser; keep_masked: they stay in it."},
    )

    def __post_init__(self) -> None:
        coerce_enums(self, "masking.")
        check(0.0 <= self.rho <= 1.0, "masking.rho", f"must be in [0, 1] (got {self.rho})")


@dataclass
class BatchConfig:
    """train_batch = prompts per rollout, mini_batch = prompts per update, group_size = G."""

    name: str = field(
        default="default", metadata={"help": "The option's name (the batch axis' label in the run card)."}
    )
    train_batch: int = field(default=8, metadata={"help": "Prompts per rollout."})
    mini_batch: int = field(
        default=8,
        metadata={
            "help": "Prompts per optimizer update; divides train_batch (train_batch/mini_batch updates per rollout)."
        },
    )
    group_size: int = field(default=8, metadata={"help": "Completions sampled per prompt (GRPO's G), at least 2."})

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
    """The KL penalty and the PPO clip range (DAPO's clip-higher when epsilon_high > epsilon)."""

    name: str = field(
        default="no_kl_clip_high", metadata={"help": "The option's name (the kl_clip axis' label in the run card)."}
    )
    beta: float = field(
        default=0.0, metadata={"help": "KL coefficient against the reference policy (0: no reference model is kept)."}
    )
    epsilon: float = field(default=0.2, metadata={"help": "Lower clip range of the policy ratio, in (0, 1)."})
    epsilon_high: float = field(
        default=0.28, metadata={"help": "Upper clip range (>= epsilon; DAPO's clip-higher when larger)."}
    )

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

    name: str = field(
        default="microcoder_grpo",
        metadata={"help": "The preset's name (grpo, dapo, microcoder_grpo, analysis_base)."},
    )
    loss_type: LossType = field(
        default=LossType.dapo, metadata={"help": "TRL's loss aggregation (GRPOConfig.loss_type)."}
    )
    scale_rewards: ScaleRewards = field(
        default=ScaleRewards.group,
        metadata={"help": "TRL's advantage scaling: by the group's std, the batch's, or none."},
    )
    overlong_shaping: bool = field(
        default=False, metadata={"help": "DAPO's soft overlong punishment as a second reward."}
    )
    overlong_buffer_frac: float = field(
        default=0.2,
        metadata={
            "help": "Share of max_completion_length that is DAPO's penalty zone, in (0, 1) (DAPO: 4096 of 20480)."
        },
    )
    overlong_start_check: StartCheck = field(
        default=StartCheck.warn,
        metadata={"help": "When the first rollout is mostly inside the penalty zone already: warn, fail or off."},
    )

    def __post_init__(self) -> None:
        coerce_enums(self, "algo.")
        check(
            0 < self.overlong_buffer_frac < 1,
            "algo.overlong_buffer_frac",
            f"must be in (0, 1) (got {self.overlong_buffer_frac})",
        )


@dataclass
class MicroPolicyConfig:
    """The micro policy's build settings (mcsweep/micro/policy.py's PolicySpec, plus its world's
    seed and version); the defaults are PolicySpec's and WorldSpec's."""

    vocab_size: int = field(default=PolicySpec.vocab_size, metadata={"help": "Tokenizer vocabulary size."})
    hidden_size: int = field(default=PolicySpec.hidden_size, metadata={"help": "Width of the transformer."})
    intermediate_size: int = field(default=PolicySpec.intermediate_size, metadata={"help": "Width of the MLP."})
    num_layers: int = field(default=PolicySpec.num_layers, metadata={"help": "Transformer layers."})
    num_heads: int = field(default=PolicySpec.num_heads, metadata={"help": "Attention heads."})
    num_kv_heads: int = field(
        default=PolicySpec.num_kv_heads, metadata={"help": "Key/value heads (grouped-query attention)."}
    )
    max_positions: int = field(
        default=PolicySpec.max_positions, metadata={"help": "Longest sequence the policy supports, in tokens."}
    )
    sft_steps: int = field(default=PolicySpec.sft_steps, metadata={"help": "Supervised warm-up steps of the build."})
    sft_batch: int = field(default=PolicySpec.sft_batch, metadata={"help": "Examples per supervised step."})
    sft_micro_batch: int = field(
        default=PolicySpec.sft_micro_batch, metadata={"help": "Examples per forward pass; divides sft_batch."}
    )
    sft_lr: float = field(default=PolicySpec.sft_lr, metadata={"help": "Learning rate of the supervised warm-up."})
    seed: int = field(
        default=PolicySpec.seed, metadata={"help": "Seed of the build (initial weights, SFT data order)."}
    )
    world_seed: int = field(
        default=WorldSpec.seed, metadata={"help": "Seed of the micro world (its problems and tests)."}
    )
    world_version: int = field(
        default=WorldSpec.version, metadata={"help": "Micro world version (docs/micro_world.md)."}
    )

    def __post_init__(self) -> None:
        check(
            self.sft_micro_batch >= 1 and self.sft_batch % self.sft_micro_batch == 0,
            "model.micro.sft_micro_batch",
            f"must divide sft_batch ({self.sft_batch}); got {self.sft_micro_batch}",
        )

    def policy_spec(self) -> PolicySpec:
        settings = {f.name: getattr(self, f.name) for f in fields(self)}
        world = WorldSpec(seed=settings.pop("world_seed"), version=settings.pop("world_version"))
        return PolicySpec(world=world, **settings)


@dataclass
class ModelConfig:
    """`kind`: micro (built and cached locally) or hf (a hub id or local folder in `path`)."""

    name: str = field(default="micro", metadata={"help": "The option's name."})
    kind: ModelKind = field(
        default=ModelKind.micro, metadata={"help": "micro: the micro policy, built and cached locally; hf: `path`."}
    )
    path: str | None = field(
        default=None, metadata={"help": "Hub id or local folder of the model (required for kind hf)."}
    )
    dtype: Dtype = field(default=Dtype.float32, metadata={"help": "Weights' dtype when loaded."})
    attn_implementation: str = field(
        default="sdpa", metadata={"help": "transformers' attention implementation (sdpa, eager, flash_attention_2)."}
    )
    chat_template_kwargs: dict[str, Any] = field(
        default_factory=dict,
        metadata={"help": "Extra arguments of the tokenizer's chat template (e.g. enable_thinking: false)."},
    )
    micro: MicroPolicyConfig = field(
        default_factory=MicroPolicyConfig, metadata={"help": "The micro policy's build settings (kind micro only)."}
    )

    def __post_init__(self) -> None:
        coerce_enums(self, "model.")
        check(self.kind == "micro" or bool(self.path), "model.path", "required for kind hf (a hub id or folder)")


@dataclass
class RolloutConfig:
    """How rollouts are generated: HF in the trainer's process, or vLLM (colocated or a server)."""

    name: str = field(default="hf", metadata={"help": "The option's name."})
    backend: RolloutBackend = field(
        default=RolloutBackend.hf, metadata={"help": "hf: generate in the training process; vllm: TRL's vLLM path."}
    )
    vllm_mode: VllmMode = field(
        default=VllmMode.colocate,
        metadata={"help": "vLLM in the training processes (colocate) or a trl vllm-serve server."},
    )
    gpu_memory_utilization: float = field(default=0.3, metadata={"help": "vLLM's share of GPU memory, in (0, 1]."})
    server_host: str = field(
        default="127.0.0.1",
        metadata={"help": "The vLLM server's host (the launcher's $MCSWEEP_VLLM_HOST wins when set)."},
    )
    server_port: int = field(default=8000, metadata={"help": "The vLLM server's port."})
    tensor_parallel_size: int = field(default=1, metadata={"help": "vLLM's tensor parallelism."})
    importance_sampling_correction: bool = field(
        default=False,
        metadata={
            "help": "TRL's correction for vLLM's sampling log-probs differing from the trainer's (TRL's default is on "
            "and reweights the loss); off so the vLLM and HF paths run the same algorithm."
        },
    )
    importance_sampling_mode: ImportanceSamplingMode = field(
        default=ImportanceSamplingMode.sequence_mask,
        metadata={"help": "TRL's importance-sampling mode (when the correction is on)."},
    )
    importance_sampling_clip_max: float | None = field(
        default=3.0, metadata={"help": "Upper bound of the importance ratio."}
    )
    importance_sampling_clip_min: float | None = field(
        default=None, metadata={"help": "Lower bound of the importance ratio (null: none)."}
    )
    sampler: Sampler = field(
        default=Sampler.fast,
        metadata={
            "help": "HF backend: fast (mcsweep.train.sampler, generate's distribution without its overhead) "
            "or hf_generate."
        },
    )

    def __post_init__(self) -> None:
        coerce_enums(self, "rollout.")
        check(
            0 < self.gpu_memory_utilization <= 1,
            "rollout.gpu_memory_utilization",
            f"must be in (0, 1] (got {self.gpu_memory_utilization})",
        )


@dataclass
class TrackerConfig:
    """`auto`: WANDB_MODE if set, else online when logged in, else offline."""

    name: str = field(default="wandb", metadata={"help": "The option's name (wandb or none)."})
    wandb: bool = field(
        default=True, metadata={"help": "Log to Weights & Biases (the run store is written either way)."}
    )
    project: str = field(default="mcsweep", metadata={"help": "W&B project."})
    entity: str | None = field(default=None, metadata={"help": "W&B entity (null: your default)."})
    mode: TrackerMode = field(
        default=TrackerMode.auto,
        metadata={"help": "auto: WANDB_MODE if set, else online when logged in, else offline."},
    )
    job_type: str = field(default="train", metadata={"help": "W&B job type of the run."})
    profiling: bool = field(
        default=False, metadata={"help": "TRL's per-call profiling/... timers in W&B (six keys per step)."}
    )

    def __post_init__(self) -> None:
        coerce_enums(self, "tracker.")


@dataclass
class LauncherConfig:
    """`processes`: training processes per point (one task each, one per GPU); `accelerate`: the
    `accelerate` group's settings (DDP, DeepSpeed or FSDP) for them (mcsweep/launch/processes.py)."""

    name: str = field(
        default="local", metadata={"help": "The option's name (local, submitit_local, submitit_slurm...)."}
    )
    torch_threads: int = field(default=0, metadata={"help": "torch threads per process (0: torch's default)."})
    processes: int = field(default=1, metadata={"help": "Training processes per point, one per GPU."})
    accelerate: dict[str, Any] = field(
        default_factory=dict,
        metadata={"help": "The accelerate config file's settings (the `accelerate` group) for processes > 1."},
    )
    reuse: bool = field(
        default=True,
        metadata={
            "help": "A new point whose config (all but sweep_name) another sweep's finished run has: copy that "
            "run instead of training it again (mcsweep/launch/reuse.py)."
        },
    )
    share_eval_samples: bool = field(
        default=False,
        metadata={
            "help": "Step-0 test samples shared between the runs of one runs root that start from the same "
            "weights with the same sampling settings (<runs_root>/.eval_samples/; mcsweep/train/sample_share.py): "
            "drawn once, graded by each run."
        },
    )

    def __post_init__(self) -> None:
        check(self.torch_threads >= 0, "launcher.torch_threads", f"must be >= 0 (got {self.torch_threads})")
        check(self.processes >= 1, "launcher.processes", f"must be >= 1 (got {self.processes})")


@dataclass
class TrainConfig:
    """The optimizer loop: steps, learning rate, evaluation and checkpoint cadence."""

    steps: int = field(default=140, metadata={"help": "Optimizer steps of the run."})
    learning_rate: float = field(default=1e-4, metadata={"help": "Constant learning rate (no warm-up)."})
    eval_every: int = field(default=70, metadata={"help": "Evaluate test pass@1 every n steps (and at the last)."})
    eval_samples: int = field(
        default=4, metadata={"help": "Samples per test problem at each evaluation (pass@1 is their mean)."}
    )
    eval_temperature: float = field(default=1.0, metadata={"help": "Sampling temperature of evaluations."})
    eval_at_start: bool = field(default=True, metadata={"help": "Evaluate the initial policy at step 0."})
    save_every: int = field(
        default=35, metadata={"help": "Checkpoint every n steps (a killed run resumes from the last one)."}
    )
    keep_checkpoints: int | None = field(
        default=None, metadata={"help": "Checkpoints kept (null: all, which temperature checks need)."}
    )
    completions_every: int = field(
        default=5, metadata={"help": "Write the rollout's completions to completions.jsonl every n steps."}
    )
    micro_batch: int | None = field(
        default=None,
        metadata={"help": "Sequences per process per forward (null: the whole mini-batch, split over GPUs)."},
    )
    gradient_checkpointing: bool = field(
        default=False, metadata={"help": "Recompute activations in the backward pass (less memory)."}
    )
    eval_prompts_per_batch: int = field(
        default=16, metadata={"help": "Test prompts per generate call; a batch is the unit split over processes."}
    )
    shared_prompt: bool = field(
        default=True,
        metadata={
            "help": "Each distinct prompt once in the update's forward (mcsweep.train.shared_prompt); false: TRL's."
        },
    )
    cpu_bf16_update: bool = field(
        default=False,
        metadata={
            "help": "CPU runs: the update's linear layers in bf16 autocast (AMX), attention fp32 (train.precision); "
            "slower on CPUs without bf16 units (a run warns)."
        },
    )
    robustness_temperatures: list[float] = field(
        default_factory=list,
        metadata={
            "help": "Also evaluate test pass@1 at each of these temperatures at step 0 and every checkpoint, in the "
            "run (temperature_evals.jsonl, as mcsweep.train.temperature_eval writes; no checkpoint need be kept)."
        },
    )
    robustness_samples: int | None = field(
        default=None, metadata={"help": "Samples per test problem of those evaluations (null: eval_samples)."}
    )

    def __post_init__(self) -> None:
        check(self.steps >= 1, "train.steps", f"must be >= 1 (got {self.steps})")
        check(self.learning_rate > 0, "train.learning_rate", f"must be > 0 (got {self.learning_rate})")
        check(self.eval_every >= 1, "train.eval_every", f"must be >= 1 (got {self.eval_every})")
        check(self.eval_samples >= 1, "train.eval_samples", f"must be >= 1 (got {self.eval_samples})")
        check(self.eval_temperature > 0, "train.eval_temperature", f"must be > 0 (got {self.eval_temperature})")
        check(self.save_every >= 1, "train.save_every", f"must be >= 1 (got {self.save_every})")
        check(
            all(t > 0 for t in self.robustness_temperatures),
            "train.robustness_temperatures",
            f"must all be > 0 (got {self.robustness_temperatures})",
        )
        check(
            self.robustness_samples is None or self.robustness_samples >= 1,
            "train.robustness_samples",
            f"must be >= 1, or null for eval_samples (got {self.robustness_samples})",
        )
        check(
            self.micro_batch is None or self.micro_batch >= 1,
            "train.micro_batch",
            f"must be >= 1, or null for the whole mini-batch (got {self.micro_batch})",
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
class DataSetSizes:
    """One training set at this scale."""

    source: DataSource = field(default=DataSource.micro, metadata={"help": "Where it comes from (data.source)."})
    set: str = field(default="hard", metadata={"help": "Its name (data.train_set)."})
    path: str | None = field(default=None, metadata={"help": "Its file or dataset id (data.path)."})


@dataclass
class TestSetSizes:
    """The test set at this scale."""

    set: str = field(default="test", metadata={"help": "Its name (data.test_set)."})
    path: str | None = field(default=None, metadata={"help": "Its file or dataset id (data.test_path)."})


@dataclass
class DataSizes:
    easy: DataSetSizes = field(default_factory=DataSetSizes, metadata={"help": "The easy training set (data=easy)."})
    hard: DataSetSizes = field(default_factory=DataSetSizes, metadata={"help": "The hard training set (data=hard)."})
    test: TestSetSizes = field(default_factory=TestSetSizes, metadata={"help": "The test set."})
    n_test: int = field(default=60, metadata={"help": "Test problems per evaluation (data.n_test)."})


@dataclass
class SizesConfig:
    """The numbers axis options read (`${sizes.x}`), set by the `scale` group, so that a sweep is the
    same file at both scales. The defaults are the micro scale's (conf/scale/micro.yaml); it and
    paper.yaml set every key."""

    ctx_short: int = field(default=160, metadata={"help": "context=short's training length."})
    ctx_mid: int = field(default=240, metadata={"help": "context=mid's training length."})
    ctx_long: int = field(default=320, metadata={"help": "context=long's training length, and the extensions' target."})
    ctx_eval: int = field(default=320, metadata={"help": "The longest evaluation length."})
    repeat_window: int = field(default=8, metadata={"help": "context.repeat_window at this scale."})
    extend_early: int = field(default=20, metadata={"help": "Step of the early context extension."})
    extend_late: int = field(default=40, metadata={"help": "Step of the late context extension."})
    switch_step: int = field(default=20, metadata={"help": "Step of the staged temperature switch."})
    context_steps: int = field(
        default=140, metadata={"help": "train.steps of the context sweep (sweeps/context.yaml)."}
    )
    ramp_steps: int = field(default=40, metadata={"help": "Step where the temperature ramp ends."})
    batch_default: int = field(default=8, metadata={"help": "batch=default's train_batch."})
    batch_small: int = field(default=4, metadata={"help": "batch=small's train_batch."})
    batch_mid: int = field(default=8, metadata={"help": "batch=mid's train_batch."})
    batch_large: int = field(default=16, metadata={"help": "batch=large's train_batch."})
    mini_batch: int = field(default=4, metadata={"help": "mini_batch of the batch arms."})
    group_size: int = field(default=8, metadata={"help": "G of the batch arms."})
    data: DataSizes = field(default_factory=DataSizes, metadata={"help": "The data sets at this scale."})


@dataclass
class RunConfig:
    """One GRPO run: the seven analysis axes (evaluator, temperature, data, context, masking, batch,
    kl_clip), the algo preset, and how the run is built, launched and tracked."""

    evaluator: EvaluatorConfig = field(
        default_factory=EvaluatorConfig, metadata={"help": "Axis: the judge of rewards and evaluations."}
    )
    temperature: TemperatureConfig = field(
        default_factory=TemperatureConfig, metadata={"help": "Axis: the sampling temperature and its schedule."}
    )
    data: DataConfig = field(default_factory=DataConfig, metadata={"help": "Axis: the training and test problems."})
    context: ContextConfig = field(
        default_factory=ContextConfig, metadata={"help": "Axis: response lengths in training and evaluation."}
    )
    masking: MaskingConfig = field(
        default_factory=MaskingConfig, metadata={"help": "Axis: truncation masking of advantages."}
    )
    batch: BatchConfig = field(
        default_factory=BatchConfig, metadata={"help": "Axis: prompts per rollout and per update, and G."}
    )
    kl_clip: KLClipConfig = field(default_factory=KLClipConfig, metadata={"help": "Axis: KL penalty and clip range."})
    algo: AlgoConfig = field(
        default_factory=AlgoConfig, metadata={"help": "The algorithm preset and its remaining knobs."}
    )
    model: ModelConfig = field(default_factory=ModelConfig, metadata={"help": "The policy."})
    rollout: RolloutConfig = field(default_factory=RolloutConfig, metadata={"help": "How rollouts are generated."})
    tracker: TrackerConfig = field(default_factory=TrackerConfig, metadata={"help": "W&B logging."})
    launcher: LauncherConfig = field(
        default_factory=LauncherConfig, metadata={"help": "Where and in how many processes points run."}
    )
    train: TrainConfig = field(default_factory=TrainConfig, metadata={"help": "The optimizer loop."})
    seed: int = field(default=0, metadata={"help": "The run's seed (training order, sampling, masking draws)."})
    runs_root: str = field(default="runs", metadata={"help": "Folder of the run store ($MCSWEEP_RUNS when set)."})
    sweep_name: str = field(
        default="single", metadata={"help": "The sweep the run belongs to: runs_root/<sweep_name>/<run_id>/."}
    )
    scale: Scale = field(
        default=Scale.micro, metadata={"help": "micro (CPU, the micro world) or paper (the study's scale, GPUs)."}
    )
    sizes: SizesConfig = field(
        default_factory=SizesConfig, metadata={"help": "The scale's numbers that axis options read."}
    )

    def __post_init__(self) -> None:
        coerce_enums(self, "")
        check(
            self.context.max_completion_length <= max(self.context.eval_lengths),
            "context.eval_lengths",
            "the longest evaluation length must be >= max_completion_length (add it to context.eval_lengths)",
        )
