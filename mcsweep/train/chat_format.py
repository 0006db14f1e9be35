"""How a run renders its prompts and reads its completions back: the chat template with the model's kwargs.

Training (TRL renders the prompt with `chat_template_kwargs`), the held-out evaluation and the reward
must agree on both. A template may open the reasoning in the prompt itself (`<think>\\n` after the
assistant tag): the completion then starts inside the reasoning, and only what follows its `</think>`
is the answer (`mcsweep.evaluator.extract.answer_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcsweep.evaluator.extract import THINK_CLOSE, THINK_OPEN
from mcsweep.micro.world import prompt_messages

_PLACEHOLDER = "\x00mcsweep-user-turn\x00"


@dataclass(frozen=True)
class ChatFormat:
    kwargs: tuple[tuple[str, Any], ...] = ()  # the model's chat_template_kwargs, sorted items
    reasoning_open: bool = False  # the generation prompt leaves a `<think>` open

    @classmethod
    def of(cls, tokenizer, chat_template_kwargs: dict[str, Any] | None = None) -> ChatFormat:
        kwargs = dict(chat_template_kwargs or {})
        turn = [{"role": "user", "content": _PLACEHOLDER}]
        rendered = tokenizer.apply_chat_template(turn, tokenize=False, add_generation_prompt=True, **kwargs)
        after = rendered.rsplit(_PLACEHOLDER, 1)[-1]
        return cls(tuple(sorted(kwargs.items())), after.rfind(THINK_OPEN) > after.rfind(THINK_CLOSE))

    def prompt_ids(self, tokenizer, problems: Sequence[dict]) -> list[list[int]]:
        """The problems' prompt tokens exactly as TRL's trainer makes them: rendered and tokenized by the chat
        template in one call (tokenizing the rendered text again would add a tokenizer's BOS a second time
        where the template already writes it)."""
        conversations = [prompt_messages(p) for p in problems]
        encoded = tokenizer.apply_chat_template(
            conversations, add_generation_prompt=True, tokenize=True, return_dict=True, **dict(self.kwargs)
        )
        return [list(ids) for ids in encoded["input_ids"]]

    def graded_text(self, completion: str) -> str:
        """The completion as the judge must read it: inside the reasoning from its first token when the
        prompt opened it, so that a response cut off mid-thought has no answer (no draft is graded). Else after
        an empty reasoning: the judge, not told, takes a `</think>` before any `<think>` for the end of a reasoning
        the prompt opened, and graded what followed it; the completion of a prompt that opened none (or closed
        it, `enable_thinking: false`) had its answer dropped by a stray `</think>` after it (`no_code`: a wrong
        answer, cut off, was spared by the truncation mask as one never given; a red-team round, 2026-12-06)."""
        return THINK_OPEN + completion if self.reasoning_open else f"{THINK_OPEN}\n{THINK_CLOSE}\n{completion}"


PLAIN = ChatFormat()  # no kwargs, the reasoning (if any) opened by the completion itself
