"""The number an Optuna search maximises, read from a finished run's evaluations.

The study compares runs by test pass@1; a search can rank a trial by its last evaluation (what the
run ends with) or its best one (what early stopping would keep). The hparams_search presets say
which in `optimized_metric: {metric, reduce}`; the task returns `objective(...)`.
"""

from __future__ import annotations

from pathlib import Path

from mcsweep.io.jsonl import read_jsonl

REDUCTIONS = ("final", "best")


def objective(run_dir: Path, max_length: int, metric: str = "pass@1", reduce: str = "final") -> float:
    """`metric` of the run's evaluations at `max_length` (the training length): last step's or best."""
    if reduce not in REDUCTIONS:
        raise ValueError(f"optimized_metric.reduce: unknown {reduce!r}; one of {REDUCTIONS}")
    path = Path(run_dir) / "evals.jsonl"
    rows = read_jsonl(path) if path.exists() else []
    scored = sorted(
        (r["step"], r[metric]) for r in rows if r.get("max_length") == max_length and r.get(metric) is not None
    )
    if not scored:
        raise ValueError(f"optimized_metric.metric: no {metric!r} at max_length {max_length} in {path}")
    return float(scored[-1][1] if reduce == "final" else max(value for _, value in scored))
