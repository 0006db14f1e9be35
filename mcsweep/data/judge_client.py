"""OpenAI-compatible chat client for the LLM judge and the policy sampler (a vLLM server on GPU).

Retries are ours, not the SDK's, so the back-off is configurable (tests use milliseconds) and a
reply that does not parse is retried like a 5xx: a sampled judge can ramble once and answer the
next time.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import openai

T = TypeVar("T")
RETRYABLE = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


class JudgeError(RuntimeError):
    """The endpoint failed or kept answering garbage after all retries."""


class ReplyParseError(ValueError):
    """A reply arrived but did not have the asked-for shape."""


@dataclass
class ClientConfig:
    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "judge"
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 60.0
    max_retries: int = 3
    backoff_s: float = 1.0
    temperature: float = 0.7
    max_tokens: int = 512


class ChatClient:
    def __init__(self, cfg: ClientConfig) -> None:
        self.cfg = cfg
        self.attempts = 0
        key = os.environ.get(cfg.api_key_env, "EMPTY")  # vLLM accepts any key unless started with one
        self._client = openai.OpenAI(base_url=cfg.base_url, api_key=key, timeout=cfg.timeout_s, max_retries=0)

    def _once(self, messages: list[dict[str, str]], n: int) -> list[str]:
        self.attempts += 1
        resp = self._client.chat.completions.create(
            model=self.cfg.model,
            messages=messages,
            n=n,
            temperature=self.cfg.temperature,
            max_tokens=self.cfg.max_tokens,
        )  # type: ignore[arg-type]
        return [c.message.content or "" for c in resp.choices]

    def call(self, messages: list[dict[str, str]], parse: Callable[[list[str]], T], n: int = 1) -> T:
        """Send, parse, and retry transient failures with exponential back-off."""
        last: Exception | None = None
        for attempt in range(self.cfg.max_retries + 1):
            if attempt:
                time.sleep(self.cfg.backoff_s * 2 ** (attempt - 1))
            try:
                return parse(self._once(messages, n))
            except (*RETRYABLE, ReplyParseError) as exc:
                last = exc
        raise JudgeError(
            f"{self.cfg.base_url}: gave up after {self.cfg.max_retries + 1} attempts: {type(last).__name__}: {last}"
        )

    def complete(self, messages: list[dict[str, str]], n: int = 1) -> list[str]:
        return self.call(messages, lambda texts: texts, n=n)


_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_json_object(text: str) -> dict[str, Any]:
    """The last {...} in a reply (reasoning models often think aloud before answering)."""
    text = re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL)
    match = _OBJECT.search(text)
    if not match:
        raise ReplyParseError(f"no JSON object in reply: {text[:200]!r}")
    try:
        obj = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        raise ReplyParseError(f"bad JSON in reply: {exc}") from exc
    if not isinstance(obj, dict):
        raise ReplyParseError("reply JSON is not an object")
    return obj
