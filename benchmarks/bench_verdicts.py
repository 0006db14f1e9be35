"""How often the insight checks call an effect that is not there, and how often they find one that is (issue 20).

False-verdict rate: ``--draws`` SIMULATED no-effect worlds (``tests/analysis/simulate.py`` ``NULL``: every
arm of every sweep alike, flat curves, 3 seeds, per-point noise about 2 pp pass@1 and per-run seed
offsets), each drawn with its own noise. A verdict is false when it is not one the null world allows
(``NULL_RIGHT``: 'inconclusive' for every claim of an effect; a claim that something collapses or grows
may also be 'contradicted', one that something stays stable also 'holds').

Power: the study-shaped ``PAPER`` arms of each insight's sweep (the claim holds), with the null world's
noise scaled so that the claim's weakest part is 2x and 4x the seed noise (the seed SD of the summary
the part compares, measured once on 12 seeds at the null noise). Checks whose parts are not mean
comparisons (per-run thresholds, curve shapes) have no such scale and are shown at the null noise.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_verdicts.py [--draws 50] [--power-draws 20]
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from pathlib import Path

from mcsweep.analysis import INSIGHTS, check_all
from mcsweep.analysis.insights import BY_ID
from tests.analysis import simulate as sim

CHECKED = [i.id for i in INSIGHTS if not i.is_definition]
SWEEP = {i.id: i.sweep for i in INSIGHTS if not i.is_definition}


def false_verdicts(draws: int) -> tuple[Counter, int]:
    """Per insight, the number of draws whose verdict the null world does not allow."""
    wrong: Counter = Counter()
    for d in range(draws):
        table = check_all(*sim.frames(sim.null_world(d)))
        for r in table.itertuples():
            if r.id in SWEEP and r.status not in sim.NULL_RIGHT.get(r.id, {"inconclusive"}):
                wrong[r.id] += 1
    return wrong, draws


def _effect_ratio(numbers: dict) -> float | None:
    """Smallest |diff| / seed SD over a verdict's compared parts; None without compared parts."""
    ratios = [
        abs(numbers[k]) / numbers[k.removesuffix(".diff") + ".sd"]
        for k in numbers
        if k.endswith(".diff") and numbers.get(k.removesuffix(".diff") + ".sd")
    ]
    ratios = [r for r in ratios if math.isfinite(r)]
    return min(ratios) if ratios else None


def calibrate() -> dict[str, float | None]:
    """Per insight: the weakest part's effect in seed SDs on 12 seeds of the PAPER arms at the null noise."""
    out = {}
    for sweep in sorted(set(SWEEP.values())):
        table = check_all(*sim.frames(sim.effect_world(sweep, 10_000, 1.0, seeds=tuple(range(12)))))
        out |= {r.id: _effect_ratio(r.numbers) for r in table.itertuples() if SWEEP.get(r.id) == sweep}
    return out


def power(ratio: dict[str, float | None], k: float, draws: int) -> dict[str, float]:
    """Per insight, the share of draws that say 'holds' where the weakest part is ``k`` seed SDs."""
    out = {}
    for iid in CHECKED:
        scale = ratio[iid] / k if ratio.get(iid) else 1.0
        hits = 0
        for d in range(draws):
            hits += BY_ID[iid].run(*sim.frames(sim.effect_world(SWEEP[iid], d, scale))).status == "holds"
        out[iid] = hits / draws
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--draws", type=int, default=50, help="no-effect worlds (each all sweeps, 3 seeds)")
    parser.add_argument("--power-draws", type=int, default=20, help="effect worlds per insight and size; 0: skip")
    parser.add_argument("--calibration", type=Path, help="read (or, if absent, write) the effect ratios here")
    parser.add_argument("--write", action="store_true", help="record the rates for the report (false_verdicts.py)")
    args = parser.parse_args()
    wrong, n = false_verdicts(args.draws)
    total, n = sum(wrong.values()), max(n, 1)
    if args.write:
        from mcsweep.analysis.false_verdicts import RATES_FILE  # here: the bench also runs on older code

        record = {
            "draws": n,
            "overall": total / (n * len(CHECKED)),
            "per_insight": {i: wrong[i] / n for i in CHECKED},
            "command": f"python benchmarks/bench_verdicts.py --draws {n} --write",
        }
        RATES_FILE.write_text(json.dumps(record, indent=1) + "\n")
    if args.draws:
        print(f"no-effect worlds: {n} draws x {len(CHECKED)} insights")
        print(f"false-verdict rate overall: {total}/{n * len(CHECKED)} = {total / (n * len(CHECKED)):.2%}")
    if args.power_draws:
        if args.calibration and args.calibration.exists():
            ratio = json.loads(args.calibration.read_text())
        else:
            ratio = calibrate()
            if args.calibration:
                args.calibration.write_text(json.dumps(ratio, indent=1))
        p2, p4 = power(ratio, 2.0, args.power_draws), power(ratio, 4.0, args.power_draws)
    print(
        f"\n{'insight':8} {'false':>8} {'rate':>7}"
        + ("   power@2x  power@4x  (effect/SD at null noise)" * bool(args.power_draws))
    )
    for iid in CHECKED:
        line = f"{iid:8} {wrong[iid]:>4}/{n:<3} {wrong[iid] / n:>7.1%}"
        if args.power_draws:
            r = ratio.get(iid)
            scale = f"{r:.1f}" if r else "n/a: not a mean comparison, at null noise"
            line += f"   {p2[iid]:>8.0%}  {p4[iid]:>8.0%}  ({scale})"
        print(line)


if __name__ == "__main__":
    main()
