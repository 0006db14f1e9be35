"""The datasheet written next to the dataset: what went in, what came out, and why."""

from __future__ import annotations

from collections import Counter
from typing import Any

from mcsweep.data.schema import DIFFICULTIES


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return [*out, ""]


def _fmt(x: Any) -> str:
    return f"{x:.3f}" if isinstance(x, float) else str(x)


def _stages_md(stages: dict[str, dict[str, Any]]) -> list[str]:
    rows = [
        [name, s["in"], s["out"], ", ".join(f"{k}: {v}" for k, v in s["drops"].items()) or "-"]
        for name, s in stages.items()
    ]
    return ["## Counts per stage", "", *_table(["stage", "in", "out", "dropped (reason: n)"], rows)]


def _hist_md(diff: dict[str, Any]) -> list[str]:
    keys = list(diff["predicted_before"])
    pairs = (("predicted, before selection", "predicted_before"), ("predicted, after selection", "predicted_after"))
    rows = [[label, *(diff[key].get(k, 0) for k in keys)] for label, key in pairs]
    seen = set(diff["source_before"]) | set(diff["source_after"])
    known = (*DIFFICULTIES, "unlabeled")
    src_keys = [k for k in known if k in seen] + sorted(seen - set(known))
    src = [
        [label, *(diff[key].get(k, 0) for k in src_keys)]
        for label, key in (("source label, before", "source_before"), ("source label, after", "source_after"))
    ]
    return ["## Difficulty histogram", "", *_table(["", *keys], rows), *_table(["", *src_keys], src)]


def _calib_md(calib: dict[str, Any]) -> list[str]:
    out = [
        "## Calibration",
        "",
        f"thresholds (score < low: easy, >= high: hard): "
        f"{[round(t, 3) for t in calib['thresholds']]}; measured bins from pass rate: "
        f"easy >= {calib['cuts']['easy_min']}, hard <= {calib['cuts']['hard_max']}",
        "",
    ]
    for name in ("fit", "heldout"):
        a = calib.get(name)
        if not a:
            out += [f"{name}: none (fewer than 10 measured problems)", ""]
            continue
        out += [
            f"**{name}** n={a['n']}, accuracy {_fmt(a['accuracy'])}, Spearman {_fmt(a['spearman'])}; "
            f"measured split { ({k: round(v, 3) for k, v in a['measured_split'].items()}) }, predicted "
            f"split { ({k: round(v, 3) for k, v in a['predicted_split'].items()}) }",
            "",
            *_table(
                ["measured \\ predicted", "easy", "medium", "hard"],
                [[lab, *row] for lab, row in zip(("easy", "medium", "hard"), a["confusion"], strict=True)],
            ),
        ]
    return out


def _dedup_md(proc: dict[str, Any]) -> list[str]:
    return [
        "## Deduplication and test validation",
        "",
        f"exact duplicates {proc['exact_duplicates']}, near duplicates {proc['near_duplicates']} "
        f"(MinHash Jaccard threshold {proc['dedup_threshold']}); tests dropped by reference "
        f"validation {proc['tests_dropped']}, problems repaired {proc['repaired']}, unvalidated "
        f"(no reference) {proc['unvalidated']}, flagged too few tests "
        f"{proc['flagged_too_few_tests']}",
        "",
    ]


def _decontam_md(dc: dict[str, Any]) -> list[str]:
    return [
        "## Decontamination",
        "",
        f"against {dc['test_problems']} test problems, {dc['n']}-grams: {dc['overlaps']} overlapping "
        f"pairs reported ({dc['problems_with_overlap']} training problems, largest shared fraction "
        f"{dc['max_fraction']:.2f}); dropped {dc['contaminated']} (rule: shared >= {dc['min_shared']} "
        f"n-grams, 0 = off, or fraction >= {dc['min_fraction']}; see filter/overlaps.jsonl)",
        "",
    ]


def render(sheet: dict[str, Any]) -> str:
    filt = sheet["filter"]
    sources = [[k, v, sheet["final_per_source"].get(k, 0)] for k, v in sheet["sources"].items()]
    rubric = [[d["key"], d["name"], d["weight"]] for d in filt["rubric"]]
    lines = [
        f"# Datasheet: {sheet['name']}",
        "",
        f"final problems: **{sheet['final']}** (formats {sheet['formats']}); built {sheet['built']}; "
        f"config hash `{sheet['config_hash']}`",
        "",
        "## Sources",
        "",
        *_table(["source", "problems read", "in final set"], sources),
        *_stages_md(sheet["stages"]),
        *_dedup_md(sheet["process"]),
        *_decontam_md(filt["decontam"]),
        *_hist_md(filt["difficulty"]),
        *_calib_md(filt["difficulty"]["calibration"]),
        "## Rubric",
        "",
        *_table(["key", "name", "weight"], rubric),
    ]
    return "\n".join(lines)


def per_source(problems: list[dict[str, Any]]) -> dict[str, int]:
    return dict(Counter(p["meta"].get("provenance", {}).get("source", p["source"]) for p in problems))
