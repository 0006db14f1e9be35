"""MicroCoder's GRPO trainer: TRL's GRPOTrainer with five small, tested seams.

1. `_generate_and_score_completions`: after TRL computes group-normalised advantages, apply the
   truncation mask (masked responses leave the loss normaliser unless `masking.normaliser` keeps
   them) and log diversity and masking metrics. The masked advantages are the tensors the loss then
   uses (tests read them back from this seam).
2. `set_temperature`: change the sampling temperature for generation AND the loss's
   log-probabilities together (TRL bakes the temperature into its fused LM head at init).
3. `_generate`: time generation, so a step's seconds split into generation / reward / update.
4. `_generate_single_turn` (`sampler="fast"`): the HF rollout through `mcsweep.train.sampler`, which
   samples from `generate`'s distribution without its per-token overhead.
5. `_get_per_token_logps_and_entropies` (`shared_prompt=True`): each distinct prompt runs once in
   the forward pass and each completion only up to its last token (`mcsweep.train.shared_prompt`);
   same log-probs and gradients up to rounding. With `cpu_bf16_update=True` the forward (either
   path) runs under bf16 autocast with fp32 attention (`mcsweep.train.precision`).
6. `_compute_loss` (`shared_prompt=True`): names the rows whose loss term is identically zero (zero
   advantage, no KL, no entropy bonus): the gradient is the same without them. When the fast
   sampler drew the rollout on-policy (no old log-probs, so every ratio is 1), these rows skip the
   forward and their entropies (metrics only) are the sampler's; otherwise their forward runs
   without autograd.
Anything else is stock TRL.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import torch
from accelerate.utils import gather_object
from trl import GRPOTrainer
from trl.trainer.utils import add_fused_lm_head

from mcsweep.algo import truncation_mask
from mcsweep.algo.diversity import distinct_n, mean_group_diversity, per_sample_diversity
from mcsweep.train import precision
from mcsweep.train import sampler as fast_sampler
from mcsweep.train.reward import ScaledOverlongPunishment, check_natural_length
from mcsweep.train.shared_prompt import shared_prompt_logps, shares_prompts

log = logging.getLogger(__name__)

SAMPLERS = ("hf_generate", "fast")
# TRL loss types whose per-token loss is the advantage times a factor: zero advantage, zero loss.
ADVANTAGE_SCALED_LOSSES = ("grpo", "bnpo", "dr_grpo", "dapo", "luspo", "cispo", "sapo")


def _replace_fused_lm_head(model: torch.nn.Module, temperature: float, fp32: bool, outputs: tuple[str, ...]) -> None:
    """TRL's fused LM head at `temperature`, wrapping the forward that stood before the first change.

    `add_fused_lm_head` wraps whatever `model.forward` is; re-applied at every change of a schedule it
    nested one forward per change (2,000 changes overflowed Python's recursion limit in the forward).
    """
    before = model.__dict__.setdefault("_mcsweep_forward_before_schedule", model.forward)
    model.forward = before
    add_fused_lm_head(model, temperature=temperature, cast_lm_head_to_fp32=fp32, outputs=outputs)


@dataclass
class MaskSettings:
    mode: str
    rho: float
    non_incorrect: str
    repeat_window: int
    seed: int
    repeat_detector: str = "any_period"
    normaliser: str = "exclude_masked"  # or keep_masked: masked tokens stay in the loss normaliser


@dataclass
class RolloutLog:
    """What the last rollout did, for the run store's completion samples and for tests."""

    step: int | None = None  # optimizer steps done when the rollout was generated
    completion_ids: list[list[int]] = field(default_factory=list)
    advantages_after: torch.Tensor | None = None
    decision: truncation_mask.MaskDecision | None = None


class FrozenRows(NamedTuple):
    """Rows whose loss term is identically zero, and their entropies where the sampler gave them
    (then the forward skips these rows)."""

    rows: torch.Tensor
    entropies: torch.Tensor | None


class MicroCoderGRPOTrainer(GRPOTrainer):
    """GRPOTrainer plus truncation masking, live temperature changes and phase timing.

    `reward` is the ExecutionReward instance among `reward_funcs`; the mask reads its verdicts.
    `sampler` and `shared_prompt` choose the fast rollout and update paths (off: stock TRL).
    """

    def __init__(
        self,
        *args,
        reward,
        mask: MaskSettings,
        sampler: str = "hf_generate",
        shared_prompt: bool = False,
        cpu_bf16_update: bool = False,
        overlong_start_check: str = "warn",
        **kwargs,
    ) -> None:
        if sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {sampler!r}; one of {SAMPLERS}")
        super().__init__(*args, **kwargs)
        if sampler == "fast":
            self._check_whole_weights()
            if not self.use_vllm:
                fast_sampler.check_supported(self.accelerator.unwrap_model(self.model))
        self.sampler, self.shared_prompt = sampler, shared_prompt
        self.cpu_bf16_update = cpu_bf16_update
        if cpu_bf16_update:
            if self.accelerator.device.type != "cpu":
                raise ValueError("train.cpu_bf16_update is for CPU runs (on a GPU, bf16 comes with TRL's bf16=True)")
            precision.use_fp32_attention(self.accelerator.unwrap_model(self.model))
            precision.warn_if_emulated()
        self.execution_reward = reward
        self.mask_settings = mask
        self.overlong_start_check = overlong_start_check
        self.rollout_log = RolloutLog()
        self.phase_seconds = {"generation": 0.0, "score": 0.0}
        self._frozen: FrozenRows | None = None  # set by _compute_loss for its own forward
        self._sampled_entropies: list[list[float]] | None = None  # the fast sampler's, for the next rollout

    def _check_whole_weights(self) -> None:
        """The fast sampler reads each layer's weights outside its forward, where ZeRO-3 leaves empty
        placeholders and FSDP DTensor shards (it failed at the first rollout or evaluation)."""
        sharding = "DeepSpeed ZeRO-3" if self._dist.is_zero3 else "FSDP" if self._dist.is_fsdp else None
        if sharding:
            raise ValueError(
                f"rollout.sampler=fast needs each process to hold whole weights, which {sharding} shards; "
                "use rollout.sampler=hf_generate"
            )

    def set_temperature(self, value: float) -> None:
        """Use `value` for sampling and for every log-probability from the next rollout on."""
        if value == self.temperature:
            return
        self.temperature = value
        if getattr(self, "generation_config", None) is not None:
            self.generation_config.temperature = value
            self.generation_kwargs["temperature"] = value
        if getattr(self, "vllm_generation", None) is not None:
            self.vllm_generation.temperature = value
        fp32 = self.args.cast_lm_head_to_fp32
        _replace_fused_lm_head(self.accelerator.unwrap_model(self.model), value, fp32, ("log_probs", "entropy"))
        if self.ref_model is not None:
            _replace_fused_lm_head(self.accelerator.unwrap_model(self.ref_model), value, fp32, ("log_probs",))

    def set_max_completion_length(self, value: int) -> None:
        """Context extension: longer responses from the next rollout on (HF and vLLM paths)."""
        self.max_completion_length = value
        if getattr(self, "generation_config", None) is not None:
            self.generation_config.max_new_tokens = value
            self.generation_kwargs["max_new_tokens"] = value
        if getattr(self, "vllm_generation", None) is not None:
            self.vllm_generation.max_completion_length = value
        for func in self.reward_funcs:
            if hasattr(func, "max_completion_len"):  # DAPO's overlong shaping follows the new limit
                func.max_completion_len = value

    def at_rollout_boundary(self) -> bool:
        """True when the next micro-step generates: TRL's own condition, also right after a resume."""
        return self._step % (self.args.steps_per_generation * self.num_iterations) == 0 or self._buffered_inputs is None

    def _generate(self, prompts: list):
        start = time.perf_counter()
        out = super()._generate(prompts)
        self.phase_seconds["generation"] += time.perf_counter() - start
        self.rollout_log.completion_ids = [list(ids) for ids in out[1]]
        return out

    def _generate_single_turn(self, prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        """The fast sampler for text-only HF rollouts; `generate` (or vLLM) otherwise."""
        if self.sampler != "fast" or self.use_vllm or self.use_transformers_continuous_batching or images:
            return super()._generate_single_turn(
                prompt_ids, images, multimodal_fields, num_generations, has_tool_images
            )
        if (
            self.generation_kwargs.get("min_p") is not None
            or self.generation_kwargs.get("repetition_penalty", 1.0) != 1.0
        ):
            raise ValueError("sampler=fast samples with temperature only (min_p and repetition_penalty unset)")
        samples = fast_sampler.sample(
            self.accelerator.unwrap_model(self.model),
            prompt_ids,
            temperature=self.temperature,
            max_new_tokens=self.max_completion_length,
            stop_ids=list(self.eos_token_ids),
            pad_id=self._tokenizer.pad_token_id,
        )
        self._sampled_entropies = samples.entropies
        return samples.completion_ids, None  # as TRL's generate path: no sampling log-probs

    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, *args, **kwargs):
        """Under bf16 autocast if `cpu_bf16_update`; then the shared-prompt path or TRL's."""
        with precision.update_autocast(self.cpu_bf16_update):
            return self._logps_and_entropies(model, input_ids, attention_mask, logits_to_keep, *args, **kwargs)

    def _logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, *args, **kwargs):
        """Shared-prompt forward for plain text batches of one unwrapped model; TRL's otherwise."""
        plain = not args and all(
            v is None or v is False for k, v in kwargs.items() if k not in ("batch_size", "compute_entropy")
        )
        if not (
            self.shared_prompt
            and plain
            and self.accelerator.unwrap_model(model) is model
            and not self.args.gradient_checkpointing
            and shares_prompts(input_ids, attention_mask, logits_to_keep)
        ):
            return super()._get_per_token_logps_and_entropies(
                model, input_ids, attention_mask, logits_to_keep, *args, **kwargs
            )
        size = kwargs.get("batch_size") or input_ids.size(0)
        frozen = self._frozen if self._frozen is not None and len(self._frozen.rows) == len(input_ids) else None
        if frozen is None or frozen.entropies is None:  # not the loss's own forward, or no entropies to reuse
            rows = None if frozen is None else frozen.rows
            logps, entropies = self._shared_forward(model, input_ids, attention_mask, logits_to_keep, size, rows)
        else:
            logps, entropies = self._forward_skipping(model, input_ids, attention_mask, logits_to_keep, size, frozen)
        return logps, entropies if kwargs.get("compute_entropy") else None, None

    def _forward_skipping(self, model, input_ids, attention_mask, logits_to_keep, size: int, frozen: FrozenRows):
        """The forward of the rows with a gradient only; the others get log-probs 0 (a ratio of 1 on
        policy, as their own would give) and the sampler's entropies."""
        live = (~frozen.rows).nonzero().squeeze(1)
        ids, mask = input_ids[live], attention_mask[live]
        logps, entropies = self._shared_forward(model, ids, mask, logits_to_keep, size, None)
        logps = logps.new_zeros(len(input_ids), logps.size(1)).index_copy(0, live, logps)
        return logps, frozen.entropies.to(entropies).index_copy(0, live, entropies)

    def _shared_forward(self, model, input_ids, attention_mask, logits_to_keep, size: int, frozen):
        """`shared_prompt_logps` over chunks of `size` rows (TRL's `batch_size`)."""
        chunks = []
        with self.accelerator.autocast():
            for start in range(0, input_ids.size(0), size):
                rows = slice(start, start + size)
                chunks.append(
                    shared_prompt_logps(
                        model,
                        input_ids[rows],
                        attention_mask[rows],
                        logits_to_keep,
                        frozen=None if frozen is None else frozen[rows],
                    )
                )
        entropies = None if chunks[0][1] is None else torch.cat([c[1] for c in chunks])  # None: the ref model's
        return torch.cat([c[0] for c in chunks]), entropies

    def _compute_loss(self, model, inputs):
        """TRL's loss, its forward told which rows have an identically zero loss term."""
        rows = self._rows_without_gradient(inputs["advantages"])
        self._frozen = None if rows is None else FrozenRows(rows, self._reusable_entropies(inputs))
        try:
            return super()._compute_loss(model, inputs)
        finally:
            self._frozen = None

    def _reusable_entropies(self, inputs: dict) -> torch.Tensor | None:
        """The sampler's entropies where a zero-advantage row's log-probs cannot reach the loss or its
        metrics: on-policy (the ratio is 1 whatever they are), no entropy-ranked token mask and no
        off-policy mask, and the rollout drawn at the temperature the forward uses."""
        entropies = inputs.get("sampler_entropies")
        if (
            entropies is None
            or "old_per_token_logps" in inputs
            or self.top_entropy_quantile < 1.0
            or self.off_policy_mask_threshold is not None
            or float(inputs["sampler_temperature"]) != self.temperature
        ):
            return None
        return entropies

    def _rows_without_gradient(self, advantages: torch.Tensor) -> torch.Tensor | None:
        """Rows with zero advantage where the loss is the advantage times a factor and nothing else
        (no KL term, no entropy bonus): their gradient is exactly 0. None where some row must
        keep its graph (every row zero: the loss still needs one to backpropagate)."""
        if self.beta != 0.0 or self._entropy_bonus_enabled or self.loss_type not in ADVANTAGE_SCALED_LOSSES:
            return None
        zero = advantages == 0 if advantages.dim() == 1 else (advantages == 0).all(-1)
        return None if bool(zero.all()) else zero

    def _generate_and_score_completions(self, inputs):
        start = time.perf_counter()
        self._sampled_entropies = None
        output = super()._generate_and_score_completions(inputs)
        self._attach_sampled_entropies(output)
        if self.model.training:
            self.rollout_log.step = self.state.global_step
            output["advantages"] = self._mask_advantages(output["advantages"])
            self._normalise_without_masked(output)
            self._log_diversity()
            self._check_overlong_shaping()
        self.phase_seconds["score"] += time.perf_counter() - start
        return output

    def _attach_sampled_entropies(self, output: dict) -> None:
        """The fast sampler's per-token entropies as a tensor shaped like the completions, so that they
        follow the rollout's rows through TRL's shuffle and split."""
        sampled, self._sampled_entropies = self._sampled_entropies, None
        ids = output["completion_ids"]
        if sampled is None or len(sampled) != ids.size(0) or max(map(len, sampled)) != ids.size(1):
            return
        entropies = torch.zeros(ids.shape, dtype=torch.float32, device=ids.device)
        for row, values in enumerate(sampled):
            entropies[row, : len(values)] = torch.tensor(values)
        output["sampler_entropies"] = entropies
        output["sampler_temperature"] = torch.tensor(float(self.temperature))

    def _mask_advantages(self, advantages: torch.Tensor) -> torch.Tensor:
        s, record = self.mask_settings, self.execution_reward.last
        ids = self.rollout_log.completion_ids
        decision = truncation_mask.decide(
            ids,
            record.verdicts,
            record.rewards,
            mode=s.mode,
            rho=s.rho,
            non_incorrect=s.non_incorrect,
            repeat_window=s.repeat_window,
            repeat_detector=s.repeat_detector,
            stop_ids=[*self.eos_token_ids, self._tokenizer.pad_token_id],
            draws=truncation_mask.mask_draws(s.seed, self.state.global_step, self.accelerator.process_index, len(ids)),
        )
        masked = truncation_mask.apply(advantages, decision)
        self.rollout_log.advantages_after = masked
        self.rollout_log.decision = decision
        groups, rows = len(ids) // self.num_generations, len(ids)
        stats = truncation_mask.group_stats(decision, self.num_generations)
        self._log_over_ranks({k: (v, rows if k == "mask/masked_frac" else groups) for k, v in stats.items()})
        return masked

    def _normalise_without_masked(self, output: dict) -> None:
        """With `exclude_masked`, zero the completion mask of masked responses (TRL's
        `mask_truncated_completions` convention, and current rllm's), so that their tokens leave the
        token-level normaliser: a higher mask rate no longer shrinks every other response's step.
        Logs `mask/masked_token_frac`, the masked responses' share of the rollout's tokens."""
        mask = output["completion_mask"]
        keep = torch.as_tensor(~self.rollout_log.decision.masked, device=mask.device).unsqueeze(1)
        total = self.accelerator.gather(mask.sum()).sum()
        kept = self.accelerator.gather((mask * keep).sum()).sum()
        self._metrics["train"]["mask/masked_token_frac"].append(float(1 - kept / total.clamp(min=1)))
        if self.mask_settings.normaliser == "exclude_masked":
            output["completion_mask"] = mask * keep.to(mask.dtype)
            output["num_items_in_batch"] = kept

    def _log_over_ranks(self, values: dict[str, tuple[float, int]]) -> None:
        """Log each (mean, count) as the mean over every process's rows. TRL's `log` averages only the
        local `_metrics`, and only rank 0 writes the run store: a rank's own mean was the metric, 1/N of
        the rollout. A collective: every process calls it with the same names."""
        names = sorted(values)
        local = [[values[n][0] * values[n][1] for n in names] + [float(values[n][1]) for n in names]]
        total = self.accelerator.gather(torch.tensor(local, dtype=torch.float64, device=self.accelerator.device))
        sums = total.sum(0).tolist()
        for i, name in enumerate(names):
            self._metrics["train"][name].append(sums[i] / max(sums[len(names) + i], 1.0))

    def _log_diversity(self) -> None:
        ids = self.rollout_log.completion_ids
        with_grams = sum(len(x) >= 4 for x in ids)  # per_sample_diversity's denominator
        self._log_over_ranks(
            {
                "diversity/group_4gram": (
                    mean_group_diversity(ids, self.num_generations, 4),
                    len(ids) // self.num_generations,
                ),
                "diversity/per_sample_4gram": (per_sample_diversity(ids, 4), with_grams),
                "diversity/within_distinct2": (sum(distinct_n(x, 2) for x in ids) / max(len(ids), 1), len(ids)),
            }
        )
        self._metrics["train"]["temperature"].append(self.temperature)

    def _check_overlong_shaping(self) -> None:
        """Log the share of responses inside DAPO's penalty zone; on the first rollout, warn or fail
        when most of the policy's natural answers already sit there (`algo.overlong_start_check`)."""
        shaping = next((f for f in self.reward_funcs if isinstance(f, ScaledOverlongPunishment)), None)
        if shaping is None:
            return
        lengths = [len(x) for x in self.rollout_log.completion_ids]
        inside = sum(n > shaping.penalty_start for n in lengths) / max(len(lengths), 1)
        self._log_over_ranks({"overlong/penalised_frac": (inside, len(lengths))})
        if self.state.global_step != 0 or self.overlong_start_check == "off":
            return
        # Decided on the whole rollout, so that every process fails or none does (one rank raising
        # while the others wait in the next collective is a hang, not a failure).
        message = check_natural_length(
            gather_object(lengths) if self.accelerator.num_processes > 1 else lengths, shaping
        )
        if message and self.overlong_start_check == "fail":
            raise RuntimeError(message)
        if message:
            log.warning(message)
