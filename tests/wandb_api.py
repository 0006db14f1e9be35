"""A stand-in for the W&B server at the wandb client's single request point (test helper).

wandb 0.31 sends every public-API request through ``ServiceApi.send_api_request`` (to wandb-core).
Subclasses answer GraphQL operations (``graphql``) and give each run's history rows
(``history_rows``); this class dispatches the requests, pages history scans as wandb-core does and
records what was asked. A request it has no answer for fails the test.
"""

from __future__ import annotations

import json
import re
from typing import Any

from wandb.proto import wandb_api_pb2 as pb

_OP = re.compile(r"(?:query|mutation)\s+(\w+)")


class ApiStandIn:
    def __init__(self) -> None:
        self.asked: list[str] = []
        self.scans: dict[int, str] = {}

    def graphql(self, op: str, variables: dict[str, Any], query: str) -> dict[str, Any]:
        raise NotImplementedError

    def history_rows(self, run_id: str) -> list[dict[str, Any]]:
        raise NotImplementedError

    def send(self, request: pb.ApiRequest, timeout: float | None = None) -> pb.ApiResponse:
        kind = request.WhichOneof("request")
        self.asked.append(kind)
        resp = pb.ApiResponse()
        if kind == "auth_request":
            return resp
        if kind == "graphql_request":
            req = request.graphql_request
            op = _OP.search(req.query).group(1)
            self.asked.append(op)
            answer = self.graphql(op, json.loads(req.variables_json or "{}"), req.query)
            resp.graphql_response.data_json = json.dumps(answer)
            return resp
        if kind == "features_request":  # a server with no optional features
            resp.features_response.server.SetInParent()
            return resp
        if kind == "read_run_history_request":
            self._history(request.read_run_history_request, resp)
            return resp
        raise AssertionError(f"unexpected request {kind}")

    def _history(self, req: Any, resp: pb.ApiResponse) -> None:
        if req.HasField("scan_run_history_init"):
            rid = len(self.scans) + 1
            self.scans[rid] = req.scan_run_history_init.run_id
            resp.read_run_history_response.scan_run_history_init.request_id = rid
            return
        scan = req.scan_run_history
        for row in self.history_rows(self.scans[scan.request_id]):
            if scan.min_step <= row["_step"] < scan.max_step:
                out = resp.read_run_history_response.run_history.history_rows.add()
                for k, v in row.items():
                    item = out.history_items.add()
                    item.key, item.value_json = k, json.dumps(v)
