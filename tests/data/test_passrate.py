"""Measured pass rates: a served policy (local OpenAI-compatible stub) graded by the real evaluator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_stub import StubServer

from mcsweep.data.collect import collect
from mcsweep.data.passrate import provider_from_config
from mcsweep.data.schema import Problem, SchemaError, make_io

ADD = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
WRONG = "```python\nprint(0)\n```"


def test_openai_policy_pass_rates_through_the_evaluator() -> None:
    io = make_io(["1 2\n", "2 2\n"], ["3\n", "4\n"])
    problems = [Problem(id=f"p{i}", question="Add a and b.", input_output=io) for i in range(2)]
    with StubServer() as stub:
        stub.script.extend([("reply", ADD), ("reply", WRONG)])  # every sample of p0 right, of p1 wrong
        client = {"base_url": stub.base_url, "model": "policy", "backoff_s": 0.01}
        cfg = {"kind": "openai", "k": 3, "client": client}
        rates = provider_from_config(cfg, {"workers": 2, "timeout_s": 2.0})(problems)
        assert [r["n"] for r in stub.requests] == [3, 3]
        assert "Add a and b." in stub.requests[0]["messages"][0]["content"]
    assert rates == {"p0": 1.0, "p1": 0.0}


def test_collect_keeps_provenance_and_drops_duplicate_ids(tmp_path: Path) -> None:
    row = Problem(id="x", question="q", input_output=make_io(["1"], ["1"])).to_dict()
    (tmp_path / "a.jsonl").write_text(json.dumps(row) + "\n")
    kept, drops, report = collect(
        [
            {"kind": "file", "path": str(tmp_path / "a.jsonl"), "name": "first"},
            {"kind": "file", "path": str(tmp_path / "a.jsonl")},
        ]
    )
    assert [p.meta["provenance"]["source"] for p in kept] == ["first"]
    assert [(d.id, d.reason) for d in drops] == [("x", "duplicate_id")]
    assert report["per_source"] == {"first": 1, "file:a.jsonl": 1}


def test_collect_surfaces_malformed_source_lines(tmp_path: Path) -> None:
    (tmp_path / "bad.jsonl").write_text('{"id": "x", "question": "q"}\n')
    with pytest.raises(SchemaError, match=r"bad.jsonl:1: missing field 'input_output'"):
        collect([{"kind": "file", "path": str(tmp_path / "bad.jsonl")}])
    with pytest.raises(ValueError, match="unknown source kind 'hub'"):
        collect([{"kind": "hub"}])
