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
