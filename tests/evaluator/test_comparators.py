import pytest

from mcsweep.evaluator import LiveCodeBench, MicroCoder, make_comparator
from mcsweep.evaluator.comparators import ReturnedSet, decode_tagged, same_token_count

LCB, MC = LiveCodeBench(), MicroCoder()


@pytest.mark.parametrize(
    ("out", "exp", "ok"),
    [
        ("3\n", "3", True),
        ("  1 2  \n3 \n", "1 2\n3", True),  # whole text and each line stripped
        ("1.0\n", "1\n", True),  # Decimal per token
        ("1e2 5\n", "100 5\n", True),
        ("0.3333333333\n", "0.333333333\n", False),  # no tolerance
        ("1 2\n", "1\n2\n", False),  # line count
        ("Yes\n", "yes\n", False),
        ("1\n\n2\n", "1\n2\n", False),
    ],
)
def test_livecodebench_stdin_rules(out, exp, ok):
    assert (LCB.stdin(out, exp) is not None) is ok


def test_signalling_nan_is_just_a_wrong_answer():
    assert LCB.stdin("sNaN\n", "sNaN\n") == "exact_lines"
    assert LCB.stdin("sNaN\n", "3\n") is None
    assert MC.stdin("sNaN\n", "3.0\n") is None


def test_livecodebench_decimal_accepts_spacing_within_line():
    assert LCB.stdin("1  2\n", "1 2\n") == "decimal"  # both lines tokenise to the same Decimals


@pytest.mark.parametrize(
    ("got", "exp", "ok"),
    [
        ((1, 2), [1, 2], True),  # top-level tuple becomes a list
        ([(1, 2)], [[1, 2]], False),  # nested tuples do not
        (True, 1, True),  # Python ==
        (2, 2.0, True),
        ("[1, 2]", [1, 2], False),
        (frozenset({1}), [1], False),
    ],
)
def test_livecodebench_call_rules(got, exp, ok):
    assert (LCB.call(got, exp) is not None) is ok


@pytest.mark.parametrize(
    ("out", "exp", "method"),
    [
        ("3\n", "3\n", "exact"),
        ("3", "3\n", "trailing_whitespace"),
        ("1 2  \r\n3\r\n", "1 2\n3\n", "trailing_whitespace"),
        ("1    2\n3\n", "1 2\n3\n", "whitespace_tokens"),
        ("1 2 3\n", "1\n2\n3\n", "token_stream"),
        ("0.33333333\n", "0.333333333333\n", "float_tolerance"),
        ("3.0000001\n", "3.0\n", "float_tolerance"),
        # strict: case, missing/extra lines, duplicates, order, integers
        ("yes\n", "Yes\n", None),
        ("1\n2\n", "1\n2\n3\n", None),
        ("1\n2\n3\n3\n", "1\n2\n3\n", None),
        ("2 1\n", "1 2\n", None),
        ("3.0\n", "3\n", None),
        ("1000001\n", "1000000\n", None),
        ("nan\n", "0.5\n", None),
        ("5e-1\n", "0.5\n", "float_tolerance"),
        ("-0.5000001\n", "-0.5\n", "float_tolerance"),
        # a number as no program prints it, though float() reads it: leading zeros, '+', '_', bare '.5',
        # fullwidth or Arabic-Indic digits
        ("00.5\n", "0.5\n", None),
        ("+0.5\n", "0.5\n", None),
        ("0_0.5\n", "0.5\n", None),
        (".5\n", "0.5\n", None),
        ("\uff10.\uff15\n", "0.5\n", None),
        ("\u0660.\u0665\n", "0.5\n", None),
    ],
)
def test_microcoder_stdin_chain(out, exp, method):
    assert MC.stdin(out, exp) == method


def test_microcoder_unordered_only_when_declared():
    assert MC.stdin("2\n1\n", "1\n2\n") is None
    assert MC.stdin("2\n1\n", "1\n2\n", order_irrelevant=True) == "unordered_lines"
    assert MC.stdin("1\n1\n", "1\n2\n", order_irrelevant=True) is None
    assert MC.call([3, 1], [1, 3]) is None
    assert MC.call([3, 1], [1, 3], order_irrelevant=True) == "unordered_items"
    assert MC.call(frozenset({1, 3}), [1, 3], order_irrelevant=True) == "unordered_items"
    assert MC.call([1, 1], [1, 3], order_irrelevant=True) is None


