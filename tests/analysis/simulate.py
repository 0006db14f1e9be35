"""SIMULATED run stores for the analysis tests: curves drawn from stated shapes, never real results.

Every run card carries ``"simulated": true`` so figures and reports built on them say SIMULATED.
``PAPER`` holds one arm set per sweep shaped like the study's figures; tests perturb it to build
worlds where a claim is contradicted.
"""

from __future__ import annotations

import json
import math
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mcsweep.analysis.insights import AXIS_OF_SWEEP
from mcsweep.analysis.load import TIDY_COLUMNS, _run_columns, eval_tuples

N_STEPS, EVAL_EVERY = 60, 3
TRAIN_LEN, EXT_LEN = 256, 512
DEFAULTS: dict[str, float] = {
    "a0": 0.30,
    "ap": 0.40,
    "tp": 1.0,
    "ae": math.nan,
    "p": 2.0,
    "settle": 0.2,
    "anoise": 0.004,
    "r0": 0.30,
    "r1": 0.45,
    "rnoise": 0.005,
    "l0": 300.0,
    "lp": 450.0,
    "tl": 1.0,
    "le": math.nan,
    "lnoise": 2.0,
    "d0": 0.60,
    "de": 0.55,
    "tau": 0.3,
    "dnoise": 0.003,
    "steps": N_STEPS,
    "tgrow": 1.0,
    "aseed": 0.0,
    "rseed": 0.0,
    "lseed": 0.0,
    "dseed": 0.0,
}
"""Curve shape, per-point noise (``*noise``) and per-run seed offsets (``*seed``; ``lseed`` relative)."""

PAPER: dict[str, dict[str, dict[str, float]]] = {
    "evaluator": {
        "microcoder": {"ap": 0.44, "p": 4.0, "r0": 0.35, "r1": 0.50},
        # the strict judge's reward drifts while test accuracy rises: it does not track it (E3)
        "livecodebench": {"ap": 0.41, "p": 1.0, "r0": 0.34, "r1": 0.30, "rnoise": 0.02},
    },
    "temperature": {
        "0.6": {"d0": 0.45, "de": 0.25, "ap": 0.36, "tp": 0.5, "ae": 0.28},
        "1.2": {"d0": 0.62, "de": 0.58, "ap": 0.41},
        "1.8": {"d0": 0.75, "de": 0.60, "ap": 0.40},
        "0.6->1.2@30": {"d0": 0.45, "de": 0.58, "ap": 0.43},
        "0.6->1.8@30": {"d0": 0.45, "de": 0.60, "ap": 0.44},
        "0.6~1.8": {"d0": 0.45, "de": 0.40, "ap": 0.38, "tp": 0.6, "ae": 0.33},
    },
    "temperature_schedules": {
        "0.6->1.8@30": {"d0": 0.45, "de": 0.60, "ap": 0.44},
        "0.6~1.8": {"d0": 0.45, "de": 0.40, "ap": 0.38, "tp": 0.6, "ae": 0.33},
    },
    "data": {
        "deepcoder": {"ap": 0.30, "anoise": 0.002, "r0": 0.55, "r1": 0.70, "lp": 330.0},  # flat: D1 must show it
        "microcoder": {"ap": 0.38, "r0": 0.25, "r1": 0.40, "lp": 450.0},
    },
    "context": {
        "256": {"ap": 0.36, "l0": 150.0, "lp": 200.0, "de": 0.50},
        "384": {"ap": 0.39, "l0": 150.0, "lp": 280.0, "de": 0.55},
        "512": {"ap": 0.42, "l0": 150.0, "lp": 360.0, "de": 0.60},
        "256->512@30": {"ap": 0.38, "l0": 150.0, "lp": 330.0},
        "384->512@30": {"ap": 0.40, "l0": 150.0, "lp": 340.0},
        "256->512@45": {"ap": 0.36, "l0": 150.0, "lp": 320.0},
    },
    "masking": {
        "none": {"ap": 0.45, "p": 1.0, "lp": 380.0, "d0": 0.9, "de": 0.60, "tau": 0.8},
        "conditional": {"ap": 0.48, "p": 1.5, "lp": 400.0, "d0": 0.9, "de": 0.62, "tau": 0.5},
        "10%": {"ap": 0.43, "p": 1.0, "tp": 0.6, "ae": 0.36, "lp": 420.0, "d0": 0.9, "de": 0.50, "tau": 0.5},
        "20%": {"ap": 0.41, "p": 1.0, "tp": 0.45, "ae": 0.34, "lp": 460.0, "d0": 0.9, "de": 0.40, "tau": 0.35},
        "30%": {"ap": 0.39, "p": 1.0, "tp": 0.32, "ae": 0.32, "lp": 520.0, "d0": 0.9, "de": 0.30, "tau": 0.25},
        "all": {"ap": 0.37, "p": 1.0, "tp": 0.2, "ae": 0.30, "lp": 540.0, "d0": 0.9, "de": 0.15, "tau": 0.15},
    },
    "batch": {  # one step = one update of mini_batch prompts in every arm: equal steps, equal data
        "32": {"ap": 0.40, "tp": 0.5, "ae": 0.37, "lp": 500.0, "tl": 0.5, "le": 380.0, "tau": 0.1, "de": 0.40},
        "64": {"ap": 0.42, "lp": 480.0, "tau": 0.3},
        "128": {"ap": 0.39, "p": 1.0, "lp": 430.0, "tau": 0.6},
    },
    "kl_clip": {
        "kl": {"ap": 0.37, "a0": 0.30, "tp": 0.4, "ae": 0.29, "d0": 0.68, "de": 0.25, "lp": 280.0},
        "clip_high": {"a0": 0.35, "ap": 0.40, "d0": 0.68, "de": 0.76, "lp": 520.0},
    },
    "table1": {"grpo": {"ap": 0.36}, "dapo": {"ap": 0.38}, "microcoder_grpo": {"ap": 0.41}},
    "seeds": {"base": {}},
}
TEMPS = (0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 2.8, 3.2, 3.6)
T_CHECKPOINTS = (0, 30, 60)


