"""Problems shared by the evaluator tests."""

import json

ADD_IO = json.dumps({"inputs": ["1 2\n", "10 20\n", "-5 5\n"], "outputs": ["3\n", "30\n", "0\n"]})
CALL_IO = json.dumps(
    {
        "inputs": ["[1, 2]\n3", "[]\n0", "[5]\n-1"],
        "outputs": ["[1, 2, 3]", "[0]", "[5, -1]"],
        "fn_name": "append",
    }
)
