import json
import subprocess
import sys

from evaluator_cases import ADD_IO, CALL_IO


def test_grade_cli_writes_results_and_counts_unparseable_lines(tmp_path):
    lines = [
        json.dumps({"id": "ok", "code": "a, b = map(int, input().split())\nprint(a + b)", "input_output": ADD_IO}),
        json.dumps({"id": "wa", "completion": "```python\nprint(0)\n```", "input_output": ADD_IO}),
        "{this is not json",
        json.dumps({"id": "nocode", "input_output": ADD_IO}),
        json.dumps({"id": "badproblem", "code": "print(1)", "input_output": json.dumps({"inputs": ["1"]})}),
        json.dumps(
            {
                "id": "call",
                "code": "class Solution:\n    def append(self, xs, y):\n        return (*xs, y)\n",
                "input_output": CALL_IO,
            }
        ),
    ]
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    after = json.dumps({"id": "after", "code": "print(sum(map(int, input().split())))", "input_output": ADD_IO})
    # a line that is not UTF-8 is one bad line, not the end of the file (it stopped the CLI, nothing graded)
    src.write_bytes(("\n".join(lines) + "\n").encode() + b'{"id": "\xff"}\n' + after.encode() + b"\n")
    cmd = [
        sys.executable,
        "-m",
        "mcsweep.evaluator",
        "grade",
        str(src),
        "--comparator",
        "livecodebench",
        "--out",
        str(out),
        "--workers",
        "2",
        "--timeout",
        "2",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr  # unparseable lines make the exit status non-zero
    assert "line 3: not JSON" in proc.stderr and "line 7: not UTF-8" in proc.stderr
    assert "line 4: needs a string 'code' or 'completion'" in proc.stderr
    assert "line 5: " in proc.stderr and "input_output.outputs" in proc.stderr
    assert "unparseable lines 4" in proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["passed"], r["verdict"]) for r in rows] == [
        ("ok", True, "accepted"),
        ("wa", False, "wrong_answer"),
        ("call", True, "accepted"),
        ("after", True, "accepted"),
    ]
    assert rows[0]["tests"][0]["verdict"] == "accepted" and rows[2]["method"] == "equal"
