"""The LLM-judge client against a local OpenAI-compatible server: real HTTP, retries, timeouts."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from openai_stub import StubServer

from mcsweep.data.difficulty import DEFAULT_RUBRIC, LLMJudgeScorer, score_problem
from mcsweep.data.judge_client import ChatClient, ClientConfig, JudgeError
from mcsweep.data.schema import Problem, make_io

GOOD = json.dumps({"reading": 2, "knowledge": 3, "algorithmic_thinking": 7, "implementation": 6, "edge_cases": 4})
PROBLEM = Problem(id="p", question="Sort the numbers.", input_output=make_io(["1\n"], ["1\n"]), reference="print(1)\n")


@pytest.fixture
def stub() -> Iterator[StubServer]:
    with StubServer(default=GOOD) as server:
        yield server


def _client(stub: StubServer, **kw: float) -> ChatClient:
    cfg = ClientConfig(
        base_url=stub.base_url,
        model="judge",
        timeout_s=kw.get("timeout_s", 2.0),
        max_retries=int(kw.get("max_retries", 3)),
        backoff_s=0.01,
    )
    return ChatClient(cfg)


def test_scores_parse_and_weight(stub: StubServer) -> None:
    stub.script.append(("reply", "<think>hmm {not this}</think> Scores: " + GOOD))
    record = score_problem(PROBLEM, LLMJudgeScorer(_client(stub)), DEFAULT_RUBRIC, repeats=3)
    assert len(stub.requests) == 3 and record["samples"][0]["algorithmic_thinking"] == 7.0
    assert record["score"] == pytest.approx(0.1 * 2 + 0.1 * 3 + 0.35 * 7 + 0.3 * 6 + 0.15 * 4)
    prompt = stub.requests[0]["messages"][1]["content"]
    assert "Algorithmic Thinking" in prompt and "print(1)" in prompt


def test_server_errors_are_retried(stub: StubServer) -> None:
    stub.script.extend([("status", 500), ("status", 503), ("reply", GOOD)])
    client = _client(stub)
    assert LLMJudgeScorer(client).score(PROBLEM, 0)["implementation"] == 6.0
    assert client.attempts == 3


def test_garbage_and_out_of_range_replies_are_retried(stub: StubServer) -> None:
    bad_range = json.dumps({**json.loads(GOOD), "reading": 42})
    stub.script.extend([("reply", "I think it is hard."), ("reply", bad_range), ("reply", GOOD)])
    client = _client(stub)
    assert LLMJudgeScorer(client).score(PROBLEM, 0)["reading"] == 2.0
    assert client.attempts == 3


def test_timeout_is_retried(stub: StubServer) -> None:
    stub.script.extend([("sleep", 1.0, GOOD), ("reply", GOOD)])
    client = _client(stub, timeout_s=0.3)
    start = time.monotonic()
    LLMJudgeScorer(client).score(PROBLEM, 0)
    assert client.attempts == 2 and time.monotonic() - start < 1.0


def test_gives_up_after_max_retries(stub: StubServer) -> None:
    stub.script.extend([("status", 500)] * 3)
    client = _client(stub, max_retries=2)
    with pytest.raises(JudgeError, match=r"3 attempts.*InternalServerError"):
        LLMJudgeScorer(client).score(PROBLEM, 0)


def test_client_errors_are_not_retried(stub: StubServer) -> None:
    stub.script.append(("status", 400))
    client = _client(stub)
    with pytest.raises(Exception, match="400"):
        client.complete([{"role": "user", "content": "x"}])
    assert client.attempts == 1


def test_n_samples_in_one_request(stub: StubServer) -> None:
    stub.script.append(("reply", "```python\nprint(1)\n```"))
    assert _client(stub).complete([{"role": "user", "content": "x"}], n=4) == ["```python\nprint(1)\n```"] * 4
    assert stub.requests[-1]["n"] == 4
