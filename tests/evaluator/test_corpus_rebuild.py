"""The committed ``labelled.jsonl`` is what ``evaluator_corpus/build.py`` builds from the case files."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from mcsweep.evaluator.accuracy import CATEGORIES, CORPUS

SCRIPT = Path(__file__).resolve().parents[2] / "evaluator_corpus" / "build.py"


def load_build_script() -> ModuleType:
    """The build script is a developer tool outside the package, so it is loaded by path."""
    spec = importlib.util.spec_from_file_location("evaluator_corpus_build", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = load_build_script()


def test_rebuild_equals_the_committed_corpus_byte_for_byte():
    assert build.OUT.resolve() == CORPUS.resolve()  # it writes the file the accuracy command reads
    rebuilt = build.render(build.load_cases()).encode("utf-8")
    assert rebuilt == CORPUS.read_bytes(), "labelled.jsonl is stale: run python evaluator_corpus/build.py"


def test_labels_follow_from_every_category_the_accuracy_report_uses():
    assert set(build.LABELS) == set(CATEGORIES)
    for case in build.load_cases():
        assert case["label"] == build.LABELS[case["category"]], case["id"]


def test_a_call_based_hack_takes_the_problem_method_name():
    cases = {c["id"]: c for c in build.load_cases()}
    assert "def twoSum(self, *args):" in cases["call_two_sum-14"]["code"]
    assert build.METHOD_PLACEHOLDER not in "".join(c.get("code", "") for c in cases.values())


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the case tree to break."""
    shutil.copytree(SCRIPT.parent / "problems", tmp_path / "problems")
    shutil.copytree(SCRIPT.parent / "hacks", tmp_path / "hacks")
    return tmp_path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("00_correct.py", "00_corect.py", "00_corect.py: unknown category 'corect'"),
        ("01_correct.py", "02_correct.py", "02_correct.py: name it 01_<category>.py"),  # a gap
        ("00_correct.py", "00.py", "00.py: name it 00_<category>.py"),
        ("nocode-0_runtime.md", "0_runtime.md", "0_runtime.md: name it <name>_<category>.md"),
        ("00_correct.py", "00_correct.txt", "not a case file or problem.json: 00_correct.txt"),
    ],
)
def test_a_misnamed_case_file_is_an_error_naming_it(tree: Path, old: str, new: str, message: str):
    folder = tree / "problems" / "stdin_sum"
    (folder / old).rename(folder / new)
    with pytest.raises(build.CorpusError, match=re.escape(message)):
        build.load_cases(tree)


def test_a_case_without_its_note_line_is_an_error(tree: Path):
    case = tree / "problems" / "stdin_sum" / "03_incorrect.py"
    case.write_text(case.read_text().partition("\n")[2])
    with pytest.raises(build.CorpusError, match=re.escape("03_incorrect.py: the first line must be the note")):
        build.load_cases(tree)


def test_a_call_based_hack_without_the_placeholder_method_is_an_error(tree: Path):
    hack = tree / "hacks" / "call" / "02_returns_none.py"
    hack.write_text(hack.read_text().replace(build.METHOD_PLACEHOLDER, "solve"))
    with pytest.raises(build.CorpusError, match=re.escape("02_returns_none.py: a call-based hack must define")):
        build.load_cases(tree)
