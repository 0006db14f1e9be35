"""Code extraction from a model completion: the last fenced Python block, as DeepCoder does.

Fences are parsed line by line (lines as Python reads them), as Markdown reads them (backticks or tildes,
closed by a fence as long or longer, the info string's first word the language), so a closing fence is
never mistaken for an opening one. A block labelled ``python``/``py``/``python3`` wins; an unlabelled block is used only
when no labelled one exists; blocks in other languages are ignored. Only the answer counts, not the
reasoning: a ``</think>`` before any ``<think>`` ends a reasoning the prompt opened, and every ``<think>`` ...
``</think>`` after it is reasoning too; a completion cut off while reasoning has no answer after that point.
"""

from __future__ import annotations

import re

_PYTHON_TAGS = {"python", "python3", "py"}
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"


# A reasoning opens where a line starts with <think> ("Intro <think> is a tag." mentions the tag, opens nothing).
# The indent never spans a line break: "\n" * N would otherwise be scanned again from each line start.
_THINK_OPENS = re.compile(r"^[^\S\n]*<think>", re.MULTILINE)


def answer_text(completion: str) -> str:
    """The part of a completion a reader is shown as its answer: the text outside its reasoning. A
    ``</think>`` before any ``<think>`` ends a reasoning the prompt opened (LiveCodeBench's own extraction cuts
    at a ``</think>`` too, its last, which would cut into an answer whose code holds the tag); after it, every
    ``<think>`` ... ``</think>`` is reasoning, and one still open cuts the answer there. A draft block in the
    reasoning was graded: a completion cut off mid-thought, or one whose answer held no code, was accepted on
    a draft it never gave as its answer. Only a reasoning at the very start counted so (a red-team round,
    2026-12-06): a draft in a second one, or in one opened after a preface, was still graded and accepted."""
    opened, close = _THINK_OPENS.search(completion), completion.find(THINK_CLOSE)
    if close >= 0 and (opened is None or close < opened.start()):
        completion = completion[close + len(THINK_CLOSE) :]
    parts, at = [], 0
    while (opened := _THINK_OPENS.search(completion, at)) is not None:
        parts.append(completion[at : opened.start()])
        close = completion.find(THINK_CLOSE, opened.end())
        if close < 0:  # cut off while reasoning: nothing after the tag is an answer
            return "".join(parts)
        at = close + len(THINK_CLOSE)
    return "".join(parts) + completion[at:]


# A fence as Markdown (CommonMark) reads one: three or more backticks or tildes, then an info string whose first
# word is the language. Only "```" then exactly "```" counted: a block opened with "````python" (code that
# holds "```"), "~~~python" or "```python title=x", or closed by "````", was no block here, though a reader sees
# one: its answer was no_code (a right one lost its reward; a wrong one, cut off after it, was spared by the
# truncation mask as no answer; a red-team round, 2026-12-06).
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")


def _blocks(completion: str) -> list[tuple[str, str]]:
    """(language tag, body) of every closed fenced block, in order."""
    blocks, fence, tag, body = [], "", None, []
    # Lines end at "\n" (and "\r\n") only, as Python's tokenizer reads them: splitlines() also breaks at
    # \x0b, \x0c, \x1c-\x1e, \x85, \u2028 and \u2029, which turned a valid string literal holding one
    # into a syntax error, and let "x\x0c```" close a block.
    for line in (part.removesuffix("\r") for part in completion.split("\n")):
        stripped = line.strip()
        if tag is None:
            opened = _FENCE.match(stripped)
            # A backtick in a backtick fence's info string makes the line inline code ("```x```"), not a fence.
            if opened and not (opened[1][0] == "`" and "`" in opened[2]):
                fence, tag, body = opened[1], (opened[2].split() or [""])[0].lower(), []
        elif len(stripped) >= len(fence) and stripped == fence[0] * len(stripped):  # as long as it opened, or longer
            blocks.append((tag, "\n".join(body) + "\n"))
            tag = None
        else:
            body.append(line)
    return blocks


def extract_code(completion: str) -> str | None:
    """The last fenced python block (else the last unlabelled one) of the answer; None when there is none."""
    blocks = [(tag, body) for tag, body in _blocks(answer_text(completion)) if body.strip()]
    python = [body for tag, body in blocks if tag in _PYTHON_TAGS]
    plain = [body for tag, body in blocks if tag == ""]
    chosen = python or plain
    return chosen[-1] if chosen else None
