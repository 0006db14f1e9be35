import base64
import json
import pickle
import zlib

import pytest

from mcsweep.evaluator import ProblemFormatError, parse_problem
from mcsweep.evaluator.problem import decode_private_tests


def _private(obj: object, protocol: int = 4) -> str:
    return base64.b64encode(zlib.compress(pickle.dumps(obj, protocol=protocol))).decode()


def test_input_output_string_stdin_and_call():
    p = parse_problem({"input_output": json.dumps({"inputs": ["1\n"], "outputs": ["2\n"]})})
    assert not p.call_based and p.tests[0].input == "1\n" and p.tests[0].output == "2\n"
    p = parse_problem({"input_output": {"inputs": ["[1]"], "outputs": ["1"], "fn_name": "f"}})
    assert p.call_based and p.fn_name == "f"


def test_plain_tests_dict_and_list():
    assert len(parse_problem({"tests": {"inputs": ["a", "b"], "outputs": ["1", "2"]}}).tests) == 2
    assert parse_problem({"tests": [{"input": "x", "output": "y"}]}).tests[0].output == "y"


def test_livecodebench_public_and_compressed_private_fields():
    public = json.dumps([{"input": "1\n", "output": "1\n", "testtype": "stdin"}])
    private = _private(json.dumps([{"input": "2\n", "output": "4\n", "testtype": "stdin"}]))
    p = parse_problem({"public_test_cases": public, "private_test_cases": private, "metadata": "{}"})
    assert [t.output for t in p.tests] == ["1\n", "4\n"] and not p.call_based
    functional = json.dumps([{"input": "[1]", "output": "2", "testtype": "functional"}])
    p = parse_problem({"public_test_cases": functional, "metadata": json.dumps({"func_name": "twice"})})
    assert p.fn_name == "twice"


def test_private_tests_refuse_pickled_globals(tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    with pytest.raises(ProblemFormatError, match="not allowed"):
        decode_private_tests(_private(Evil()))
    assert not marker.exists()
    with pytest.raises(ProblemFormatError, match="pickle holds list"):
        decode_private_tests(_private([1, 2]))


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"input_output": "{not json"}, "input_output"),
        ({"input_output": json.dumps({"inputs": ["1"]})}, "input_output.outputs"),
        ({"input_output": json.dumps({"inputs": ["1"], "outputs": []})}, "input_output"),
        ({"input_output": json.dumps({"inputs": [], "outputs": []})}, "input_output"),
        (
            {"input_output": json.dumps({"inputs": ["1"], "outputs": ["1"], "fn_name": "a b"})},
            "input_output.fn_name",
        ),
        ({"input_output": json.dumps({"inputs": [None], "outputs": ["1"]})}, "input_output.inputs[0]"),
        ({"private_test_cases": "%%%"}, "private_test_cases"),
        (
            {"public_test_cases": json.dumps([{"input": "1", "output": "1", "testtype": "functional"}])},
            "metadata.func_name",
        ),
        ({"question": "no tests"}, "input_output"),
        (
            {"input_output": json.dumps({"inputs": ["[1]\nnope"], "outputs": ["1"], "fn_name": "f"})},
            "input_output.inputs[0]",
        ),
        (
            {"input_output": json.dumps({"inputs": ["[1]"], "outputs": ["Yes"], "fn_name": "f"})},
            "input_output.outputs[0]",
        ),
    ],
)
def test_malformed_problems_name_the_field(record, field):
    with pytest.raises(ProblemFormatError) as info:
        parse_problem(record)
    assert info.value.field == field


_BIG = "1" * 5000  # past CPython's 4,300-digit limit for int/str conversion: json.loads raises ValueError
_DEEP = "[" * 100_000 + "]" * 100_000  # past the recursion limit: json.loads raises RecursionError


def _call(inputs: list[str], outputs: list[str]) -> dict[str, str]:
    return {"input_output": json.dumps({"inputs": inputs, "outputs": outputs, "fn_name": "f"})}


