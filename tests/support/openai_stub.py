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


class _Server(ThreadingHTTPServer):
    # The listen backlog is fixed when the socket opens; the default of 5 drops connections under load.
    request_queue_size = 1024
    daemon_threads = True


class StubServer:
    def __init__(self, script: Script, fail_first: int = 0, fail_status: int = 503, latency_s: float = 0.0,
                 port: int = 0, models: tuple[str, ...] = ("stub",)) -> None:
        self.script = script
        self.models = models  # what GET /v1/models lists (skillbench's preflight checks the served name)
        self.latency_s = latency_s
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real inference servers do

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                payload = json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in stub.models]})
                self.send_response(200 if self.path.rstrip("/").endswith("/models") else 404)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload.encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append(body)
                    stub.headers.append(dict(self.headers))
                    failing = len(stub.requests) <= stub.fail_first
                if stub.latency_s:
                    time.sleep(stub.latency_s)
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

        self._server = _Server(("127.0.0.1", port), Handler)
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


def conversation_script(body: dict[str, Any]) -> dict[str, Any]:
    """A scripted support conversation for load tests: ~12 agent, 4 user and 1 judge call per scenario."""
    messages = body.get("messages", [])
    if body.get("tools"):
        since_user = 0
        for message in reversed(messages):
            if message["role"] == "user":
                break
            since_user += message["role"] == "tool"
        users = sum(1 for m in messages if m["role"] == "user")
        if since_user < 2:
            return tool_reply("identity__verify_customer", {"customer_id": "C-10482", "date_of_birth": "1984-03-17"},
                              call_id=f"call_{len(messages)}")
        if users >= 4:
            return tool_reply("end_conversation", {"outcome": "resolved"}, call_id=f"call_{len(messages)}")
        return text_reply("You are verified. What date would suit you?")
    if messages and messages[0]["role"] == "system":
        return text_reply("My customer id is C-10482 and my date of birth is 1984-03-17.")
    return text_reply(json.dumps({
        "task_completion": "success", "workflow_adherence": 4, "tool_use_correctness": 4, "guardrail_compliance": 5,
        "communication_quality": 4, "resolution_efficiency": 3, "hallucinated_action": False, "explanation": "stub",
    }))


if __name__ == "__main__":  # python -m tests.support.openai_stub --latency-ms 100: serve the conversation script
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    server = StubServer(conversation_script, latency_s=options.latency_ms / 1000, port=options.port)
    print(server.port, flush=True)
    server._server.serve_forever()
