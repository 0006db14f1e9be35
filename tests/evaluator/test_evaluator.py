"""End-to-end grading through the real sandbox (no mocks)."""

import json
from dataclasses import replace

import pytest
from evaluator_cases import ADD_IO, CALL_IO

from mcsweep.evaluator import Evaluator, GradeRequest, ProblemFormatError
from mcsweep.evaluator.pool import Job, total_budget
from mcsweep.evaluator.problem import parse_problem
from mcsweep.evaluator.sandbox import Limits

ADD = "a, b = map(int, input().split())\nprint(a + b)\n"
THIRDS_IO = json.dumps(
    {"inputs": ["3\n", "7\n", "9\n"], "outputs": ["0.333333333333\n", "0.142857142857\n", "0.111111111111\n"]}
)
APPEND = "class Solution:\n    def append(self, xs: List[int], y: int) -> List[int]:\n        return xs + [y]\n"


def grade(ev: Evaluator, code: str, io: str = ADD_IO, **kw):
    return ev.grade(GradeRequest("t", code=code, input_output=io, **kw))


@pytest.mark.parametrize(
    "code",
    [
        ADD,
        "import sys\na, b = map(int, sys.stdin.readline().split())\nsys.stdout.write(f'{a+b}\\n')",
        "import sys\na, b = map(int, sys.stdin.buffer.read().split())\nsys.stdout.buffer.write(b'%d\\n' % (a+b))",
        "a, b = map(int, open(0).read().split())\nprint(a + b)",
        "from sys import stdout, stdin\nstdout.write(str(sum(map(int, stdin.read().split()))) + '\\n')",
        "import os\nos.write(1, (str(sum(map(int, input().split()))) + '\\n').encode())",
        "def main():\n    print(sum(map(int, input().split())))\nif __name__ == '__main__':\n    main()",
        "import threading\ndef main():\n    print(sum(map(int, input().split())))\n"
        "threading.Thread(target=main).start()",
        "import sys, threading, time\ndef main():\n    time.sleep(0.2)\n    print(sum(map(int, input().split())))\n"
        "threading.Thread(target=main).start()\nsys.exit()",
        "from concurrent.futures import ThreadPoolExecutor\npool = ThreadPoolExecutor(1)\n"
        "pool.submit(lambda: print(sum(map(int, input().split()))))",
        "import sys\nprint(sum(map(int, input().split())))\nsys.exit(0)",
        "print(sum(map(int, input().split())))\nexit()",
    ],
)
def test_stdin_solutions_in_every_idiom_are_accepted(evaluator, code):
    r = grade(evaluator, code)
    assert (r.passed, r.verdict, r.method, r.shadow) == (True, "accepted", "exact", {"livecodebench": True})
    assert [t.verdict for t in r.tests] == ["accepted"] * 3


def test_call_based_has_leetcode_preimports_and_a_fresh_instance_per_test(evaluator):
    r = grade(evaluator, APPEND, CALL_IO)
    assert r.passed and r.method == "exact_data"
    stateful = APPEND.replace(
        "return xs + [y]", "self.__class__.n = getattr(self, 'n', 0) + 1\n        return xs + [y]"
    )
    assert grade(evaluator, stateful, CALL_IO).passed


def test_tuple_result_is_a_container_difference(evaluator):
    r = grade(evaluator, APPEND.replace("xs + [y]", "tuple(xs + [y])"), CALL_IO)
    assert r.passed and r.method == "containers" and r.shadow == {"livecodebench": True}


def test_eq_hack_object_does_not_pass(evaluator):
    code = (
        "class Any:\n    def __eq__(self, o): return True\nclass Solution:\n    def append(self, xs, y): return Any()"
    )
    r = grade(evaluator, code, CALL_IO)
    assert r.verdict == "wrong_answer" and "not JSON data" in r.tests[0].error
    listy = (
        "class L(list):\n    def __eq__(self, o): return True\nclass Solution:\n    def append(self, xs, y): return L()"
    )
    assert grade(evaluator, listy, CALL_IO).verdict == "wrong_answer"


