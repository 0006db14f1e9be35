"""The verdicts as a researcher reads them: a first screen of counts and one line per claim, then one
block per insight (claim, criterion, the compared numbers per arm, each difference against its
threshold, the verdict, and the per-claim plot).

Both take ``check_all``'s table and the plot paths (relative to the report), so a notebook renders
the same text as the report.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from mcsweep.analysis import criteria as cr
from mcsweep.analysis import false_verdicts, reasons
from mcsweep.analysis.tables import md_table
from mcsweep.analysis.verdicts import CONTRADICTED, DEFINITION, HOLDS, INCONCLUSIVE, WITHIN_NOISE, Observed, Part

SHOWN_PARTS = 3
_MEAN_KEY = re.compile(r"\[[^\]]*\]$")
_CMP_KEY = re.compile(r"\.(diff|threshold|sd)$")


def _g(x: float, digits: int = 3) -> str:
    return "nan" if x is None or math.isnan(x) else f"{x:.{digits}g}"


def counts(verdicts: pd.DataFrame) -> dict[str, int]:
    """holds / contradicted / inconclusive counts over the checked insights (definitions left out)."""
    vc = verdicts[verdicts["status"] != DEFINITION]["status"].value_counts()
    return {k: int(vc.get(k, 0)) for k in (HOLDS, CONTRADICTED, INCONCLUSIVE)}


def part_text(p: Part) -> str:
    """'final acc [a] > [b]: +0.029 +- 0.004 SE (threshold 0.012)'."""
    if p.se is None or math.isnan(p.threshold):
        return f"{p.name}: {p.diff:+.3g} (no noise estimate)"
    return f"{p.name}: {p.diff:+.3g} ± {_g(p.se, 2)} SE (threshold {_g(p.threshold)})"


def observed_text(observed: tuple[Observed, ...], limit: int = 3) -> str:
    """The first compared quantity, arm by arm: 'final acc: t = 0.6 0.279 +- 0.004 (n=3), ...'."""
    if not observed:
        return ""
    q = observed[0].quantity
    rows = [o for o in observed if o.quantity == q]
    cells = [f"{o.arm} {_g(o.mean)}" + (f" ± {_g(o.sd, 2)}" if o.n >= 2 else "") + f" (n={o.n})" for o in rows]
    more = f", +{len(cells) - limit} arms" if len(cells) > limit else ""
    spread = " (mean ± SD over seeds)" if any(o.n >= 2 for o in rows) else " (one seed per arm: no spread)"
    return f"{q}: " + ", ".join(cells[:limit]) + more + spread


def _numbers_line(r: pd.Series) -> str:
    if len(r.parts):
        shown = "; ".join(part_text(p) for p in r.parts[:SHOWN_PARTS])
        more = f"; +{len(r.parts) - SHOWN_PARTS} more parts" if len(r.parts) > SHOWN_PARTS else ""
        return shown + more
    obs = observed_text(r.observed)
    return f"{r.reason}" + (f"; {obs}" if obs else "")


def _links(r: pd.Series, plots: dict[str, str], study: dict[str, str]) -> str:
    out = [f"[block](#{r.id.lower()})"]
    if r.id in plots:
        out.append(f"[plot]({plots[r.id]})")
    if r.figure in study:
        out.append(f"[fig {r.figure}]({study[r.figure]})")
    return " · ".join(out)


def summary_markdown(verdicts: pd.DataFrame, plots: dict[str, str], study: dict[str, str]) -> str:
    """The first screen: counts, one line per claim that holds or is contradicted (the compared numbers
    with their uncertainty, plot and study figure), then the inconclusive ones grouped by reason."""
    c = counts(verdicts)
    checked = sum(c.values())
    out = [
        f"Of the {checked} insights checked: **holds {c[HOLDS]}**, **contradicted {c[CONTRADICTED]}**, "
        f"**inconclusive {c[INCONCLUSIVE]}** ({(verdicts['status'] == DEFINITION).sum()} definitions are not "
        "checked). Each line gives the compared difference ± its standard error against the threshold it had "
        "to pass (the larger of the minimum effect and the t-test's critical value; for a 'no difference' part "
        "the largest |difference| that counts, for a 'not worse' part the lowest)."
    ]
    for status, title in ((HOLDS, "Holds"), (CONTRADICTED, "Contradicted")):
        rows = verdicts[verdicts["status"] == status]
        lines = [f"- **{r.id}** {r.claim} {_numbers_line(r)}. {_links(r, plots, study)}" for _, r in rows.iterrows()]
        out.append(f"### {title} ({len(rows)})\n\n" + ("\n".join(lines) if lines else "None."))
    inc = verdicts[verdicts["status"] == INCONCLUSIVE]
    groups = inc.assign(group=inc["reason"].map(reasons.group_of)).groupby("group", sort=False)["id"].agg(list)
    lines = [
        f"- **{g}** ({reasons.describe(g)}): " + ", ".join(f"[{i}](#{i.lower()})" for i in groups[g])
        for g in reasons.ORDER
        if g in groups
    ]
    out.append(f"### Inconclusive ({len(inc)}), by reason\n\n" + ("\n".join(lines) if lines else "None."))
    return "\n\n".join(out)


def _observed_table(observed: tuple[Observed, ...]) -> str:
    rows = [(o.quantity, o.arm, _g(o.mean, 4), _g(o.sd, 2), o.n) for o in observed]
    return md_table(rows, ("quantity", "arm", "mean", "SD over seeds", "n"))


def _parts_table(parts: tuple[Part, ...]) -> str:
    rows = [(p.name, f"{p.diff:+.4g}", "" if p.se is None else _g(p.se, 2), _g(p.threshold), p.outcome) for p in parts]
    return md_table(rows, ("compared", "difference", "SE", "threshold", "outcome"))


def _other_numbers(numbers: dict) -> str:
    rest = {k: v for k, v in numbers.items() if not _CMP_KEY.search(k) and not _MEAN_KEY.search(k)}
    if not rest:
        return ""
    rows = [(k, _g(v, 4) if isinstance(v, float) else v) for k, v in rest.items()]
    return md_table(rows, ("number", "value"))


def _projection(p: Part) -> str:
    """What one within-noise part would take to count, were its size and seed spread as measured."""
    power = f"in {cr.POWER:.0%} of repeats"
    if p.flat:
        head, within = f"{p.name} ({p.diff:+.3g})", f"within the minimum effect ±{_g(p.eps)}"
        if abs(p.diff) >= p.eps:
            return f"{head} is not {within}: no number of seeds shows it"
        if p.seeds_needed is None:
            return f"{head} would need more than {cr.MAX_SEEDS} seeds per arm to be shown {within}"
        return f"{head} would be shown {within} {power} at about {p.seeds_needed} seeds per arm"
    if p.noninferior:
        head, above = f"{p.name} ({p.diff:+.3g})", f"above -{_g(p.eps)} (not worse by the minimum effect)"
        if p.diff <= -p.eps:
            return f"{head} is not {above}: no number of seeds shows it"
        if p.seeds_needed is None:
            return f"{head} would need more than {cr.MAX_SEEDS} seeds per arm to be shown {above}"
        return f"{head} would be shown {above} {power} at about {p.seeds_needed} seeds per arm"
    way = "as claimed" if p.diff > 0 else "as a reversal"
    if abs(p.diff) <= p.eps:
        below = f"is below the minimum effect {_g(p.eps)}: at that size no number of seeds makes it count"
        return f"{p.name} ({p.diff:+.3g}) {below}"
    if p.seeds_needed is None:
        return f"{p.name} ({p.diff:+.3g}) would need more than {cr.MAX_SEEDS} seeds per arm to count {way}"
    return f"{p.name} ({p.diff:+.3g}) would count {way} {power} at about {p.seeds_needed} seeds per arm"


def _decided_at(weak: list[Part]) -> str:
    """Seeds per arm at which the verdict itself would be decided, every difference as measured."""
    reversals = [p.seeds_needed for p in weak if p.diff < 0 and not (p.flat or p.noninferior) and p.seeds_needed]
    if reversals:
        return f" As measured, it would be contradicted at about {min(reversals)} seeds per arm."
    if all(p.seeds_needed for p in weak):
        return f" As measured, it would hold at about {max(p.seeds_needed or 0 for p in weak)} seeds per arm."
    return " As measured, no number of seeds decides it: a larger effect (longer runs, a stronger arm) would."


def decide_text(r: pd.Series) -> str:
    """What more would decide an inconclusive verdict: its reason group's remedy or, for differences
    within noise, the seeds per arm each would need if it kept its measured size and seed spread (a
    projection, not a promise: the next seeds move the means too)."""
    weak = [p for p in r.parts if p.outcome == WITHIN_NOISE]
    if not weak:
        return reasons.decides(reasons.group_of(r.reason)) + "."
    now = min((o.n for o in r.observed), default=0)
    lines = "; ".join(_projection(p) for p in weak[:SHOWN_PARTS])
    more = f"; +{len(weak) - SHOWN_PARTS} more parts" if len(weak) > SHOWN_PARTS else ""
    seeds_now = f", now {now} seed{'s' if now > 1 else ''} per arm" if now else ""
    return f"At the measured sizes and seed spreads{seeds_now}: {lines}{more}.{_decided_at(weak)}"


def insight_block(r: pd.Series, plots: dict[str, str], study: dict[str, str]) -> str:
    """One insight: claim, criterion, compared numbers per arm, differences against thresholds, verdict, plot."""
    rate = false_verdicts.describe(r.id)
    test = " ".join(
        x
        for x in (f"{r.test}." if r.test else "", f"False-verdict rate on no-effect worlds: {rate}." if rate else "")
        if x
    )
    parts = [
        f'<a id="{r.id.lower()}"></a>\n\n### {r.id} · {r.aspect} · {r.status}',
        f"**Claim.** {r.claim}\n\n**Criterion.** {r.criterion}",
    ]
    if len(r.observed):
        parts.append(_observed_table(r.observed))
    if len(r.parts):
        parts.append(_parts_table(r.parts))
    if other := _other_numbers(r.numbers):
        parts.append(other)
    parts.append(f"**Verdict: {r.status}.** {r.reason}." + (f" Test: {test}" if test else ""))
    if r.status == INCONCLUSIVE:
        parts.append(f"**What would decide it.** {decide_text(r)}")
    if r.id in plots:
        parts.append(f"![{r.id}: the compared numbers per arm]({plots[r.id]})")
    if r.figure:
        fig = f"[fig {r.figure}]({study[r.figure]})" if r.figure in study else f"fig {r.figure} (sweep missing)"
        parts.append(f"Study figure: {fig}.")
    return "\n\n".join(parts)


def blocks_markdown(verdicts: pd.DataFrame, plots: dict[str, str], study: dict[str, str]) -> str:
    """Every checked insight's block, in the insights page's order, then the definitions."""
    checked = verdicts[verdicts["status"] != DEFINITION]
    blocks = [insight_block(r, plots, study) for _, r in checked.iterrows()]
    defs = verdicts[verdicts["status"] == DEFINITION]
    blocks.append(
        "### Definitions (recorded, not checked)\n\n" + "\n".join(f"- **{r.id}** {r.claim}" for r in defs.itertuples())
    )
    return "\n\n".join(blocks)
