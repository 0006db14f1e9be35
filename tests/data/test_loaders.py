"""Each loader on a fixture in its source's exact schema, including LCB's compressed private tests."""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path

import pytest
from datafix import (
    CODEFORCES_SCHEMA,
    DEEPCODER_SCHEMA,
    VERIFIABLE_SCHEMA,
    codeforces_rows,
    deepcoder_rows,
    lcb_row,
    verifiable_rows,
    write_lcb,
    write_parquet,
)

from mcsweep.data.loaders import (
    decode_lcb_private,
    lcb_release_files,
    load_deepcoder,
    load_livecodebench,
    load_open_r1_codeforces,
    load_open_r1_verifiable,
)
from mcsweep.data.schema import SchemaError


@pytest.fixture
def lcb_root(tmp_path: Path) -> Path:
    files = {
        "test.jsonl": [lcb_row("abc301_a", "2023-05-13")],
        "test2.jsonl": [lcb_row("abc350_b", "2024-04-20")],
        "test3.jsonl": [],
        "test4.jsonl": [],
        "test5.jsonl": [lcb_row("3311", "2024-12-01", call=True)],
        "test6.jsonl": [lcb_row("abc390_c", "2025-02-01"), lcb_row("abc395_d", "2025-04-05")],
    }
    return write_lcb(tmp_path / "code_generation_lite", files)


def test_release_files_cumulative_single_and_range() -> None:
    assert lcb_release_files("release_v6") == [f"test{s}.jsonl" for s in ("", 2, 3, 4, 5, 6)]
    assert lcb_release_files("v6") == ["test6.jsonl"]
    assert lcb_release_files("v5_v6") == ["test5.jsonl", "test6.jsonl"]
    with pytest.raises(ValueError, match="release_v9"):
        lcb_release_files("release_v9")


def test_lcb_v6_with_dates_and_compressed_private_tests(lcb_root: Path) -> None:
    every = load_livecodebench(lcb_root, "release_v6")
    ids = ["lcb-abc301_a", "lcb-abc350_b", "lcb-3311", "lcb-abc390_c", "lcb-abc395_d"]
    assert [p.id for p in every] == ids
    windowed = load_livecodebench(lcb_root, "release_v6", start_date="2024-08-01", end_date="2025-02-01")
    assert [p.id for p in windowed] == ["lcb-3311", "lcb-abc390_c"]
    stdin = every[0]
    assert stdin.fmt == "stdin" and stdin.n_tests == 4  # 1 public + 3 private, decoded from zlib/pickle
    assert stdin.tests["outputs"][-1] == "4\n"
    assert json.loads(stdin.public_input_output)["inputs"] == ["1 2\n"]
    call = every[2]
    assert call.fmt == "call" and call.tests["fn_name"] == "total" and call.tests["inputs"][0] == "[1, 2]\n3"
    assert call.contest_date == "2024-12-01" and call.platform == "leetcode"


def test_lcb_accepts_plain_json_private_tests() -> None:
    assert decode_lcb_private('[{"input": "1", "output": "1", "testtype": "stdin"}]', "x")[0]["input"] == "1"


def test_lcb_refuses_pickles_with_globals() -> None:
    blob = base64.b64encode(zlib.compress(pickle.dumps(Path("x")))).decode()
    with pytest.raises(SchemaError, match="private_test_cases"):
        decode_lcb_private(blob, "row 0")


def test_lcb_schema_mismatch_names_field(tmp_path: Path) -> None:
    row = lcb_row("abc301_a", "2023-05-13")
    del row["private_test_cases"]
    root = write_lcb(tmp_path, {"test6.jsonl": [row]})
    with pytest.raises(SchemaError, match="'private_test_cases'"):
        load_livecodebench(root, "v6")


def test_lcb_test_case_without_testtype_names_field(tmp_path: Path) -> None:
    row = lcb_row("abc301_a", "2023-05-13")
    row["public_test_cases"] = json.dumps([{"input": "1", "output": "1"}])
    with pytest.raises(SchemaError, match="'testtype'"):
        load_livecodebench(write_lcb(tmp_path, {"test6.jsonl": [row]}), "v6")


@pytest.mark.parametrize("subset", ["lcbv5", "primeintellect", "taco"])
def test_deepcoder_subsets_normalise_to_lcb_format(tmp_path: Path, subset: str) -> None:
    path = tmp_path / subset / "train-00000-of-00001.parquet"
    write_parquet(path, deepcoder_rows(subset), DEEPCODER_SCHEMA)
    problems = load_deepcoder(tmp_path, subset)
    call = next(p for p in problems if p.fmt == "call")
    assert call.tests == {"inputs": ["[1, 2]\n3"], "outputs": ["6"], "fn_name": "total"}
    assert all(p.source == f"deepcoder/{subset}" for p in problems)
    if subset == "primeintellect":
        assert problems[0].reference.startswith("a, b =") and problems[0].tests["outputs"] == ["3\n"]


def test_deepcoder_schema_mismatch_names_field(tmp_path: Path) -> None:
    rows = [{k: v for k, v in r.items() if k != "tests"} for r in deepcoder_rows("taco")]
    schema = DEEPCODER_SCHEMA.remove(DEEPCODER_SCHEMA.get_field_index("tests"))
    write_parquet(tmp_path / "taco" / "train-00000-of-00001.parquet", rows, schema)
    with pytest.raises(SchemaError, match="'tests'"):
        load_deepcoder(tmp_path, "taco")


def test_open_r1_verifiable_struct_columns(tmp_path: Path) -> None:
    write_parquet(tmp_path / "data" / "train-00000-of-00001.parquet", verifiable_rows(), VERIFIABLE_SCHEMA)
    (p,) = load_open_r1_verifiable(tmp_path)
    assert p.id == "openr1-vfc_1" and p.reference.startswith("a, b =") and "```" not in p.reference
    assert p.tests == {"inputs": ["1 2\n"], "outputs": ["3\n"]} and p.difficulty == "interview"


def test_open_r1_verifiable_mismatch_names_field(tmp_path: Path) -> None:
    schema = VERIFIABLE_SCHEMA.remove(VERIFIABLE_SCHEMA.get_field_index("verification_info"))
    rows = [{k: v for k, v in r.items() if k != "verification_info"} for r in verifiable_rows()]
    write_parquet(tmp_path / "data" / "train-00000-of-00001.parquet", rows, schema)
    with pytest.raises(SchemaError, match="'verification_info'"):
        load_open_r1_verifiable(tmp_path)


def test_open_r1_codeforces(tmp_path: Path) -> None:
    write_parquet(tmp_path / "data" / "train-00000-of-00001.parquet", codeforces_rows(), CODEFORCES_SCHEMA)
    easy, interactive = load_open_r1_codeforces(tmp_path)
    assert easy.n_tests == 2 and easy.difficulty == "easy" and easy.contest_date == "2023-11-14"
    assert "Input\nTwo integers" in easy.question and "Example input\n1 2" in easy.question
    assert interactive.meta["interactive"] and interactive.difficulty == "hard"
    assert interactive.n_tests == 1  # no official tests: the examples stand in


def test_open_r1_codeforces_mismatch_names_field(tmp_path: Path) -> None:
    schema = CODEFORCES_SCHEMA.remove(CODEFORCES_SCHEMA.get_field_index("official_tests"))
    rows = [{k: v for k, v in r.items() if k != "official_tests"} for r in codeforces_rows()]
    write_parquet(tmp_path / "data" / "train-00000-of-00001.parquet", rows, schema)
    with pytest.raises(SchemaError, match="'official_tests'"):
        load_open_r1_codeforces(tmp_path)
