"""The micro world's datasheet: what each axis's mechanism is, and its numbers at step 0."""

from __future__ import annotations

from mcsweep.micro import answers, arithmetic, problems, world

TARGETS = {"test_pass@1": (0.10, 0.60), "strict_rejection": (0.10, 0.30)}

DESIGN = f"""\
# The micro world: datasheet

Written by `python -m mcsweep.micro stats` (see `mcsweep/micro/`); the numbers below are measured,
on the problems and on the warm-started policy at step 0 of the run the overrides describe.

## Design: each axis acts through the study's mechanism

A problem is a chain of 1-3 typed list operations (difficulty = chain length), in LiveCodeBench's
stdin (AtCoder) or call-based (LeetCode) format, with 6 hidden tests. World versions
(`model.micro.world_version`, default 1):

- **1**: the world of the first runs, unchanged (its data digest and policy key are pinned by a
  test). Its expected outputs are canonical and the policy writes them exactly, so the two
  comparators never disagree; its single-op split routes by a hash that includes the format, so a
  single-op task can be trained in one format and tested in the other.
- **2**: the mechanisms below, but its plan only pads: no response is more often right for being
  longer, so a short context costs little (issue 19's first campaign: no context or masking arm
  differed by 1 pp).
- **3**: world 2 with reasoning that pays (below, "Context and masking").

**Evaluator.** {int(problems.ANSWER_OP_FRAC * 100)}% of world-2 chains end in an answer op whose
correct answers have variant forms: `mean` (a float; the statement accepts an error of
{answers.FLOAT_TOLERANCE}, the expected output has {answers.FLOAT_DECIMALS} decimals, and a raw
`print(m)` or unrounded return is correct), `counts` ([number, count] pairs; a list of tuples is
correct) and `distinct` (the statement says any order is accepted and the tests carry
`order_irrelevant`; a sorted list, a set or set order is correct). Chains that end in a list may
print one number per line (a token judge accepts it) or return a tuple. The warm-start data writes
the variant forms in fixed shares (`mcsweep/micro/answers.py`), chosen so that the data's
strict-rejected share of correct answers is near the study's own gap (critic reward 0.39 strict vs
0.48 robust at step 100, fig 6_4: about a fifth). The hidden tests still define correctness: the
robust judge accepts a variant only because the statement allows it.

**Context and masking.** The plan before the code grows with difficulty (one line per op, plus
world 1: 0 to n-1 checks per op; world 2: 0 to 2(n-1) checks in all), so hard responses outgrow
the short context; a response cut before its code block closes has no answer (verdict `no_code`),
which is what the conditional mask acts on. World 3 makes the length pay, as reasoning does in the
study (`mcsweep/micro/arithmetic.py`): ops that take a constant are drawn
{arithmetic.CONST_OP_WEIGHT:g}x as often, the statement gives each constant as a sum of single-digit
terms (`add (9-4+2) to every element`; {min(arithmetic.TERM_COUNTS)} to {max(arithmetic.TERM_COUNTS)} terms,
a long tail, running totals in 1..{arithmetic.MAX_PARTIAL}), and the plan, one line per such op,
works it out one term at a time (`9-4=5, 5+2=7, so k=7`); in {int(arithmetic.SHORTCUT_FRAC * 100)}% of
the warm-start responses it writes the value at once instead (`k = 9-4+2 = 7`).
The plan no longer pads with checks: its length is the arithmetic. A response that works its
constants out is longer and, step by step, more often right ("reasoning that pays" below), so a
context that cuts it leaves the policy the shortcut, and a masked cut leaves it the long way.

**Temperature.** Several phrasings and code forms per op give the warm-started policy real choices,
so diversity moves with the sampling temperature. Its working range is narrower than Qwen3's: at
step 0 it still answers at t <= 1.2 but not at 1.8 (pass@1 0% in both worlds: divided by 1.8, its
logits leave the 600-token tail most of the mass), where the study's 1.8 is stable (T6).

**Temperature unit.** So the axis' temperatures stay the study's and `scale=micro` samples them
times `temperature.unit` = 0.75: the ratio of the temperatures at which each policy collapses at
step 0 (this policy's pass@1 falls under 5% of its best at t = 1.5 in both worlds, measured on
100 test problems x G=8 at length 240; world 2: 65.4% at 0.6, 30.0% at 1.2, 15.5% at 1.3, 8.9% at
1.4, 2.6% at 1.5, 0.1% at 1.6; world 1: 63.3% at 0.6, 30.6% at 1.2, 13.5% at 1.35, 2.0% at 1.5,
0.0% at 1.6; the study's base collapses at about 2.0, T1). The study's 0.6 / 1.2 / 1.8 are
sampled at 0.45 / 0.9 / 1.35, each at the same fraction of the way to collapse. One anchor point
fixes one ratio: whether the micro policy's low-diversity and unstable regimes then sit where the
study's do is what the temperature sweep measures, not an assumption. The stats command prints
the collapse and the unit it implies (the table below; `temperature_unit` in its JSON).

**Data.** `easy` (DeepCoder's role) and `hard` (MicroCoder-Dataset's role) are drawn from the same
RL bucket with different difficulty mixes; the test set is held out by op pairs and, for single-op
tasks, by a hash of the chain (world 2: without the format, so no task is on both sides). World
2's test set has {world.WORLD2_TEST_SIZE} problems (world 1's: 200), so that an evaluation's own
noise can be brought under 1.5 pp pass@1.
"""


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _check(value: float | None, key: str) -> str:
    lo, hi = TARGETS[key]
    if value is None:
        return "not measured"
    return f"{'within' if lo <= value <= hi else 'OUTSIDE'} target {_pct(lo)}-{_pct(hi)}"


