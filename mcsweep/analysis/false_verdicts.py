"""The measured false-verdict rate of each check, as ``benchmarks/bench_verdicts.py --write`` recorded it.

The rates come from SIMULATED no-effect worlds (docs/analysis.md, "The noise rule"); the report quotes
them beside each verdict so a reader knows how often that check calls an effect that is not there.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

RATES_FILE = Path(__file__).with_name("false_verdict_rates.json")


@cache
def measured() -> dict:
    """{'draws', 'overall', 'per_insight': {id: rate}, 'command'}; empty when never measured."""
    return json.loads(RATES_FILE.read_text()) if RATES_FILE.exists() else {}


def describe(iid: str) -> str:
    """'0.0% (0 of 200 no-effect worlds)' for a checked insight, '' when not measured."""
    m = measured()
    if iid not in m.get("per_insight", {}):
        return ""
    rate = m["per_insight"][iid]
    return f"{rate:.1%} ({round(rate * m['draws'])} of {m['draws']} no-effect worlds)"
