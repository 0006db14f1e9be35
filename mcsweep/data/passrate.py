"""Measured pass rates of a policy: k samples per problem, graded by the shared evaluator."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcsweep.data.calibration import PassRateProvider
from mcsweep.data.judge_client import ChatClient, ClientConfig
from mcsweep.data.schema import Problem

Sampler = Callable[[list[Problem], int], list[list[str]]]


def load_target(target: str) -> Any:
    """'package.module:attribute' -> the attribute (config-named factories and sources)."""
    module, _, attr = target.partition(":")
    if not attr:
        raise ValueError(f"target {target!r} must look like 'package.module:function'")
    return getattr(importlib.import_module(module), attr)


def policy_prompt(problem: Problem) -> str:
    """LiveCodeBench's two instructions: complete the starter code, or read stdin and write stdout."""
    if problem.starter_code:
        how = (
            "You will use the following starter code to write the solution and enclose your code "
            f"within delimiters.\n```python\n{problem.starter_code}\n```"
        )
    else:
        how = (
            "Read the inputs from stdin, solve the problem and write the answer to stdout. Enclose "
            "your code within delimiters as follows.\n```python\n# YOUR CODE HERE\n```"
        )
    return f"### Question:\n{problem.question}\n\n### Format: {how}\n\n### Answer: (use the provided format)\n"


def grade_samples(problems: list[Problem], samples: list[list[str]], evaluator: Any) -> dict[str, float]:
    """Fraction of each problem's samples that the evaluator accepts."""
    from mcsweep.evaluator import GradeRequest

    requests = [
        GradeRequest(id=f"{p.id}#{j}", completion=c, input_output=p.input_output)
        for p, group in zip(problems, samples, strict=True)
        for j, c in enumerate(group)
    ]
    results = evaluator.grade_many(requests)
    passed: dict[str, list[bool]] = {p.id: [] for p in problems}
    for req, res in zip(requests, results, strict=True):
        passed[req.id.rsplit("#", 1)[0]].append(bool(res.passed))
    return {pid: sum(v) / len(v) if v else 0.0 for pid, v in passed.items()}


@dataclass
class OpenAIPolicySampler:
    """k completions per problem from a policy served behind an OpenAI-compatible endpoint."""

    client: ChatClient

    def __call__(self, problems: list[Problem], k: int) -> list[list[str]]:
        return [self.client.complete([{"role": "user", "content": policy_prompt(p)}], n=k) for p in problems]


def evaluator_provider(sampler: Sampler, k: int, evaluator_kwargs: dict[str, Any]) -> PassRateProvider:
    def provide(problems: list[Problem]) -> dict[str, float]:
        from mcsweep.evaluator import Evaluator

        ev = Evaluator(**evaluator_kwargs)
        try:
            return grade_samples(problems, sampler(problems, k), ev)
        finally:
            ev.close()

    return provide


def provider_from_config(cfg: dict[str, Any], evaluator_kwargs: dict[str, Any]) -> PassRateProvider:
    """kind 'openai': a served policy graded by the evaluator; kind 'callable': a named factory
    (`target`, `kwargs`) returning a provider, e.g. the micro world's policy."""
    kind = cfg.get("kind", "callable")
    if kind == "openai":
        client = ChatClient(ClientConfig(**cfg.get("client", {})))
        return evaluator_provider(OpenAIPolicySampler(client), int(cfg.get("k", 8)), evaluator_kwargs)
    if kind == "callable":
        return load_target(cfg["target"])(**cfg.get("kwargs", {}))
    raise ValueError(f"unknown pass-rate provider kind {kind!r}")