def test_nonzero_exit_after_correct_output_is_a_runtime_error(evaluator):
    r = grade(evaluator, ADD + "import sys\nsys.exit(3)")
    assert r.verdict == "runtime_error" and "exit status 3" in r.tests[0].error
    r = grade(evaluator, ADD + "import sys\nsys.stdout.flush()\nimport os\nos._exit(1)")
    assert r.verdict == "runtime_error"


def test_os_exit_zero_after_flushing_is_judged_on_its_output(evaluator):
    r = grade(evaluator, ADD + "import sys, os\nsys.stdout.flush()\nos._exit(0)")
    assert r.passed and len(r.tests) == 3
    assert grade(evaluator, ADD + "import os\nos._exit(0)").verdict == "wrong_answer"  # buffer lost


@pytest.mark.parametrize(
    ("code", "verdict"),
    [
        ("a, b = map(int, input().split())\nprint(a - b)", "wrong_answer"),
        ("def f(:\n  pass", "compile_error"),
        ("print(1/0)", "runtime_error"),
        ("while True:\n    pass", "time_limit"),
        ("import time\ntime.sleep(30)", "time_limit"),
        ("x = [0] * (10 ** 10)", "memory_limit"),
        ("raise KeyboardInterrupt", "runtime_error"),
    ],
)
def test_failure_verdicts(early, code, verdict):
    r = grade(early, code)
    assert (r.passed, r.verdict) == (False, verdict)
    assert len(r.tests) == 1  # stops at the first failing test


def test_with_shadows_grading_stops_once_every_comparator_has_failed(evaluator):
    # Both comparators reject the third test: no later test could change either verdict.
    r = grade(evaluator, "a, b = map(int, input().split())\nprint(a + b if a > 0 else 99)")
    assert r.verdict == "wrong_answer" and r.shadow == {"livecodebench": False}
    assert [t.verdict for t in r.tests] == ["accepted", "accepted", "wrong_answer"]
    # Both reject the first test: nothing more runs.
    r = grade(evaluator, "print(0)")
    assert [t.verdict for t in r.tests] == ["wrong_answer"] and r.shadow == {"livecodebench": False}


def test_a_shadow_that_still_accepts_keeps_the_tests_running(evaluator):
    # The strict shadow rejects the first test (other float digits), the robust primary accepts it: every
    # test must run for the primary's verdict, and the shadow's stays failed.
    r = grade(evaluator, "print(1 / int(input()))", THIRDS_IO)
    assert (r.passed, r.shadow) == (True, {"livecodebench": False})
    assert [t.verdict for t in r.tests] == ["accepted"] * 3
    # The primary rejects the first test, the shadow (robust here) accepts it: grading goes on for the
    # shadow, which then fails the second test, and stops there.
    with Evaluator("livecodebench", workers=1, timeout_s=1.0, shadow_comparators=("microcoder",)) as ev:
        r = grade(ev, "x = int(input())\nprint(1 / x if x == 3 else -1 / x)", THIRDS_IO)
    assert r.verdict == "wrong_answer" and r.shadow == {"microcoder": False}
    assert [(t.verdict, t.shadow) for t in r.tests] == [
        ("wrong_answer", {"microcoder": True}),
        ("wrong_answer", {"microcoder": False}),
    ]


def test_run_all_continues_after_a_timeout():
    code = "a, b = map(int, input().split())\nif a == 10:\n    while True: pass\nprint(a + b)"
    with Evaluator(workers=1, timeout_s=0.5, run_all=True) as ev:
        r = grade(ev, code)
    assert [t.verdict for t in r.tests] == ["accepted", "time_limit", "accepted"]
    assert r.verdict == "time_limit"


def test_the_limit_is_cpu_time_and_a_run_kept_waiting_is_not_failed_for_it():
    """``timeout_s`` is the CPU time of a test's tree; the wall limit, three times longer, only ends runs
    that wait. A run held to a CPU it shares with a trainer waits most of its time to be scheduled
    (modelled here by sleeping): with the wall limit equal to the CPU limit, 100 of 100 honest solutions
    spending half their limit in CPU were time_limit beside two training runs (round 14)."""
    spin = "import time\nend = time.process_time() + 0.7\nwhile time.process_time() < end:\n    pass\n"
    with Evaluator(workers=1, timeout_s=0.5) as ev:
        waits = grade(ev, "import time\ntime.sleep(0.7)\n" + ADD)
        spins, hangs = grade(ev, spin + ADD), grade(ev, "import time\ntime.sleep(30)\n" + ADD)
    assert waits.passed, waits.tests
    assert spins.verdict == "time_limit" and "CPU time" in spins.tests[0].error
    assert hangs.verdict == "time_limit" and hangs.tests[0].error == "wall time limit"
    assert 1.4 < hangs.tests[0].time_s < 10.0  # the 3x wall limit (1.5 s), not the CPU limit nor the sleep


