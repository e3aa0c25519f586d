"""A local OpenAI-compatible chat-completions server on 127.0.0.1 for testing real-provider configs.

It answers from a script (a function of the request body), records every request, and can fail
the first N requests with a given HTTP status to exercise retries. A :class:`FaultPlan` injects the
faults real providers show (see docs/outcomes.md) at a stated rate per role.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any]], Any]  # a message dict, or a RawReply sent exactly as given


@dataclass
class RawReply:
    """A reply sent byte for byte as a real server sends it: status, body, headers (tests/support/replay.py). A
    dict body is sent as JSON; a str body as it is (a proxy's HTML error page: give its content-type header)."""

    status: int
    body: dict[str, Any] | str
    headers: dict[str, str] = field(default_factory=dict)


# What nginx in front of an inference server answers when the server behind it is down (HTTP 502).
NGINX_502 = RawReply(502, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad "
                          "Gateway</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n",
                     {"content-type": "text/html"})


FINISH_REASON_KEY = "_finish_reason"  # in a scripted message: the choice's finish_reason (e.g. "length")


def text_reply(content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def tool_reply(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}],
    }


FAULTS = (
    "empty_choices",  # 200 with "choices": []
    "null_content",  # 200 with content null and no tool calls
    "bad_tool_json",  # 200 with a tool call whose arguments are not JSON
    "config_400",  # 400 on a request we built from valid inputs (as for a bad model name or parameter)
    "rate_limit",  # 429 with Retry-After: 1
    "server_error",  # 500
    "timeout",  # answers after hang_s (longer than the client's timeout)
    "bad_control",  # end_conversation with an outcome outside its enum
)


def request_role(body: dict[str, Any]) -> str:
    """agent (tools offered), judge (JSON response format) or user, as the stub tells them apart."""
    if body.get("tools"):
        return "agent"
    return "judge" if body.get("response_format") else "user"


def holds_model_fault(body: dict[str, Any]) -> bool:
    """Whether the request echoes invalid model output, which vLLM-like servers refuse with a 400."""
    for message in body.get("messages", []):
        if message.get("role") != "assistant":
            continue
        if not message.get("tool_calls") and message.get("content") is None:
            return True
        for call in message.get("tool_calls") or []:
            try:
                json.loads(call["function"]["arguments"])
            except (json.JSONDecodeError, KeyError, TypeError):
                return True
    return False


