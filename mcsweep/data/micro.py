"""The micro world as a pipeline source and as the policy whose pass rates calibrate difficulty.

Both are named in YAML (`kind: callable`, `target: mcsweep.data.micro:...`), so the pipeline runs on
the micro world's raw pool exactly as it runs on hub datasets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcsweep.data.calibration import PassRateProvider
from mcsweep.data.passrate import grade_samples
from mcsweep.data.schema import Problem

if TYPE_CHECKING:
    from mcsweep.micro.policy import PolicySpec


def micro_set(name: str = "pool", n: int | None = None, seed: int = 0, version: int = 1) -> list[dict[str, Any]]:
    """A named set of micro world `version` ('pool' is the pipeline's raw input, 'test' the held-out set)."""
    from mcsweep.micro.problems import WorldSpec
    from mcsweep.micro.world import problem_set

    return problem_set(name, WorldSpec(seed=seed, version=version), n)


def _policy_spec(seed: int, version: int, sft_steps: int | None = None) -> PolicySpec:
    """The micro policy of world `version`: the one a run with `model.micro.world_version` (and
    `model.micro.sft_steps`, default PolicySpec's) trains from (same key, same cache entry)."""
    from mcsweep.micro.policy import PolicySpec
    from mcsweep.micro.problems import WorldSpec

    steps = PolicySpec.sft_steps if sft_steps is None else sft_steps
    return PolicySpec(world=WorldSpec(seed=seed, version=version), sft_steps=steps)


def _sample(
    problems: list[Problem], k: int, temperature: float, max_new_tokens: int, batch: int, spec: PolicySpec
) -> list[list[str]]:
    """k sampled completions per problem from the cached micro policy (built once if missing)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from mcsweep.micro.policy import policy_path
    from mcsweep.micro.world import prompt_messages

    path = policy_path(spec)
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).eval()
    torch.manual_seed(spec.seed)
    out: list[list[str]] = []
    for start in range(0, len(problems), batch):
        chunk = problems[start : start + batch]
        prompts = [
            tok.apply_chat_template(prompt_messages(p.to_dict()), add_generation_prompt=True, tokenize=False)
            for p in chunk
        ]
        enc = tok(prompts, return_tensors="pt", padding=True)
        with torch.no_grad():
            gen = model.generate(
                **enc,
                do_sample=True,
                temperature=temperature,
                max_new_tokens=max_new_tokens,
                num_return_sequences=k,
                pad_token_id=tok.pad_token_id,
            )
        texts = tok.batch_decode(gen[:, enc["input_ids"].shape[1] :], skip_special_tokens=True)
        out.extend(texts[i * k : (i + 1) * k] for i in range(len(chunk)))
    return out


def micro_policy_pass_rates(
    k: int = 8,
    temperature: float = 0.8,
    max_new_tokens: int = 160,
    batch: int = 16,
    seed: int = 0,
    workers: int = 2,
    version: int = 1,
    sft_steps: int | None = None,
) -> PassRateProvider:
    """Pass rates of world `version`'s warm-started micro policy (`sft_steps` of SFT, default
    PolicySpec's), k samples per problem, graded by the evaluator."""
    spec = _policy_spec(seed, version, sft_steps)

    def provide(problems: list[Problem]) -> dict[str, float]:
        from mcsweep.evaluator import Evaluator

        samples = _sample(problems, k, temperature, max_new_tokens, batch, spec)
        ev = Evaluator(workers=workers, timeout_s=2.0)
        try:
            return grade_samples(problems, samples, ev)
        finally:
            ev.close()

    provide.cache_tag = spec.key()  # type: ignore[attr-defined]
    return provide
