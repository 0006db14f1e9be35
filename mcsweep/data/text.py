"""Text normalisation shared by dedup, decontamination and the statement cleaner."""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[a-z0-9]+")


def clean_statement(text: str) -> str:
    """Unify unicode, newlines and blank runs; keep line structure (samples need it)."""
    text = unicodedata.normalize("NFKC", text).replace("\r\n", "\n").replace("\r", "\n")
    lines = [ln.rstrip() for ln in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def words(text: str) -> list[str]:
    """Lower-cased alphanumeric tokens: robust to punctuation and LaTeX spacing differences."""
    return _WORD.findall(unicodedata.normalize("NFKC", text).lower())


def ngrams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    if len(tokens) < n:
        return {tuple(tokens)} if tokens else set()
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}
