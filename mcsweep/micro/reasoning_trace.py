"""How a world-3 run's responses state their constants as training goes on, read from its
`completions.jsonl`: the share worked out step by step, written at once, or with none to state, and
the reward of each. The context and masking arms act on this choice (docs/micro_world.md)."""

from __future__ import annotations

import statistics
from pathlib import Path

from mcsweep.io.jsonl import JsonlError, read_jsonl
from mcsweep.micro.arithmetic import FORMS, reasoning_form


def trace(run_dir: Path, windows: int = 4) -> tuple[list[dict], int]:
    """One row per stretch of training (`windows` equal step ranges), and how many malformed lines of
    the completions file were left out (each one counted, never dropped silently)."""
    errors: list[JsonlError] = []
    rows = [r for r in read_jsonl(run_dir / "completions.jsonl", errors) if "completion" in r and "step" in r]
    if not rows:
        raise ValueError(f"{run_dir}/completions.jsonl has no logged completions")
    last = max(r["step"] for r in rows)
    table = []
    for w in range(windows):
        lo, hi = last * w / windows, last * (w + 1) / windows
        part = [r for r in rows if lo < r["step"] <= hi or (w == 0 and r["step"] == 0)]
        if part:
            table.append(_row(part, lo, hi))
    return table, len(errors)


def _row(part: list[dict], lo: float, hi: float) -> dict:
    forms = [reasoning_form(r["completion"]) for r in part]
    row: dict = {"steps": f"{lo:.0f}-{hi:.0f}", "n": len(part)}
    row["mean_length"] = statistics.fmean(r.get("length", 0) for r in part)
    row["truncated"] = statistics.fmean(bool(r.get("truncated")) for r in part)
    for form in FORMS:
        rewards = [r.get("reward", 0.0) for r, f in zip(part, forms, strict=True) if f == form]
        row[form] = len(rewards) / len(part)
        row[f"reward_{form}"] = statistics.fmean(rewards) if rewards else None
    return row


def render(run_dir: Path, table: list[dict], skipped: int) -> str:
    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{100 * x:.1f}%"

    lines = [
        f"{run_dir}: training completions by how they state their constants"
        + (f" ({skipped} malformed lines left out)" if skipped else ""),
        "| steps | n | worked | shortcut | none | reward worked | reward shortcut | mean length | truncated |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table:
        shares = " | ".join(pct(r[f]) for f in FORMS)
        rewards = f"{_num(r['reward_worked'])} | {_num(r['reward_shortcut'])}"
        lines.append(
            f"| {r['steps']} | {r['n']} | {shares} | {rewards} | {r['mean_length']:.0f} | {pct(r['truncated'])} |"
        )
    return "\n".join(lines)


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"
