"""Code extraction from a model completion: the last fenced Python block, as DeepCoder does.

Fences are parsed line by line, so a closing fence is never mistaken for an opening one. A block
labelled ``python``/``py``/``python3`` wins; an unlabelled block is used only when no labelled one
exists; blocks in other languages are ignored.
"""

from __future__ import annotations

_PYTHON_TAGS = {"python", "python3", "py"}


def _blocks(completion: str) -> list[tuple[str, str]]:
    """(language tag, body) of every closed fenced block, in order."""
    blocks, tag, body = [], None, []
    for line in completion.splitlines():
        stripped = line.strip()
        if tag is None and stripped.startswith("```"):
            tag, body = stripped[3:].strip().lower(), []
        elif tag is not None and stripped == "```":
            blocks.append((tag, "\n".join(body) + "\n"))
            tag = None
        elif tag is not None:
            body.append(line)
    return blocks


def extract_code(completion: str) -> str | None:
    """The last fenced python block (else the last unlabelled one); None when there is none."""
    blocks = [(tag, body) for tag, body in _blocks(completion) if body.strip()]
    python = [body for tag, body in blocks if tag in _PYTHON_TAGS]
    plain = [body for tag, body in blocks if tag == ""]
    chosen = python or plain
    return chosen[-1] if chosen else None
