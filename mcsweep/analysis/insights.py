"""The registry of the study's 34 insights and 6 definitions, as data, with their checks.

Each entry says what the claim is, which sweep and metrics it needs, which figure shows it, and the
criterion its check applies (see ``checks`` and ``criteria`` for the thresholds). Definitions
(E1, E2, M1, M2, B1, B2) are recorded, never checked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from mcsweep.analysis import checks as ck
from mcsweep.analysis.criteria import ACC, DIVERSITY, LENGTH, REWARD
from mcsweep.analysis.verdicts import DEFINITION, Ctx, Store, Verdict, inconclusive

AXIS_OF_SWEEP = {
    "evaluator": "evaluator",
    "temperature": "temperature",
    "temperature_schedules": "temperature",
    "data": "data",
    "context": "context",
    "masking": "masking",
    "batch": "batch",
    "kl_clip": "kl_clip",
}


def sweep_command(sweep: str) -> str:
    """The command that produces a missing sweep."""
    return f"python -m mcsweep +sweep={sweep} -m"


@dataclass(frozen=True)
class Insight:
    """One bullet of the insights page: claim, what it needs, and how it is checked."""

    id: str
    aspect: str
    claim: str
    sweep: str | None
    metrics: tuple[str, ...]
    figure: str | None
    criterion: str
    check: Callable[[Ctx], Verdict] | None = None

    @property
    def is_definition(self) -> bool:
        return self.check is None

    def run(self, frame: pd.DataFrame | Store, samples: pd.DataFrame | None = None) -> Verdict:
        """The verdict on the runs; a missing sweep is inconclusive and names the command to run."""
        if self.check is None:
            return Verdict(DEFINITION, "definition: recorded, not checked")
        store = frame if isinstance(frame, Store) else Store(frame, samples)
        if self.sweep not in store.by_sweep:
            return inconclusive(f"sweep missing: {self.sweep} (run: {sweep_command(self.sweep)})")
        ctx = Ctx(store, self.sweep, AXIS_OF_SWEEP[self.sweep])
        if not ctx.arms:
            return inconclusive(f"runs of sweep {self.sweep!r} carry no {ctx.axis!r} axis value")
        return self.check(ctx)


def _d(id_: str, aspect: str, claim: str) -> Insight:
    return Insight(id_, aspect, claim, None, (), None, "definition")


_FINAL = "'final' = mean of the last 20% of a run's points, 'initial' = of the first 10%"
_NOISE = "a difference counts when it exceeds max(minimum effect, 2 SE over seeds)"
_COLLAPSE = "collapse = final pass@1 below the smoothed peak by more than max(0.02, 10% of the peak)"

INSIGHTS: tuple[Insight, ...] = (
    _d(
        "E1",
        "evaluator",
        "The robust evaluator has 6-7 fallback comparisons (type conversion, np.allclose "
        "plus rounding, multi-line splitting, whitespace normalisation).",
    ),
    _d("E2", "evaluator", "The LiveCodeBench evaluator uses exact ==, Decimal numerics and basic stripping."),
    Insight(
        "E3",
        "evaluator",
        "A more accurate evaluator is more reliable.",
        "evaluator",
        (REWARD, ACC),
        "6_4",
        "per run, Pearson r between training reward and test pass@1 at the evaluation steps; robust "
        "arm's mean r exceeds the LCB arm's by more than max(0.05, 2 SE over seeds)",
        ck.e3,
    ),
    Insight(
        "E4",
        "evaluator",
        "The robust evaluator gives a higher critic (training) reward.",
        "evaluator",
        (REWARD,),
        "6_4",
        f"mean training reward over the run, robust > LCB; {_NOISE}",
        ck.e4,
    ),
    Insight(
        "E5",
        "evaluator",
        "With the robust evaluator test accuracy rises faster and ends higher.",
        "evaluator",
        (ACC,),
        "6_4",
        f"pass@1 gain (final - initial) and final pass@1, robust > LCB; {_FINAL}; {_NOISE}",
        ck.e5,
    ),
    Insight(
        "E6",
        "evaluator",
        "The accuracy gap between evaluators is largest early in training.",
        "evaluator",
        (ACC,),
        "6_4",
        f"gap over 10-40% of the run > gap over the last 30%; {_NOISE}",
        ck.e6,
    ),
    Insight(
        "T1",
        "temperature",
        "The highest temperature that still evaluates stably grows with training.",
        "temperature",
        ("eval_samples: passed by temperature",),
        "7_2",
        "per run and checkpoint, stable max temperature = highest evaluation temperature whose pass@1 is "
        ">= half the pass@1 at the lowest; it must be higher at the last checkpoint than the first in "
        "every run",
        ck.t1,
    ),
    Insight(
        "T2",
        "temperature",
        "Higher temperature gives higher diversity.",
        "temperature",
        (DIVERSITY,),
        "7_2",
        f"initial diversity rises across consecutive fixed temperatures; {_NOISE}",
        ck.t2,
    ),
    Insight(
        "T3",
        "temperature",
        "At a fixed temperature, diversity falls during training.",
        "temperature",
        (DIVERSITY,),
        "7_2",
        f"initial - final diversity > 0 at every fixed temperature; {_NOISE}",
        ck.t3,
    ),
    Insight(
        "T4",
        "temperature",
        "If initial diversity is below the value it converges to, diversity keeps falling and training fails.",
        "temperature",
        (DIVERSITY, ACC),
        "7_2",
        "convergence value = mean final diversity of the fixed temperatures where no run collapsed; every "
        "run of a temperature starting more than 0.01 below it loses more than 0.01 diversity and "
        f"collapses; {_COLLAPSE}",
        ck.t4,
    ),
    Insight(
        "T5",
        "temperature",
        "Training at t = 0.6 (the lowest fixed temperature) fails.",
        "temperature",
        (ACC,),
        "7_2",
        f"every run at the lowest fixed temperature collapses; {_COLLAPSE}",
        ck.t5,
    ),
    Insight(
        "T6",
        "temperature",
        "Training at t = 1.8 (the highest fixed temperature) is stable.",
        "temperature",
        (ACC,),
        "7_2",
        f"no run at the highest fixed temperature collapses; {_COLLAPSE}",
        ck.t6,
    ),
    Insight(
        "T7",
        "temperature",
        "Diversity converges to similar values at every (stable) temperature.",
        "temperature",
        (DIVERSITY,),
        "7_2",
        "across fixed temperatures with no collapse, the spread of final "
        "diversity is <= min(0.10, half the initial spread); contradicted if it is not smaller than the "
        "initial spread",
        ck.t7,
    ),
    Insight(
        "T8",
        "temperature",
        "Choose the training temperature from diversity.",
        "temperature",
        (DIVERSITY, ACC),
        "7_2",
        "the rule (lowest fixed temperature whose initial diversity is >= the "
        f"convergence value) picks an arm whose final pass@1 is within noise of the best fixed arm; {_NOISE}",
        ck.t8,
    ),
    Insight(
        "T9",
        "temperature",
        "A low -> high staged schedule ends higher than any fixed temperature.",
        "temperature",
        (ACC,),
        "7_2",
        f"final pass@1 of the best staged arm (a->b@step) > best fixed arm; {_NOISE}",
        ck.t9,
    ),
    Insight(
        "T10",
        "temperature",
        "Continuous temperature ramps are unstable; use discrete stages.",
        "temperature_schedules",
        (ACC,),
        "7_2",
        f"final pass@1 of the best staged arm > every ramp arm (a~b); {_NOISE}",
        ck.t10,
    ),
    Insight(
        "D1",
        "data",
        "The harder dataset raises test accuracy; the easy one stays flat.",
        "data",
        (ACC,),
        "8_2",
        f"hard arm's pass@1 gain > 0 and > easy arm's gain, and the easy gain is within noise of 0; {_NOISE}",
        ck.d1,
    ),
    Insight(
        "D2",
        "data",
        "The harder dataset has a lower critic reward.",
        "data",
        (REWARD,),
        "8_2",
        f"mean training reward, easy > hard; {_NOISE}",
        ck.d2,
    ),
    Insight(
        "D3",
        "data",
        "Reward trends are similar, but only the hard data improves the test score.",
        "data",
        (REWARD, ACC),
        "8_2",
        "reward gains of both arms have the same sign beyond noise, and the hard "
        f"arm's pass@1 gain > the easy arm's; {_NOISE}",
        ck.d3,
    ),
    Insight(
        "D4",
        "data",
        "Harder data makes responses grow faster and longer.",
        "data",
        (LENGTH,),
        "8_2",
        f"length gain and final length, hard > easy (min effect 3% of length); {_NOISE}",
        ck.d4,
    ),
    Insight(
        "C1",
        "context",
        "A larger maximum response length gives higher final accuracy.",
        "context",
        (ACC,),
        "10_2",
        f"final pass@1 rises across consecutive fixed lengths; {_NOISE}",
        ck.c1,
    ),
    Insight(
        "C2",
        "context",
        "A larger maximum length gives faster length growth and longer final outputs.",
        "context",
        (LENGTH,),
        "10_2",
        f"final length and length gain rise across fixed lengths; {_NOISE}",
        ck.c2,
    ),
    Insight(
        "C3",
        "context",
        "Length and maximum length correlate with diversity.",
        "context",
        (DIVERSITY,),
        "10_2",
        f"final diversity rises across consecutive fixed lengths; {_NOISE}",
        ck.c3,
    ),
    Insight(
        "C4",
        "context",
        "Starting with a small context leaves a lasting deficit after extension.",
        "context",
        (ACC,),
        "10_2",
        f"final pass@1 of each extension a->b@step is below the fixed-b arm; {_NOISE}",
        ck.c4,
    ),
    Insight(
        "C5",
        "context",
        "The smaller the starting length, the larger the deficit.",
        "context",
        (ACC,),
        "10_2",
        f"among extensions to the same length at the same step, deficit grows as the start shrinks; {_NOISE}",
        ck.c5,
    ),
    Insight(
        "C6",
        "context",
        "A later extension recovers less.",
        "context",
        (ACC,),
        "10_2",
        f"among extensions with the same start and target, deficit grows with the switch step; {_NOISE}",
        ck.c6,
    ),
    _d("M1", "masking", "Masked truncated responses get advantage 0."),
    _d(
        "M2",
        "masking",
        "The conditional mask masks a truncated response only when it is non-incorrect, not "
        "repetitive (last 128 tokens repeat the 128 before) and U(0,1) < rho.",
    ),
    Insight(
        "M3",
        "masking",
        "With masking, accuracy rises, falls, then converges.",
        "masking",
        (ACC,),
        "12_2",
        "every run of mask-all and mask-rate arms peaks before the last 20% of steps, "
        f"collapses ({_COLLAPSE}) "
        "and its smoothed last quarter varies by at most half the fall",
        ck.m3,
    ),
    Insight(
        "M4",
        "masking",
        "A higher mask rate grows length faster; 30% is close to mask all.",
        "masking",
        (LENGTH,),
        "12_2",
        "length gain rises with the mask rate up to mask all (beyond noise), and the "
        "largest rate's gain is closer to mask all's than the smallest rate's",
        ck.m4,
    ),
    Insight(
        "M5",
        "masking",
        "More masking reaches the first accuracy peak sooner.",
        "masking",
        (ACC,),
        "12_2",
        "step of the smoothed pass@1 peak falls with the mask amount, by more than one evaluation interval and 2 SE",
        ck.m5,
    ),
    Insight(
        "M6",
        "masking",
        "Less masking gives a longer rise and a higher peak.",
        "masking",
        (ACC,),
        "12_2",
        f"smoothed pass@1 peak falls as the mask amount rises (no mask, rates, mask all); {_NOISE}",
        ck.m6,
    ),
    Insight(
        "M7",
        "masking",
        "More masking makes diversity fall faster.",
        "masking",
        (DIVERSITY,),
        "12_2",
        f"diversity lost between the start and the middle (40-60%) of the run rises with the mask amount; {_NOISE}",
        ck.m7,
    ),
    Insight(
        "M8",
        "masking",
        "The conditional mask is the most stable and ends highest.",
        "masking",
        (ACC,),
        "12_2",
        "conditional arm's final pass@1 > every other arm's, and every other arm that drops by "
        f"more than 0.02 drops more than it; {_NOISE}",
        ck.m8,
    ),
    _d("B1", "batch", "Train batch = prompts per rollout; mini-batch = prompts per update."),
    _d("B2", "batch", "A smaller train batch (fixed mini-batch) is more on-policy."),
    Insight(
        "B3",
        "batch",
        "On-policy training is less stable (diversity converges faster; length rises then "
        "falls); off-policy is more stable.",
        "batch",
        (LENGTH, DIVERSITY),
        "11_2",
        "within the data every arm reached, the smallest batch's length falls from its peak by a larger "
        "share (min effect 0.03) and its diversity falls more by mid-run than the largest batch's; "
        f"{_NOISE}",
        ck.b3,
    ),
    Insight(
        "B4",
        "batch",
        "The intermediate batch size is best.",
        "batch",
        (ACC,),
        "11_2",
        f"final pass@1 within the data every arm reached, middle batch > smallest and largest; {_NOISE}",
        ck.b4,
    ),
    Insight(
        "K1",
        "kl_clip",
        "No KL with clip-high keeps diversity, grows length and sustains accuracy, unlike a KL loss.",
        "kl_clip",
        (DIVERSITY, LENGTH, ACC),
        "9_2",
        f"clip-high > KL in diversity change, final length and final pass@1; {_NOISE}",
        ck.k1,
    ),
    Insight(
        "K2",
        "kl_clip",
        "Falling diversity makes accuracy rise and then fall.",
        "kl_clip",
        (DIVERSITY, ACC),
        "9_2",
        f"every run whose final diversity is >= 30% below its initial value has pass@1 rising above "
        f"its start then collapsing; {_COLLAPSE}",
        ck.k2,
    ),
)

BY_ID: dict[str, Insight] = {i.id: i for i in INSIGHTS}
SWEEPS: tuple[str, ...] = (
    "evaluator",
    "temperature",
    "temperature_schedules",
    "data",
    "context",
    "masking",
    "batch",
    "kl_clip",
    "table1",
    "seeds",
)


def check_all(frame: pd.DataFrame, samples: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per registry entry: id, aspect, claim, sweep, figure, criterion, status, reason, numbers."""
    rows, store = [], Store(frame, samples)
    for ins in INSIGHTS:
        v = ins.run(store)
        rows.append(
            {
                "id": ins.id,
                "aspect": ins.aspect,
                "claim": ins.claim,
                "sweep": ins.sweep,
                "figure": ins.figure,
                "criterion": ins.criterion,
                "status": v.status,
                "reason": v.reason,
                "numbers": v.numbers,
            }
        )
    return pd.DataFrame(rows)