def test_an_endless_loop_ends_at_its_cpu_limit_not_a_second_later():
    """With the wall limit 3x the CPU limit, ``RLIMIT_CPU`` ends an endless loop: at ``int(limit) + 1`` it
    ran 1.9 s of a 1 s limit (round 14); now ``SIGXCPU`` comes at the first whole second past the limit."""
    with Evaluator(workers=1, timeout_s=1.0) as ev:
        r = grade(ev, "while True:\n    pass\n")
    cpu = r.tests[0].error
    assert r.verdict == "time_limit" and ("SIGXCPU" in cpu or float(cpu.split()[-2]) < 1.5), cpu


def test_the_default_total_limit_grows_with_the_number_of_tests():
    """Each test within its limit, a solution is never cut by the default total limit: a fixed one (60 s)
    failed an honest solution to a 100-test problem after 77 tests (round 14). Here the fixed part is
    lowered to 1 s and 10 tests take about 1.5 s."""
    io = json.dumps({"inputs": ["1 2\n"] * 10, "outputs": ["3\n"] * 10})
    spin = "import time\nend = time.process_time() + 0.15\nwhile time.process_time() < end:\n    pass\n"
    with Evaluator(workers=1, timeout_s=0.3) as ev:
        ev.limits = replace(ev.limits, total_timeout_s=1.0)
        r = grade(ev, spin + ADD, io)
    assert r.passed and len(r.tests) == 10, [t.error for t in r.tests]
    with Evaluator(workers=1, timeout_s=0.3, total_timeout_s=1.0) as ev:  # a total given is kept
        r = grade(ev, spin + ADD, io)
    assert r.verdict == "time_limit" and r.tests[-1].error.endswith("total time limit")


def test_the_default_total_limit_is_livecodebenchs_not_every_tests_wall_limit():
    """(limit + 1 s) x tests + 5 s, LiveCodeBench's global limit: every test's whole wall limit (3x the CPU
    limit) let a solution sleeping under each test's wall limit hold a worker 3x as long (100 tests at 1 s:
    300 s against 205 s)."""
    io = json.dumps({"inputs": ["1 2\n"] * 100, "outputs": ["3\n"] * 100})
    job = Job("", parse_problem({"input_output": io}), (), (), True)
    assert total_budget(job, Limits(timeout_s=1.0, total_timeout_s=60.0)) == 205.0
    assert total_budget(job, Limits(timeout_s=1.0, total_timeout_s=600.0)) == 600.0


def test_shadow_disagreement_is_visible(evaluator):
    io = json.dumps({"inputs": ["3\n"], "outputs": ["0.333333333333\n"]})
    r = grade(evaluator, "print(1 / int(input()))", io)
    assert r.passed and r.method == "float_tolerance" and r.shadow == {"livecodebench": False}


def test_completion_extraction_and_no_code(evaluator):
    good = GradeRequest("a", completion=f"Here:\n```python\n{ADD}```\n", input_output=ADD_IO)
    none = GradeRequest("b", completion="The answer is 3.", input_output=ADD_IO)
    a, b = evaluator.grade_many([good, none])
    assert a.passed and (b.passed, b.verdict, b.tests) == (False, "no_code", [])


def test_results_keep_request_order_across_a_batch(evaluator):
    requests = [GradeRequest(str(i), code=ADD if i % 3 else "print(0)", input_output=ADD_IO) for i in range(12)]
    results = evaluator.grade_many(requests)
    assert [r.id for r in results] == [str(i) for i in range(12)]
    assert [r.passed for r in results] == [bool(i % 3) for i in range(12)]


def test_malformed_problem_raises_naming_request_and_field(evaluator):
    bad = GradeRequest("bad-1", code=ADD, input_output=json.dumps({"inputs": ["1"]}))
    with pytest.raises(ProblemFormatError, match="bad-1") as info:
        evaluator.grade_many([bad])
    assert info.value.field == "input_output.outputs"