@pytest.mark.parametrize(
    ("got", "exp", "method"),
    [
        ([1, 2], [1, 2], "exact_data"),
        ((1, 2), [1, 2], "containers"),
        ([(1, 2), (3, 4)], [[1, 2], [3, 4]], "containers"),
        (0.30000000000000004, 0.3, "float_values"),
        (2, 2.0, "float_values"),
        ([0.1 + 0.2, 1], [0.3, 1], "float_values"),
        (True, 1, None),
        (1, True, None),
        (2.0, 2, None),
        ("[1, 2]", [1, 2], None),
        ("1", 1, None),
        ([1, 2], [2, 1], None),
        ({"a": 1}, {"a": 1.0}, "float_values"),
        ({"a": 1}, {"b": 1}, None),
        (None, [], None),
        (frozenset({1, 2}), [1, 2], None),
    ],
)
def test_microcoder_call_chain(got, exp, method):
    assert MC.call(got, exp) == method


def test_tolerance_is_configurable():
    tight = make_comparator("microcoder", rtol=0.0, atol=1e-12)
    assert tight.stdin("0.33333333\n", "0.333333333333\n") is None
    loose = make_comparator("microcoder", rtol=1e-3, atol=0.0)
    assert loose.call(100.05, 100.0) == "float_values"
    with pytest.raises(ValueError, match="unknown comparator"):
        make_comparator("exact")


def test_tagged_json_keeps_tuples_and_sets():
    assert decode_tagged('{"$tuple": [1, {"$tuple": [2]}]}') == (1, (2,))
    assert decode_tagged('{"$set": [2, 1]}').items == (2, 1)
    assert decode_tagged('{"$dict": [["$tuple", [1]], ["x", 2]]}') == {"$tuple": [1], "x": 2}
    with pytest.raises(ValueError):  # an untagged object cannot come from the sandbox
        decode_tagged('{"$tuple": [1], "x": 2}')


def test_a_returned_set_is_decoded_without_hashing_its_items():
    """Its items are the solution's choice: all multiples of 2**61 - 1 hash to 0, and building a frozenset
    of 24,000 of them took the grader 8 s. Unhashable items show that nothing is hashed; the set equals
    no expected value and counts as a multiset only where order is irrelevant."""
    returned = decode_tagged('{"$set": [[2], [1]]}')
    assert isinstance(returned, ReturnedSet) and returned.items == ([2], [1])
    assert LCB.call(returned, [[2], [1]]) is None and MC.call(returned, [[2], [1]]) is None
    assert MC.call(returned, [[1], [2]], order_irrelevant=True) == "unordered_items"
    assert MC.call(decode_tagged('{"$set": [1, 3]}'), [1, 2], order_irrelevant=True) is None


@pytest.mark.parametrize(
    "output",
    ["", "   ", "1 2 3", " 1 2 3 ", "1 2", "1 2 3 4", "1\u20282\u00a03", "1\x1c2\x0b3\n", "123", "1 2 3" + " " * 9999],
)
def test_token_count_is_str_splits(output):
    """Both comparators' first check counts tokens as str.split does, Unicode whitespace included."""
    assert same_token_count(output, "a b c") is (len(output.split()) == 3)
    assert same_token_count(output, "") is (not output.split())


def test_an_answer_padded_with_a_flood_of_spaces_is_judged_on_its_tokens():
    padded = "1 2 3" + " " * (4 << 20) + "\n"
    assert MC.stdin(padded, "1 2 3\n") == "trailing_whitespace"
    assert LCB.stdin(padded, "1 2 3\n") == "exact_lines"
    assert MC.stdin("1 2 4" + " " * (4 << 20), "1 2 3\n") is None
    assert MC.stdin("1" + " " * (4 << 20) + "2 3\n", "1 2 3\n") == "whitespace_tokens"
