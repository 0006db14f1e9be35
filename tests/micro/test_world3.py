"""World 3: constants stated as sums to work out, so reasoning is longer and more often right.

Checked on the generator and the warm-start data (the real sandbox grades the completions); the
step-0 policy's numbers are in docs/micro_world.md (`python -m mcsweep.micro stats`)."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from mcsweep.evaluator import Evaluator, GradeRequest
from mcsweep.micro import arithmetic
from mcsweep.micro.policy import PolicySpec
from mcsweep.micro.problems import Step, WorldSpec, chain_signature, held_out_pairs, problem_completion
from mcsweep.micro.world import problem_set

V3 = WorldSpec(version=3)


def test_expressions_are_single_digit_steps_with_small_totals_that_end_at_k():
    rng = random.Random(0)
    for k in (1, 2, 3, 4, 5, 6, 7, 10):
        for _ in range(200):
            expr = arithmetic.expression(k, rng)
            terms = arithmetic.terms(expr)
            totals = list(itertools.accumulate(terms))
            assert len(terms) in arithmetic.TERM_COUNTS and totals[-1] == k
            assert all(1 <= abs(t) <= arithmetic.MAX_TERM for t in terms)
            assert all(1 <= v <= arithmetic.MAX_PARTIAL for v in totals)


def test_worked_steps_are_right_and_forms_are_told_apart():
    worked = arithmetic.plan_line("9-4+2", shortcut=False)
    shortcut = arithmetic.plan_line("9-4+2", shortcut=True)
    assert worked == "   9-4=5, 5+2=7, so k=7." and shortcut == "   k = 9-4+2 = 7."
    assert arithmetic.reasoning_form(worked) == "worked" and arithmetic.reasoning_form(shortcut) == "shortcut"
    assert arithmetic.reasoning_form("Plan:\nNo constants to work out.") == "none"
    assert arithmetic.steps_correct(worked) and not arithmetic.steps_correct("   9-4=6, 6+2=8, so k=8.")


def test_statements_give_constants_as_expressions_the_plan_works_out():
    rng = random.Random(1)
    forms = []
    for p in problem_set("sft", V3, 300):
        exprs = p["meta"]["exprs"]
        chain = [Step(op, k) for op, k in p["meta"]["chain"]]
        assert [e is None for e in exprs] == [s.k is None for s in chain]
        for step, expr in zip(chain, exprs, strict=True):
            if expr is not None:
                assert f"({expr})" in p["question"] and sum(arithmetic.terms(expr)) == step.k
        text = problem_completion(p, rng, 3)
        forms.append(arithmetic.reasoning_form(text))
        assert arithmetic.steps_correct(text)
    share = {f: forms.count(f) / len(forms) for f in ("worked", "shortcut", "none")}
    assert 0.35 < share["worked"] < 0.75 and 0.15 < share["shortcut"] < 0.45 and share["none"] < 0.4, share


def test_world_3_draws_more_constants_than_world_2_and_keeps_its_split():
    def consts(spec):
        return sum(k is not None for p in problem_set("hard", spec, 400) for _, k in p["meta"]["chain"]) / 400

    assert consts(V3) > 1.3 * consts(WorldSpec(version=2))
    tasks = {
        name: {chain_signature([Step(op, k) for op, k in p["meta"]["chain"]]) for p in problem_set(name, V3, 400)}
        for name in ("sft", "hard", "test")
    }
    assert not tasks["test"] & (tasks["sft"] | tasks["hard"]) and not tasks["sft"] & tasks["hard"]
    pairs = held_out_pairs(V3)
    assert all(not set(itertools.pairwise(op for op, _ in p["meta"]["chain"])) & pairs for p in problem_set("hard", V3))


def test_world_3_reasoning_is_what_outgrows_the_short_context():
    """The context axis's mechanism in the data: hard answers that work their constants out are cut at
    the short length far more often than those that write them at once, and the tail reaches the
    middle length; answers with no constant to work out stay under the short length."""
    from mcsweep.gpu.__main__ import compose_run_config
    from mcsweep.micro.stats import build_tokenizer

    sizes = compose_run_config([]).sizes
    tokenizer = build_tokenizer(PolicySpec(world=V3))
    rng = random.Random(0)
    by_form: dict[str, list[int]] = {}
    for p in problem_set("hard", V3):
        if p["difficulty"] == "hard":
            text = problem_completion(p, rng, 3)
            by_form.setdefault(arithmetic.reasoning_form(text), []).append(len(tokenizer(text).input_ids) + 1)
    cut = {f: sum(n > sizes.ctx_short for n in v) / len(v) for f, v in by_form.items()}
    assert cut["worked"] > 0.3 and cut["worked"] > 2 * cut["shortcut"] and cut["none"] < 0.05, cut
    assert 0.01 < sum(n > sizes.ctx_mid for n in by_form["worked"]) / len(by_form["worked"]) < 0.2


@pytest.fixture(scope="module")
def judge():
    with Evaluator(comparator="microcoder", workers=2, shadow_comparators=("livecodebench",)) as ev:
        yield ev


def test_warm_start_answers_are_correct(judge):
    """Worked or not, every warm-start completion computes the right constants: the code's constant
    is the statement's expression's value, and the robust judge accepts every answer."""
    rng = random.Random(2)
    probs = problem_set("sft", V3, 200)
    texts = [problem_completion(p, rng, 3) for p in probs]
    pairs = zip(probs, texts, strict=True)
    requests = [GradeRequest(id=p["id"], completion=t, input_output=p["input_output"]) for p, t in pairs]
    results = judge.grade_many(requests)
    assert [p["id"] for p, r in zip(probs, results, strict=True) if not r.passed] == []
    assert any(re.search(r"so k=\d+", t) for t in texts)


def test_world_3_completions_need_the_problems_expressions():
    with pytest.raises(ValueError, match="exprs"):
        from mcsweep.micro.problems import completion_text

        completion_text([Step("add", 3)], "stdin", random.Random(0), 3)
