"""An agent running as a service: a minimal OpenAI-compatible chat-completions server (standard library only).

skillbench evaluates it with ``agent=service`` (conf/agent/service.yaml): each agent turn is one
``POST /v1/chat/completions`` carrying the whole conversation (system prompt = the skill's policy, the caller's
messages, the agent's earlier replies and tool results) and the tools (the scenario's MCP tools plus
``end_conversation`` and ``transfer_to_human``); the reply is the agent's next message, text and/or tool calls.
``GET /v1/models`` lists the served name (skillbench's preflight checks it). Any language can do the same.

    python examples/agent_service.py --port 8100          # then: python -m skillbench agent=service
    python examples/agent_service.py --port 0 --mode malformed   # replies with neither text nor tool calls
    python examples/agent_service.py --port 0 --crash-on billing__change_plan  # HTTP 500 whenever that tool is offered

This agent is deliberately simple (a wire-format example, not a good agent): it asks the caller for their
customer or account number, then hands the caller to a human with a reason.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SERVED_NAME = "agent"


def next_message(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """The agent's reply to the conversation so far (OpenAI message format)."""
    names = {tool["function"]["name"] for tool in tools}
    callers = [m for m in messages if m.get("role") == "user"]
    if messages[-1].get("role") == "tool" or len(callers) >= 2:
        return _call("transfer_to_human", {"reason": "the service agent hands every request to a colleague"},
                     len(messages)) if "transfer_to_human" in names else {"role": "assistant", "content": "Goodbye."}
    if len(callers) == 1:
        return {"role": "assistant", "content": "Thanks. Could you tell me your customer or account number?"}
    return {"role": "assistant", "content": "Hello, how can I help you today?"}


def _call(name: str, arguments: dict[str, Any], index: int) -> dict[str, Any]:
    call = {"id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def completion(body: dict[str, Any], mode: str) -> dict[str, Any]:
    """A chat.completion object for a request, as OpenAI's API returns it."""
    if mode == "malformed":  # a reply with neither text nor tool calls: the agent's own failure
        message: dict[str, Any] = {"role": "assistant", "content": None}
    else:
        message = next_message(body.get("messages") or [], body.get("tools") or [])
    text = json.dumps(body.get("messages") or [])
    return {
        "id": f"chatcmpl-{time.time_ns()}", "object": "chat.completion", "created": int(time.time()),
        "model": SERVED_NAME,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
        "usage": {"prompt_tokens": len(re.findall(r"\S+", text)), "completion_tokens": 12,
                  "total_tokens": len(re.findall(r"\S+", text)) + 12},
    }


def serve(port: int, mode: str, crash_on: str | None = None) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": SERVED_NAME, "object": "model"}]})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": "not found"}})
                return
            offered = {tool["function"]["name"] for tool in body.get("tools") or []}
            if crash_on is not None and crash_on in offered:  # a bug on one skill's conversations: the agent's own crash
                self._send(500, {"error": {"message": "internal error: the agent crashed (KeyError 'plan')"}})
                return
            self._send(200, completion(body, mode))

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="An OpenAI-compatible agent service for skillbench.")
    parser.add_argument("--port", type=int, default=8100, help="0: any free port (printed on the first line)")
    parser.add_argument("--mode", choices=["agent", "malformed"], default="agent")
    parser.add_argument("--crash-on", default=None, help="answer HTTP 500 to every request that offers this tool")
    options = parser.parse_args()
    server = serve(options.port, options.mode, options.crash_on)
    print(server.server_address[1], flush=True)
    server.serve_forever()