def _rise(x: np.ndarray, p: float) -> np.ndarray:
    return 1.0 - (1.0 - np.clip(x, 0, 1)) ** p


def acc_curve(x: np.ndarray, q: dict[str, float]) -> np.ndarray:
    """Rise to ``ap`` at ``tp``, then a linear move to ``ae`` over ``settle``, then flat."""
    ae = q["ap"] if math.isnan(q["ae"]) else q["ae"]
    up = q["a0"] + (q["ap"] - q["a0"]) * _rise(x / q["tp"], q["p"])
    down = q["ap"] + (ae - q["ap"]) * np.clip((x - q["tp"]) / q["settle"], 0, 1)
    return np.where(x <= q["tp"], up, down)


def length_curve(x: np.ndarray, q: dict[str, float]) -> np.ndarray:
    le = q["lp"] if math.isnan(q["le"]) else q["le"]
    up = q["l0"] + (q["lp"] - q["l0"]) * _rise(x / q["tl"], 2.0)
    return np.where(x <= q["tl"], up, q["lp"] + (le - q["lp"]) * np.clip((x - q["tl"]) / 0.3, 0, 1))


@dataclass
class SimRun:
    """One simulated run: card and the three JSONL files' rows."""

    card: dict[str, Any]
    metrics: list[dict[str, float]] = field(default_factory=list)
    evals: list[dict[str, float]] = field(default_factory=list)
    samples: list[dict[str, Any]] = field(default_factory=list)
    temperature_evals: list[dict[str, float]] = field(default_factory=list)
    """The (step, temperature) pairs evaluate-at-temperatures ran (its temperature_evals.jsonl)."""


def _rng(*key: Any) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _noisy(curve: np.ndarray, point_sd: float, seed_sd: float, rng: np.random.Generator) -> np.ndarray:
    """The curve shifted by one per-run (seed) offset, plus independent per-point noise."""
    return curve + rng.normal(0, seed_sd) + rng.normal(0, point_sd, len(curve))


def _metric_rows(q: dict[str, float], rng: np.random.Generator) -> list[dict[str, float]]:
    steps = np.arange(int(q["steps"]) + 1)
    x = steps / max(steps[-1], 1)
    acc = _noisy(acc_curve(x, q), q["anoise"], q["aseed"], rng)
    rew = _noisy(q["r0"] + (q["r1"] - q["r0"]) * np.sqrt(x), q["rnoise"], q["rseed"], rng)
    length = length_curve(x, q)
    length = _noisy(length, q["lnoise"], q["lseed"] * float(np.mean(length)), rng)
    div = _noisy(q["de"] + (q["d0"] - q["de"]) * np.exp(-x / q["tau"]), q["dnoise"], q["dseed"], rng)
    rows = []
    for i, s in enumerate(steps):
        row = {
            "step": int(s),
            "reward": rew[i],
            "completions/mean_length": length[i],
            "diversity/group_4gram": div[i],
            "time/generation_s": 2.0 + length[i] / 200,
            "time/reward_s": 0.5,
            "time/update_s": 1.0,
            "memory/max_allocated_gb": 1.2 + length[i] / 1000,
        }
        if s % EVAL_EVERY == 0:
            row |= {"eval/pass@1": acc[i], "eval/pass@1_ext": acc[i] + 0.01}
        rows.append({k: float(v) if k != "step" else v for k, v in row.items()})
    return rows