@dataclass
class FaultPlan:
    """Every ``every``-th request of a role gets that role's next fault, in a cycle (rate 1/every)."""

    faults: dict[str, list[str]]
    every: int = 5
    hang_s: float = 2.0
    reject_model_faults: bool = True  # answer 400 to requests echoing invalid model output, as vLLM does
    enabled: bool = True
    injected: list[tuple[str, str]] = field(default_factory=list)
    _seen: dict[str, int] = field(default_factory=dict)

    def pick(self, body: dict[str, Any]) -> str | None:
        role = request_role(body)
        if self.reject_model_faults and holds_model_fault(body):
            self.injected.append((role, "model_400"))
            return "model_400"
        if not self.enabled or not self.faults.get(role):
            return None
        count = self._seen[role] = self._seen.get(role, 0) + 1
        if count % self.every:
            return None
        cycle = self.faults[role]
        fault = cycle[(count // self.every - 1) % len(cycle)]
        self.injected.append((role, fault))
        return fault


def _error(status: int, message: str) -> tuple[int, dict[str, Any], dict[str, str]]:
    return status, {"error": {"message": message, "type": "invalid_request_error" if status == 400 else "server_error"}}, {}


def faulty_reply(fault: str, message: dict[str, Any]) -> tuple[int, dict[str, Any] | None, dict[str, str]]:
    """(status, message or error body, extra headers) for one injected fault; message None: no choices."""
    if fault == "empty_choices":
        return 200, None, {}
    if fault == "null_content":
        return 200, {"role": "assistant", "content": None}, {}
    if fault == "bad_tool_json":
        bad = tool_reply("identity__verify_customer", {})
        bad["tool_calls"][0]["function"]["arguments"] = '{"customer_id": "C-10482"'
        return 200, bad, {}
    if fault == "bad_control":
        return 200, tool_reply("end_conversation", {"outcome": "finished"}, call_id="call_bad_control"), {}
    if fault == "model_400":
        return _error(400, "Invalid tool call arguments in messages: expected JSON")
    if fault == "config_400":
        return _error(400, "The model 'Qwen/Qwen3.5-9B' does not support parameter 'bogus'")
    if fault == "rate_limit":
        status, body, _ = _error(429, "rate limited")
        return status, body, {"retry-after": "1"}
    if fault == "server_error":
        return _error(500, "internal error")
    return 200, message, {}


class PromptCache:
    """Imitates a provider's automatic prompt caching (OpenAI's rules): a prompt of at least 1,024 tokens has
    its longest previously seen prefix, in 128-token blocks, read from the cache. The prompt is the tool list
    followed by the messages, as sent (providers render tools ahead of the messages); a token is ~4 characters."""

    CHARS_PER_TOKEN = 4
    BLOCK_TOKENS = 128
    MINIMUM_TOKENS = 1024

    def __init__(self) -> None:
        self._seen: set[bytes] = set()

    @staticmethod
    def prompt_text(body: dict[str, Any]) -> str:
        return json.dumps(body.get("tools") or []) + json.dumps(body.get("messages", []))

    def usage(self, body: dict[str, Any]) -> dict[str, Any]:
        text = self.prompt_text(body)
        prompt_tokens = max(1, len(text) // self.CHARS_PER_TOKEN)
        block = self.BLOCK_TOKENS * self.CHARS_PER_TOKEN
        digest = hashlib.blake2b(digest_size=8)
        cached_blocks, still_cached = 0, True
        for start in range(0, len(text) - block + 1, block):
            digest.update(text[start:start + block].encode())
            key = digest.copy().digest()
            if still_cached and key in self._seen:
                cached_blocks += 1
            else:
                still_cached = False
                self._seen.add(key)
        cached = cached_blocks * self.BLOCK_TOKENS
        return {"prompt_tokens": prompt_tokens, "cached_tokens": cached if cached >= self.MINIMUM_TOKENS else 0}


@dataclass(frozen=True)
class Answered:
    """One request the stub answered (a 200 with a reply): when it came in and when its reply went out (time.time()),
    and the usage the reply reported: what a provider bills, whether or not the client read the reply."""

    model: str
    role: str
    received: float
    replied: float
    prompt_tokens: int
    completion_tokens: int


def sized_usage(body: dict[str, Any], message: dict[str, Any] | None) -> dict[str, int]:
    """Usage as a provider counts it, roughly: the prompt (tool list and messages, as sent) and the reply at ~4
    characters a token, so a request's size says what it costs (``sized_usage=True``)."""
    prompt = max(1, len(PromptCache.prompt_text(body)) // PromptCache.CHARS_PER_TOKEN)
    completion = max(1, len(json.dumps(message)) // PromptCache.CHARS_PER_TOKEN) if message else 0
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class StubHTTPServer(ThreadingHTTPServer):
    # The listen backlog is fixed when the socket opens; the default of 5 drops connections under load.
    request_queue_size = 1024
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # the client went away (a cancelled call): as a real server
            return
        super().handle_error(request, client_address)


class JsonHandler(BaseHTTPRequestHandler):
    """A quiet keep-alive handler that answers JSON, as the stub servers share."""

    protocol_version = "HTTP/1.1"  # keep-alive, as real inference servers do

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def send_json(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            if "content-type" not in {name.lower() for name in headers}:
                self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout): as a real server
            pass


class StubServer:
    def __init__(self, script: Script, fail_first: int = 0, fail_status: int = 503, latency_s: float = 0.0,
                 port: int = 0, faults: FaultPlan | None = None, models: tuple[str, ...] = ("stub",),
                 prompt_cache: bool = False, model_latency_s: dict[str, float] | None = None,
                 fingerprint: str | None = None, served_model: str | None = None,
                 props: dict[str, Any] | None = None, sized: bool = False) -> None:
        self.script = script
        self.sized = sized  # usage from the request's and reply's size (sized_usage), not the fixed 11 + 7
        self.answered: list[Answered] = []  # every reply sent, with its timing and usage
        self.props = props  # what GET /props answers, as llama.cpp's server does (None: 404, as other servers)
        self.fingerprint = fingerprint  # the replies' system_fingerprint (llama.cpp: its build), when set
        self.served_model = served_model  # the replies' "model" (a server reports its own id), else the request's
        self.model_latency_s = model_latency_s or {}  # per served model name, over latency_s
        # With a prompt cache, usage counts tokens (~4 characters each) and reports cached_tokens as OpenAI does.
        self.prompt_cache = PromptCache() if prompt_cache else None
        self.faults = faults
        self.models = models  # what GET /v1/models lists (skillbench's preflight checks the served name)
        self.latency_s = latency_s
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0  # POSTs being answered now, and the most at once (a client's concurrency limit, seen here)
        self.peak_in_flight = 0
        # Requests in flight × seconds, from the first request to the latest answer: the mean in flight (a client
        # that lets every call out at once at the start shows a high peak whatever it keeps in flight after).
        self._in_flight_s, self._first_at, self._changed_at = 0.0, 0.0, 0.0
        self._lock = threading.Lock()
        stub = self

        class Handler(JsonHandler):
            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/props") and stub.props is not None:
                    self.send_json(200, json.dumps(stub.props).encode(), {})
                    return
                payload = json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in stub.models]}).encode()
                self.send_json(200 if self.path.rstrip("/").endswith("/models") else 404, payload, {})

            def do_POST(self) -> None:
                with stub._lock:
                    stub._count_in_flight(+1)
                    stub.peak_in_flight = max(stub.peak_in_flight, stub.in_flight)
                try:
                    self._answer()
                finally:
                    with stub._lock:
                        stub._count_in_flight(-1)

            def _answer(self) -> None:
                received = time.time()
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append(body)
                    stub.headers.append(dict(self.headers))
                    failing = len(stub.requests) <= stub.fail_first
                    fault = stub.faults.pick(body) if stub.faults is not None and not failing else None
                    prompt = stub.prompt_cache.usage(body) if stub.prompt_cache is not None else None
                latency = stub.model_latency_s.get(body.get("model", ""), stub.latency_s)
                if latency:
                    time.sleep(latency)
                if fault == "timeout":
                    time.sleep(stub.faults.hang_s if stub.faults is not None else 0)
                headers: dict[str, str] = {}
                if failing:
                    status, error, headers = _error(stub.fail_status, "overloaded")
                    payload = json.dumps(error).encode()
                else:
                    message: Any = stub.script(body)
                    status = 200
                    if isinstance(message, RawReply):
                        status, headers, message = message.status, dict(message.headers), message.body
                    elif fault is not None:
                        status, message, headers = faulty_reply(fault, message or {})
                    if isinstance(message, str):
                        payload = message.encode()
                    elif status != 200:
                        payload = json.dumps(message).encode()
                    else:
                        message = dict(message) if message else message
                        finish = "tool_calls" if message and message.get("tool_calls") else "stop"
                        if message and FINISH_REASON_KEY in message:
                            finish = message.pop(FINISH_REASON_KEY)
                        choices = [{"index": 0, "message": message, "finish_reason": finish}] if message else []
                        usage: dict[str, Any] = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
                        if stub.sized:
                            usage = sized_usage(body, message)
                        elif prompt is not None:
                            completion = max(1, len(json.dumps(message)) // PromptCache.CHARS_PER_TOKEN) if message else 0
                            usage = {"prompt_tokens": prompt["prompt_tokens"], "completion_tokens": completion,
                                     "total_tokens": prompt["prompt_tokens"] + completion,
                                     "prompt_tokens_details": {"cached_tokens": prompt["cached_tokens"]}}
                        payload = json.dumps(
                            {
                                "id": f"chatcmpl-{len(stub.requests)}",
                                "object": "chat.completion",
                                "created": int(time.time()),
                                "model": stub.served_model or body.get("model", "stub"),
                                "choices": choices,
                                "usage": usage,
                                **({"system_fingerprint": stub.fingerprint} if stub.fingerprint else {}),
                            }
                        ).encode()
                        answered = Answered(str(body.get("model", "")), request_role(body), received, time.time(),
                                            usage["prompt_tokens"], usage["completion_tokens"])
                        with stub._lock:
                            stub.answered.append(answered)
                self.send_json(status, payload, headers)

        self._server = StubHTTPServer(("127.0.0.1", port), Handler)
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def _count_in_flight(self, change: int) -> None:
        now = time.monotonic()
        if not self._first_at:
            self._first_at = now
        else:
            self._in_flight_s += self.in_flight * (now - self._changed_at)
        self._changed_at = now
        self.in_flight += change

    @property
    def mean_in_flight(self) -> float:
        """Requests in flight on average, from the first request to the latest answer."""
        span = self._changed_at - self._first_at
        return self._in_flight_s / span if span > 0 else float(self.in_flight)

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


AgentStep = list[tuple[str, dict[str, Any]]] | str  # one agent reply: tool calls (wire name, arguments), or text


def planned_agent(plan: list[AgentStep], call_id: Callable[[int], str | None]) -> Script:
    """The conversation script with an agent model that gives the plan's n-th reply to its n-th request (the last one
    from then on), the id of the i-th call in a reply being ``call_id(i)`` (None: no ``id`` key at all). Servers that
    number ids per reply send ``call_0`` every time (tests/engine/test_call_identity.py)."""

    def script(body: dict[str, Any]) -> Any:
        if request_role(body) != "agent":
            return conversation_script(body)
        step = plan[min(sum(m["role"] == "assistant" for m in body["messages"]), len(plan) - 1)]
        if isinstance(step, str):
            return text_reply(step)
        calls = []
        for index, (name, arguments) in enumerate(step):
            given = call_id(index)
            call = {"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
            calls.append(call if given is None else {"id": given, **call})
        return {"role": "assistant", "content": None, "tool_calls": calls}

    return script


if __name__ == "__main__":  # python -m tests.support.openai_stub --latency-ms 100: serve the conversation script
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    server = StubServer(conversation_script, latency_s=options.latency_ms / 1000, port=options.port)
    print(server.port, flush=True)
    server._server.serve_forever()
