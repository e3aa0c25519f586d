"""A local OpenAI-compatible chat-completions server on 127.0.0.1 for testing real-provider configs.

It answers from a script (a function of the request body), records every request, and can fail
the first N requests with a given HTTP status to exercise retries.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any]], dict[str, Any]]


def text_reply(content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def tool_reply(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}],
    }


class StubServer:
    def __init__(self, script: Script, fail_first: int = 0, fail_status: int = 503) -> None:
        self.script = script
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append(body)
                    stub.headers.append(dict(self.headers))
                    failing = len(stub.requests) <= stub.fail_first
                if failing:
                    payload = json.dumps({"error": {"message": "overloaded", "type": "server_error"}}).encode()
                    self.send_response(stub.fail_status)
                else:
                    message = stub.script(body)
                    finish = "tool_calls" if message.get("tool_calls") else "stop"
                    payload = json.dumps(
                        {
                            "id": f"chatcmpl-{len(stub.requests)}",
                            "object": "chat.completion",
                            "created": int(time.time()),
                            "model": body.get("model", "stub"),
                            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                        }
                    ).encode()
                    self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> None:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def stub_server(script: Script, **kwargs: Any) -> Iterator[StubServer]:
    server = StubServer(script, **kwargs)
    server.start()
    try:
        yield server
    finally:
        server.stop()