def _eval_rows(metrics: list[dict[str, float]]) -> list[dict[str, float]]:
    rows = []
    for m in (r for r in metrics if "eval/pass@1" in r):
        for length, acc in ((TRAIN_LEN, m["eval/pass@1"]), (EXT_LEN, m["eval/pass@1_ext"])):
            rows.append(
                {
                    "step": m["step"],
                    "max_length": length,
                    "train_length": length == TRAIN_LEN,
                    "common_length": length == EXT_LEN,
                    "pass@1/judge_livecodebench": acc,
                    "pass@1/judge_microcoder": acc + 0.02,
                    "n_problems": 20,
                    "k": 4,
                    "pass@1": acc,
                    "pass@1/easy": acc + 0.25,
                    "pass@1/medium": acc,
                    "pass@1/hard": acc - 0.2,
                    "pass@1/stdin": acc - 0.03,
                    "pass@1/call": acc + 0.03,
                    "diversity": m["diversity/group_4gram"],
                    "mean_length": m["completions/mean_length"],
                    "truncated_frac": 0.05,
                }
            )
    return rows


def _ids(rng: np.random.Generator, temperature: float, problem: int) -> list[int]:
    """Token ids: a per-problem template with each token swapped at a rate growing with temperature."""
    swap = rng.random(40) < min(0.9, 0.2 * temperature)
    return [int(rng.integers(1000, 1200)) if s else 10 * problem + j % 10 for j, s in enumerate(swap)]


def _samples(
    rng: np.random.Generator, step: int, temperature: float, p: float, length: float = 200.0, ids: bool = True
) -> list[dict[str, Any]]:
    rows = []
    for i in range(20):
        diff, fmt = ("easy", "medium", "hard")[i % 3], ("stdin", "call")[i % 2]
        for k in range(4):
            passed = bool(rng.random() < p)
            rows.append(
                {
                    "step": step,
                    "max_length": TRAIN_LEN,
                    "temperature": temperature,
                    "problem_id": f"micro-{i:03d}",
                    "difficulty": diff,
                    "format": fmt,
                    "sample": k,
                    "ids": _ids(rng, temperature, i) if ids else None,
                    "passed": passed,
                    "verdict": "accepted" if passed else "wrong_answer",
                    "length": int(max(1.0, rng.normal(length, 0.25 * length))),
                    "truncated": False,
                }
            )
    return rows


def _temperature_samples(rng: np.random.Generator, base: float, grow: float, ids: bool = True) -> list[dict[str, Any]]:
    """pass@1 against temperature per checkpoint, collapsing near 2.0 + 0.8 * grow * checkpoint index."""
    return [
        row
        for i, step in enumerate(T_CHECKPOINTS)
        for t in TEMPS
        for row in _samples(rng, step, t, base / (1 + math.exp((t - 2.0 - 0.8 * grow * i) / 0.15)), ids=ids)
    ]


def make_run(sweep: str, arm: str, params: dict[str, float], seed: int, draw: int | None = None) -> SimRun:
    """One run; ``draw`` (None in the fixed worlds) gives repeated worlds independent noise, and leaves out
    what no check reads (last-checkpoint samples, token ids), to keep hundreds of worlds quick."""
    q = {**DEFAULTS, **params}
    rng = _rng(sweep, arm, seed) if draw is None else _rng(sweep, arm, seed, draw)
    axes = {} if sweep in ("table1", "seeds") else {AXIS_OF_SWEEP[sweep]: arm}
    card = {
        "run_id": f"sim-{sweep}-{arm}-s{seed}".replace(">", "").replace("@", "at").replace("%", "pct"),
        "sweep": sweep,
        "axes": axes,
        "algo": arm if sweep == "table1" else "microcoder_grpo",
        "seed": seed,
        "world": "micro",
        "status": "finished",
        "simulated": True,
    }
    run = SimRun(card, _metric_rows(q, rng))
    run.evals = _eval_rows(run.metrics)
    last = run.metrics[-1]
    if draw is None:
        run.samples = _samples(rng, last["step"], 1.2, q["ap"], last["completions/mean_length"])
    if sweep == "temperature" and arm == "1.2":
        run.samples = _temperature_samples(rng, 0.4, q["tgrow"], ids=draw is None)
        run.temperature_evals = [{"step": s, "temperature": t} for s in T_CHECKPOINTS for t in TEMPS]
    return run


def make_sweep(
    sweep: str, arms: dict[str, dict[str, float]], seeds: tuple[int, ...] = (0, 1, 2), draw: int | None = None
) -> list[SimRun]:
    return [make_run(sweep, arm, params, s, draw) for arm, params in arms.items() for s in seeds]


def paper_world(seeds: tuple[int, ...] = (0, 1, 2), skip: tuple[str, ...] = ()) -> list[SimRun]:
    """Every sweep of ``PAPER`` (the seeds sweep with 3 seeds), minus ``skip``."""
    runs = []
    for sweep, arms in PAPER.items():
        if sweep not in skip:
            runs += make_sweep(sweep, arms, (0, 1, 2) if sweep == "seeds" else seeds)
    return runs