def _sets(r: dict) -> list[str]:
    lines = ["| set | problems | easy | medium | hard | answer ops |", "|---|---|---|---|---|---|"]
    for name, s in r["sets"].items():
        lines.append(
            f"| {name} | {s['n']} | {_pct(s['easy'])} | {_pct(s['medium'])} | {_pct(s['hard'])} "
            f"| {_pct(s['answer_ops'])} |"
        )
    return lines


def _data(r: dict) -> list[str]:
    d = r["data"]
    lines = [
        f"Warm-start completions graded against their problems' hidden tests ({d['n']} SFT problems): "
        f"robust judge accepts {_pct(d['robust_correct'])}; the strict judge rejects "
        f"{_pct(d['strict_rejection']['all'])} of those. By answer type/format: "
        + ", ".join(f"{k} {_pct(v)}" for k, v in d["strict_rejection"].items() if k not in ("all", "n_correct"))
        + ".",
        "",
        "| difficulty | mean tokens | p50 | p90 | " + " | ".join(f"> {L}" for L in r["lengths"]) + " |",
        "|---" * (4 + len(r["lengths"])) + "|",
    ]
    for level, s in d["lengths"].items():
        cut = " | ".join(_pct(s[f">{L}"]) for L in r["lengths"])
        lines.append(f"| {level} | {s['mean']:.0f} | {s['p50']} | {s['p90']} | {cut} |")
    return lines


def _evaluator(r: dict) -> list[str]:
    t, L = r["test"], r["train_length"]
    rej = t["strict_rejection"][L]
    lines = [
        f"Test set, {t['n_problems']} problems x {t['samples']} samples, temperature {r['eval_temperature']}, "
        f"length {L}: pass@1 robust {_pct(t['pass@1'][L])} ({_check(t['pass@1'][L], 'test_pass@1')}), "
        f"strict {_pct(t['pass@1_strict'][L])}.",
        f"Correct answers (robust) the strict judge rejects: **{_pct(rej['all'])}** of {rej['n_correct']} "
        f"({_check(rej['all'], 'strict_rejection')}).",
        *_noise(t),
        "",
        "| answer type / format | strict rejects |",
        "|---|---|",
    ]
    lines += [f"| {k} | {_pct(v)} |" for k, v in rej.items() if k not in ("all", "n_correct")]
    return lines


def _noise(t: dict) -> list[str]:
    if "noise" not in t:  # a datasheet written before the noise was measured
        return []
    n = t["noise"]
    return [
        f"Evaluation noise: pass@1 has a standard error of {100 * n['se']:.2f} pp over these "
        f"{t['n_problems']} problems x {t['samples']} samples; {100 * n['target']:.1f} pp needs "
        f"{n['n_for_target']} problems at {t['samples']} samples."
    ]


