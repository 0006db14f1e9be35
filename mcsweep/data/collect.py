"""Collect: read every configured source and merge, keeping provenance on each problem."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcsweep.data import loaders
from mcsweep.data.dedup import Drop
from mcsweep.data.passrate import load_target
from mcsweep.data.schema import Problem, read_jsonl, read_parquet


def _callable_source(target: str, kwargs: dict[str, Any] | None = None) -> list[Problem]:
    rows = load_target(target)(**(kwargs or {}))
    return [r if isinstance(r, Problem) else Problem.from_dict(r, f"{target} row {i}") for i, r in enumerate(rows)]


def _file_source(path: str) -> list[Problem]:
    return read_parquet(path) if str(path).endswith(".parquet") else read_jsonl(path)


LOADERS: dict[str, Callable[..., list[Problem]]] = {
    "livecodebench": loaders.load_livecodebench,
    "deepcoder": loaders.load_deepcoder,
    "open_r1_verifiable": loaders.load_open_r1_verifiable,
    "open_r1_codeforces": loaders.load_open_r1_codeforces,
    "file": _file_source,
    "callable": _callable_source,
}


def load_source(cfg: dict[str, Any]) -> list[Problem]:
    """One configured source; keys other than kind/name/limit go to the loader."""
    cfg = dict(cfg)
    kind = cfg.pop("kind")
    cfg.pop("name", None)
    limit = cfg.pop("limit", None)
    if kind not in LOADERS:
        raise ValueError(f"unknown source kind {kind!r}; one of {sorted(LOADERS)}")
    problems = LOADERS[kind](**cfg)
    return problems[:limit] if limit else problems


def source_name(cfg: dict[str, Any]) -> str:
    where = cfg.get("root") or cfg.get("path") or cfg.get("target") or ""
    return str(cfg.get("name") or f"{cfg['kind']}:{Path(str(where)).name}")


def collect(sources: list[dict[str, Any]]) -> tuple[list[Problem], list[Drop], dict[str, Any]]:
    """Merge in config order (the order is the priority later used by dedup)."""
    seen: set[str] = set()
    kept: list[Problem] = []
    drops: list[Drop] = []
    per_source: dict[str, int] = {}
    for cfg in sources:
        name = source_name(cfg)
        loaded = load_source(cfg)
        per_source[name] = len(loaded)
        for i, p in enumerate(loaded):
            p.meta["provenance"] = {"source": name, "kind": cfg["kind"], "index": i}
            if p.id in seen:
                drops.append(Drop(p.id, "collect", "duplicate_id", f"from {name}"))
                continue
            seen.add(p.id)
            kept.append(p)
    return kept, drops, {"per_source": per_source}
