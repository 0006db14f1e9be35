"""A local OpenAI-compatible chat server with scripted behaviour per request (real HTTP)."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class StubServer:
    """Each POST to /v1/chat/completions takes the next script step:
    ("reply", text), ("status", code), ("sleep", seconds, text). An empty script replies `default`."""

    def __init__(self, default: str = "{}") -> None:
        self.script: deque[tuple[Any, ...]] = deque()
        self.default = default
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                step = stub.script.popleft() if stub.script else ("reply", stub.default)
                if step[0] == "status":
                    return self._send(step[1], {"error": {"message": "scripted", "type": "server_error"}})
                if step[0] == "sleep":
                    time.sleep(step[1])
                text = step[-1]
                message = {"role": "assistant", "content": text}
                choices = [{"index": i, "finish_reason": "stop", "message": message} for i in range(body.get("n", 1))]
                return self._send(
                    200,
                    {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"], "choices": choices},
                )

            def _send(self, code: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> StubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