def write_store(root: Path, runs: list[SimRun]) -> Path:
    """Write runs in the run-store layout of docs/ARCHITECTURE.md."""
    for run in runs:
        d = root / run.card["sweep"] / run.card["run_id"]
        d.mkdir(parents=True, exist_ok=True)
        (d / "run_card.json").write_text(json.dumps(run.card))
        tables = (
            ("metrics", run.metrics),
            ("evals", run.evals),
            ("eval_samples", run.samples),
            ("temperature_evals", run.temperature_evals),
        )
        for name, rows in tables:
            (d / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


# --- repeated worlds with a known answer (issue 20) ----------------------------------------------

NULL: dict[str, float] = {
    "a0": 0.35,
    "ap": 0.35,
    "r0": 0.40,
    "r1": 0.40,
    "l0": 300.0,
    "lp": 300.0,
    "d0": 0.60,
    "de": 0.60,
    "tgrow": 0.0,
    "anoise": 0.02,
    "rnoise": 0.01,
    "lnoise": 6.0,
    "dnoise": 0.01,
    "aseed": 0.01,
    "rseed": 0.01,
    "lseed": 0.03,
    "dseed": 0.01,
}
"""A world with no effect: every arm alike and every curve flat. Per-point noise about 2 pp pass@1 (60
problems x 4 samples), per-run seed offsets of 1 pp (pass@1, reward, diversity) and 3% (length)."""
NOISE_KEYS = ("anoise", "rnoise", "lnoise", "dnoise", "aseed", "rseed", "lseed", "dseed")
NULL_SWEEPS = tuple(s for s in PAPER if s != "table1")


def null_world(draw: int, seeds: tuple[int, ...] = (0, 1, 2), sweeps: tuple[str, ...] = NULL_SWEEPS) -> list[SimRun]:
    """Every sweep's arms (the study's names), all with the ``NULL`` parameters. SIMULATED."""
    return [run for sweep in sweeps for run in make_sweep(sweep, dict.fromkeys(PAPER[sweep], NULL), seeds, draw)]


def effect_world(sweep: str, draw: int, noise_scale: float, seeds: tuple[int, ...] = (0, 1, 2)) -> list[SimRun]:
    """The ``PAPER`` arms of ``sweep`` (every claim holds) with the ``NULL`` noise times ``noise_scale``."""
    noise = {k: NULL[k] * noise_scale for k in NOISE_KEYS}
    return make_sweep(sweep, {arm: {**p, **noise} for arm, p in PAPER[sweep].items()}, seeds, draw)


def _samples_frame(run: SimRun) -> pd.DataFrame:
    done = {(r["step"], r["temperature"]) for r in run.temperature_evals}
    kind = ["temperatures" if (r["step"], r["temperature"]) in done else "training" for r in run.samples]
    return pd.DataFrame(run.samples).assign(run_id=run.card["run_id"], evaluation=kind)


def frames(runs: list[SimRun]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(metrics frame, samples frame) with ``load``/``load_samples``'s columns, built in memory for the
    repeated-world measurements (the loader itself is tested on written stores). The run columns come
    from the loader's own ``_run_columns``."""
    rows = [
        (run.card["run_id"], r["step"], k, float(v), "metrics", math.nan)
        for run in runs
        for r in run.metrics
        for k, v in r.items()
        if k != "step"
    ]
    rows += [
        (run.card["run_id"], step, metric, value, "evals", length)
        for run in runs
        for step, length, metric, value in eval_tuples(run.evals)
    ]
    tidy = pd.DataFrame(rows, columns=["run_id", "step", "metric", "value", "file", "max_length"])
    cards = pd.DataFrame([_run_columns({**run.card, "config": {}}) for run in runs])
    frame = tidy.merge(cards, on="run_id").reindex(columns=list(TIDY_COLUMNS))
    sampled = [_samples_frame(run) for run in runs if run.samples]
    if not sampled:
        return frame, pd.DataFrame()
    samples = pd.concat(sampled, ignore_index=True).rename(columns={"temperature": "eval_temperature"})
    return frame, samples.merge(cards, on="run_id")


NULL_RIGHT: dict[str, set[str]] = {
    "T1": {"inconclusive", "contradicted"},
    "T5": {"inconclusive", "contradicted"},
    "M3": {"inconclusive", "contradicted"},
    "T6": {"inconclusive", "holds"},
}
"""Verdicts the no-effect world allows beyond 'inconclusive': nothing grows or collapses there, so a claim
that something collapses (T5, M3) or grows (T1) may be contradicted, and one that it stays stable (T6) holds."""