@pytest.mark.parametrize(
    ("record", "field"),
    [
        (_call(["1"], [_BIG]), "input_output.outputs[0]"),
        (_call([_BIG], ["1"]), "input_output.inputs[0]"),
        (_call(["1"], [_DEEP]), "input_output.outputs[0]"),
        ({"input_output": '{"inputs": ["1"], "outputs": [' + _BIG + "]}"}, "input_output"),
        ({"input_output": '{"inputs": ["1"], "outputs": ' + _DEEP + "}"}, "input_output"),
        ({"input_output": {"inputs": ["1"], "outputs": [10**5000]}}, "input_output.outputs[0]"),
    ],
)
def test_json_that_json_loads_refuses_is_a_problem_format_error(record, field):
    """json.loads refuses a 5,000-digit integer with a bare ValueError and deep nesting with RecursionError;
    both escaped parse_problem (and Evaluator.grade_many) as themselves, so the data pipeline, which drops a
    problem only on ProblemFormatError, stopped on the first such problem."""
    with pytest.raises(ProblemFormatError) as err:
        parse_problem(record)
    assert err.value.field == field


@pytest.mark.parametrize(
    "raw",
    [
        b"Vabc\npg\n.",  # ValueError
        b"V\xe4b\x81\np\x80\n.",  # UnicodeDecodeError
        b"\x8dabc\n\x8b0\n\xac",  # OverflowError
        b"Vab]\n\x980\n.",  # TypeError
        b"\x8eabc\n@\xf6\n.",  # MemoryError
        b"\x80\x04G\x07\x00\x00\x00\x00\x00\x00\x00\x8c\x03Hbc\x94a",  # AttributeError
        pickle.dumps(b"\xff"),  # bytes that are not UTF-8
    ],
)
def test_a_damaged_private_test_pickle_is_a_problem_format_error(raw):
    """One-byte corruptions of a pickled string raise these, not only UnpicklingError."""
    blob = base64.b64encode(zlib.compress(raw)).decode()
    with pytest.raises(ProblemFormatError) as err:
        decode_private_tests(blob)
    assert err.value.field == "private_test_cases"


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"input_output": json.dumps({"inputs": ["\ud800\n"], "outputs": ["1\n"]})}, "input_output.inputs[0]"),
        ({"input_output": {"inputs": ["1\n"], "outputs": ["x\udfff\n"]}}, "input_output.outputs[0]"),
        ({"tests": [{"input": "1\n", "output": "\ud83d"}]}, "tests[0][1]"),
        (_call(["1"], ['"\ud800"']), "input_output.outputs[0]"),
        ({"input_output": {"inputs": ["1"], "outputs": ["1"], "fn_name": "class"}}, "input_output.fn_name"),
        # Python defines the method as NFKC("\ufb01nd") == "find": no solution has "\ufb01nd"
        ({"input_output": {"inputs": ["1"], "outputs": ["1"], "fn_name": "\ufb01nd"}}, "input_output.fn_name"),
    ],
)
def test_test_data_no_solution_could_pass_is_a_problem_format_error(record, field):
    """Text that is no UTF-8 (a lone surrogate, which a JSON ``\\ud800`` escape gives) can be neither fed to a
    program nor written by one, and a keyword names no method: each made every solution to the problem a
    ``sandbox_error`` (a zygote restart each) or a ``runtime_error``, where a malformed record must be a
    ``ProblemFormatError`` naming the field (round 14)."""
    with pytest.raises(ProblemFormatError) as info:
        parse_problem(record)
    assert info.value.field == field


def test_an_escaped_surrogate_in_call_based_json_is_data():
    """Escaped inside the JSON text, a surrogate is ASCII text and a string a solution can return."""
    assert parse_problem(_call(['"\\ud800"'], ['"\\ud800"'])).tests[0].output == '"\\ud800"'