def _truncation(r: dict) -> list[str]:
    lines = [
        "| length | difficulty | responses | truncated | truncated, no answer | maskable | pass@1 |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in r["test"]["truncation"]:
        lines.append(
            f"| {row['length']} | {row['difficulty']} | {row['n']} | {_pct(row['truncated'])} "
            f"| {_pct(row['truncated_no_answer'])} | {_pct(row['maskable'])} | {_pct(row['pass@1'])} |"
        )
    return lines


def _reasoning(r: dict) -> list[str]:
    lines = [
        f"Test set at {max(r['lengths'])} tokens (uncut), by how a response states its constants: worked out "
        "step by step, written at once (shortcut), or none to state.",
        "",
        "| difficulty | form | share | mean tokens | steps all right | accuracy |",
        "|---|---|---|---|---|---|",
    ]
    for row in r["test"]["reasoning"]:
        lines.append(
            f"| {row['difficulty']} | {row['form']} | {_pct(row['share'])} | {row['mean_tokens']:.0f} "
            f"| {_pct(row['steps_right'])} | {_pct(row['accuracy'])} |"
        )
    return lines


def _temperature(r: dict) -> list[str]:
    lines = ["| temperature | diversity D | pass@1 | truncated | mean length |", "|---|---|---|---|---|"]
    for row in r["temperature"]:
        lines.append(
            f"| {row['temperature']} | {row['diversity']:.3f} | {_pct(row['pass@1'])} "
            f"| {_pct(row['truncated'])} | {row['mean_length']:.0f} |"
        )
    u = r.get("temperature_unit")
    if u and u["collapse"] is not None:
        lines += [
            "",
            f"Collapse (pass@1 under {_pct(u['share'])} of the best probed): t = {u['collapse']}; the study's base "
            f"collapses at about {u['study_collapse']} (T1), so this policy's temperature unit is {u['unit']} "
            f"(`temperature.unit`, set to {r.get('temperature_config_unit', 1.0)} by this config).",
        ]
    return lines


def _train_sets(r: dict) -> list[str]:
    lines = ["| set | problems | pass@1 (robust) | pass@1 (strict) | truncated |", "|---|---|---|---|---|"]
    for name, s in r["train_sets"].items():
        lines.append(
            f"| {name} | {s['n_problems']} | {_pct(s['pass@1'])} | {_pct(s['pass@1_strict'])} "
            f"| {_pct(s['truncated'])} |"
        )
    return lines


def render(r: dict) -> str:
    """The datasheet as markdown: the design, then each mechanism's numbers."""
    head = (
        f"## Measured: world {r['world_version']}, policy `{r['policy_key']}`\n\n"
        f"`python -m mcsweep.micro {' '.join(r['argv'])}` ({r['seconds']} s). Lengths: "
        f"{r['lengths']} (training {r['train_length']}); training temperature {r['train_temperature']}."
    )
    sections = [("Problem sets", _sets(r)), ("Warm-start data", _data(r))]
    if "test" not in r:
        sections.append(("Step-0 policy", ["Not measured (`--data-only`): the policy was not built."]))
        return _join(head, sections)
    sections += [
        ("Evaluator: strict rejections of correct answers (step 0)", _evaluator(r)),
        ("Context and masking: truncation per length and difficulty (test set, step 0)", _truncation(r)),
        *([("Context: reasoning that pays (test set, step 0)", _reasoning(r))] if "reasoning" in r["test"] else []),
        (
            f"Temperature: diversity and pass@1 ({r['temperature'][0]['temperature']}-"
            f"{r['temperature'][-1]['temperature']}, G={r['group_size']}, length {r['train_length']}, step 0)",
            _temperature(r),
        ),
        ("Data: pass@1 per training set (training temperature and length, step 0)", _train_sets(r)),
    ]
    return _join(head, sections)


def _join(head: str, sections: list[tuple[str, list[str]]]) -> str:
    body = "\n\n".join(f"### {title}\n\n" + "\n".join(lines) for title, lines in sections)
    return f"{DESIGN}\n{head}\n\n{body}\n"