def test_problem_record_field(evaluator):
    r = evaluator.grade(GradeRequest("p", code=ADD, problem={"tests": [{"input": "2 2\n", "output": "4\n"}]}))
    assert r.passed


def test_isolation_is_reported(evaluator):
    iso = evaluator.isolation
    assert iso.uid_switch == iso.net_namespace == iso.mount_namespace == (iso.errors == [])


def test_large_input_and_output_pass_through(evaluator):
    numbers = list(range(200_000))
    io = json.dumps({"inputs": [" ".join(map(str, numbers)) + "\n"], "outputs": ["\n".join(map(str, numbers)) + "\n"]})
    r = grade(evaluator, "import sys\nprint('\\n'.join(sys.stdin.read().split()))", io)
    assert r.passed, r.tests


def test_call_based_module_failure_fails_every_test_once():
    with Evaluator(workers=1, timeout_s=1.0, run_all=True) as ev:
        r = grade(ev, "raise RuntimeError('at import')\n" + APPEND, CALL_IO)
    assert [t.verdict for t in r.tests] == ["runtime_error"] * 3
    assert all("at import" in t.error for t in r.tests)


def test_run_all_reports_every_test_even_after_a_compile_error():
    with Evaluator(workers=1, timeout_s=0.5, run_all=True, total_timeout_s=1.2) as ev:
        bad = grade(ev, "def f(:\n")
        slow = grade(ev, "import time\ntime.sleep(0.45)\n" + ADD)
    assert [t.verdict for t in bad.tests] == ["compile_error"] * 3
    assert [t.index for t in slow.tests] == [0, 1, 2] and slow.verdict == "time_limit"
    assert slow.tests[-1].verdict == "time_limit"


COIN = "import random\nprint(sum(map(int, input().split())) if random.random() < 0.5 else 0)\n"


def test_dedupe_runs_identical_code_once_per_problem_and_batch():
    """A coin-flip solution: copies graded separately disagree (all 16 alike has odds 2**-15); with
    dedupe they share one run, and the same code on another problem still runs on its own."""
    one_test = json.dumps({"inputs": ["2 2\n"], "outputs": ["4\n"]})
    requests = [GradeRequest(f"c{i}", code=COIN, input_output=one_test) for i in range(16)]
    requests += [
        GradeRequest("add", code=ADD, input_output=ADD_IO),
        GradeRequest("one", code=ADD, input_output=one_test),
    ]
    for dedupe in (False, True):
        with Evaluator(comparator="livecodebench", workers=2, timeout_s=1.0, dedupe=dedupe) as ev:
            results = ev.grade_many(requests)
            coins = {r.passed for r in results[:16]}
            assert (len(coins) == 1) is dedupe
            assert results[16].passed and results[17].passed and [r.id for r in results] == [q.id for q in requests]
            assert ev.duplicates == (15 if dedupe else 0)


def test_a_comparator_that_fails_to_compare_fails_only_itself_and_a_grader_bug_is_loud(monkeypatch):
    """All comparators were judged in one try block: a shadow that raised turned the primary's accepted
    answer into a wrong one (a reward of 0), with no log and no count. A data error (what crafted output
    makes a comparison raise) now fails that comparator alone; any other exception is the grader's bug, a
    logged and counted sandbox_error."""
    from mcsweep.evaluator.comparators import LiveCodeBench

    add = "a, b = map(int, input().split())\nprint(a + b)"
    with Evaluator(workers=1, timeout_s=2.0, shadow_comparators=("livecodebench",)) as ev:
        monkeypatch.setattr(LiveCodeBench, "stdin", lambda *args: int("not a number"))
        result = ev.grade(GradeRequest("data", code=add, input_output=ADD_IO))
        assert result.verdict == "accepted" and result.shadow == {"livecodebench": False}, result
        assert "livecodebench: ValueError" in result.tests[0].error

        def broken(*args):
            raise KeyError("a bug")

        monkeypatch.setattr(LiveCodeBench, "stdin", broken)
        result = ev.grade(GradeRequest("bug", code=add, input_output=ADD_IO))
        assert result.verdict == "sandbox_error" and ev.sandbox_errors == 1, result
