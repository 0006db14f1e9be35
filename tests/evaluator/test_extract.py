import pytest

from mcsweep.evaluator import extract_code


def test_last_python_block_wins():
    text = "```python\nprint(1)\n```\nthen\n```python\nprint(2)\n```\n"
    assert extract_code(text) == "print(2)\n"


def test_other_languages_are_ignored_and_closing_fence_is_not_an_opening():
    text = "```python\nprint(1)\n```\n```cpp\nint main(){}\n```\n"
    assert extract_code(text) == "print(1)\n"


def test_unlabelled_block_only_without_a_labelled_one():
    assert extract_code("```\nx = 1\n```") == "x = 1\n"
    assert extract_code("```py\na\n```\n```\nb\n```") == "a\n"


def test_no_code():
    assert extract_code("I think the answer is 42.") is None
    assert extract_code("```python\n   \n```") is None
    assert extract_code("```python\nprint(1)\n") is None  # unclosed: truncated completion


@pytest.mark.parametrize("sep", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_only_newlines_end_a_line_as_in_python(sep):
    """str.splitlines() also breaks at these: a string literal holding one became a syntax error once
    the block was joined again, and a fence after one closed the block early."""
    code = f"s = 'a{sep}b'\nprint(len(s))\n"
    assert extract_code(f"```python\n{code}```\n") == code
    compile(code, "<solution>", "exec")
    assert extract_code(f"```python\nx = 1 #{sep}```\ny = 2\n```\n") == f"x = 1 #{sep}```\ny = 2\n"


def test_windows_line_ends_are_read_as_newlines():
    assert extract_code("```python\r\nprint(1)\r\n```\r\n") == "print(1)\n"


_DRAFT = "```python\nprint(int(input()) * 2)\n```\n"


@pytest.mark.parametrize(
    "completion",
    [
        f"<think>\nA draft:\n{_DRAFT}But what about the constraints? Let me reconsider",  # cut off mid-thought
        f"<think>\n{_DRAFT}That works.\n</think>\nDouble the number.",  # the answer holds no code
        f"A draft:\n{_DRAFT}</think>\nDouble the number.",  # the template opened <think> in the prompt
    ],
)
def test_code_in_the_reasoning_is_not_the_answer(completion):
    """A draft block in the reasoning was graded, and accepted, for completions that gave no code as
    their answer (or no answer at all, cut off while reasoning)."""
    assert extract_code(completion) is None


def test_the_answer_after_the_reasoning_is_graded():
    wrong = "```python\nprint(0)\n```\n"
    assert extract_code(f"<think>\n{wrong}</think>\n{_DRAFT}") == "print(int(input()) * 2)\n"
    assert extract_code(f"<think>\n{_DRAFT}</think>\n{wrong}") == "print(0)\n"
    tagged = "```python\nprint('</think>')\n```\n"  # the tag in the answer's code: the reasoning ended before
    assert extract_code(f"<think>\nhm\n</think>\n{tagged}") == "print('</think>')\n"
    assert extract_code(f"Intro <think> is a tag.\n{_DRAFT}") == "print(int(input()) * 2)\n"  # no reasoning


@pytest.mark.parametrize(
    "completion",
    [
        f"Let me think.\n</think>\nMy plan.\n<think>\n{_DRAFT}Now check it against",  # a second one, cut off
        f"hm\n</think>\nDouble it.\n<think>\n{_DRAFT}</think>\nDone.",  # a second one, closed; the answer has no code
        f"Sure.\n<think>\n{_DRAFT}but wait, the constraints",  # opened after a preface, cut off
        f"Sure.\n  <think>\n{_DRAFT}</think>\nDouble the number.",
    ],
)
def test_code_in_any_reasoning_is_not_the_answer(completion):
    """Only a reasoning at the very start was taken out (a red-team round, 2026-12-06): a draft in a second
    one, or in one opened after a preface, was graded, and accepted for an answer holding no code."""
    assert extract_code(completion) is None


def test_what_surrounds_a_later_reasoning_is_the_answer():
    wrong = "```python\nprint(0)\n```\n"
    assert extract_code(f"{wrong}<think>\nhm, is it right? Maybe") == "print(0)\n"  # cut off after the answer
    assert extract_code(f"<think>\na\n</think>\n{wrong}<think>\n{_DRAFT}</think>\nDone.") == "print(0)\n"
    assert extract_code(f"<think>\na\n</think>\n<think>\n{wrong}</think>\n{_DRAFT}") == "print(int(input()) * 2)\n"


@pytest.mark.parametrize(
    "completion",
    [
        "````python\nprint(1)\n````\nDone.",  # four backticks: code that holds "```" needs them
        "```python\nprint(1)\n````\nDone.",  # closed by a longer fence
        "~~~python\nprint(1)\n~~~\nDone.",
        '```python title="solution.py"\nprint(1)\n```\nDone.',  # the language is the info string's first word
        "````python\nprint(1)\n```\n````\n",  # a shorter fence is part of the block (here: ```)
    ],
)
def test_every_fence_a_reader_sees_is_a_block(completion):
    """Only "```" closed by exactly "```" was a block: these were no_code, a right answer unrewarded and a
    wrong one, cut off after it, spared by the truncation mask as no answer (a red-team round, 2026-12-06)."""
    code = extract_code(completion)
    assert code is not None and code.startswith("print(1)\n")


def test_a_fence_closes_only_with_its_own_character_and_no_info():
    assert extract_code("~~~python\nx = 1\n```\ny = 2\n~~~\n") == "x = 1\n```\ny = 2\n"
    assert extract_code("```python\nx = '''\n```python\n'''\n```\n") == "x = '''\n```python\n'''\n"
    assert extract_code("```x``` is inline code\n```python\nprint(2)\n```\n") == "print(2)\n"
