"""A rate-limited OpenAI-compatible chat-completions server on 127.0.0.1, as hosted providers limit a key.

Each :class:`RateLimitedStub` is one endpoint with its own limits: a token bucket of requests per minute and one
of tokens per minute (each holding one second's worth, like the 10 req/s, burst 10 stub of issue 35), and a
latency. Over either limit it answers HTTP 429 with ``Retry-After`` and OpenAI's ``x-ratelimit-*`` headers; every
answered request carries the ``x-ratelimit-*`` headers too (``state_limits=False`` leaves the limit headers out,
as providers that state nothing, so only ``Retry-After`` and AIMD remain). It counts what it accepted and refused,
with timestamps, for the benchmark's achieved ÷ allowed rate.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.support.openai_stub import JsonHandler, StubHTTPServer, conversation_script

Script = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class Bucket:
    """``rate`` units per second, holding at most ``burst`` of them (starts full)."""

    rate: float
    burst: float
    level: float = -1.0
    at: float = field(default_factory=time.monotonic)

    def refill(self, now: float) -> None:
        if self.level < 0:
            self.level = self.burst
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now

    def seconds_until(self, amount: float) -> float:
        return max(0.0, (min(amount, self.burst) - self.level) / self.rate)


class RateLimitedStub:
    """One rate-limited endpoint. ``requests_per_minute`` / ``tokens_per_minute`` None: that limit is absent."""

    def __init__(self, script: Script = conversation_script, *, requests_per_minute: float | None = 600.0,
                 tokens_per_minute: float | None = None, latency_s: float = 0.0, retry_after_s: float = 1.0,
                 state_limits: bool = True, models: tuple[str, ...] = ("stub",), port: int = 0) -> None:
        self.script = script
        self.rpm, self.tpm = requests_per_minute, tokens_per_minute
        self.latency_s = latency_s
        self.retry_after_s = retry_after_s
        self.state_limits = state_limits
        self.models = models
        self.requests = Bucket(requests_per_minute / 60, max(1.0, requests_per_minute / 60)) if requests_per_minute else None
        self.tokens = Bucket(tokens_per_minute / 60, tokens_per_minute / 60) if tokens_per_minute else None
        self.accepted: list[float] = []  # monotonic times of requests admitted (answered 200)
        self.refused: list[float] = []  # ... and of those answered 429
        self.accepted_tokens = 0
        self.bodies: list[dict[str, Any]] = []
        self.in_flight = self.peak_in_flight = 0
        self._lock = threading.Lock()
        stub = self

        class Handler(JsonHandler):
            def do_GET(self) -> None:
                payload = json.dumps({"object": "list", "data": [{"id": m, "object": "model"} for m in stub.models]}).encode()
                self.send_json(200 if self.path.rstrip("/").endswith("/models") else 404, payload, {})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                self.send_json(*stub.answer(body))

        self._server = StubHTTPServer(("127.0.0.1", port), Handler)
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    @staticmethod
    def prompt_tokens(body: dict[str, Any]) -> int:
        return max(1, len(json.dumps(body.get("tools") or []) + json.dumps(body.get("messages", []))) // 4)

    def _limit_headers(self) -> dict[str, str]:
        headers: dict[str, str] = {}
        if not self.state_limits:
            return headers
        for name, bucket, per_minute in (("requests", self.requests, self.rpm), ("tokens", self.tokens, self.tpm)):
            if bucket is None or per_minute is None:
                continue
            headers[f"x-ratelimit-limit-{name}"] = str(int(per_minute))
            headers[f"x-ratelimit-remaining-{name}"] = str(int(max(0.0, bucket.level)))
            headers[f"x-ratelimit-reset-{name}"] = f"{max(0.0, bucket.burst - bucket.level) / bucket.rate:.3f}s"
        return headers

    def answer(self, body: dict[str, Any]) -> tuple[int, bytes, dict[str, str]]:
        prompt = self.prompt_tokens(body)
        with self._lock:
            now = time.monotonic()
            self.bodies.append(body)
            wait = 0.0
            for bucket, amount in ((self.requests, 1.0), (self.tokens, float(prompt))):
                if bucket is not None:
                    bucket.refill(now)
                    wait = max(wait, bucket.seconds_until(amount))
            if wait > 0:
                self.refused.append(now)
                headers = {"retry-after": str(math.ceil(self.retry_after_s)) if self.retry_after_s >= 1
                           else f"{self.retry_after_s:g}", **self._limit_headers()}
                error = {"error": {"message": "Rate limit reached for requests. Please try again in 1s.",
                                   "type": "requests", "code": "rate_limit_exceeded"}}
                return 429, json.dumps(error).encode(), headers
            if self.requests is not None:
                self.requests.level -= 1.0
            if self.tokens is not None:
                self.tokens.level -= prompt
            self.accepted.append(now)
            self.accepted_tokens += prompt
            headers = self._limit_headers()
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            if self.latency_s:
                time.sleep(self.latency_s)
            message = self.script(body)
        finally:
            with self._lock:
                self.in_flight -= 1
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        completion = max(1, len(json.dumps(message)) // 4)
        payload = {"id": f"chatcmpl-{len(self.bodies)}", "object": "chat.completion", "created": int(time.time()),
                   "model": body.get("model", "stub"),
                   "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                   "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}
        return 200, json.dumps(payload).encode(), headers

    def start(self) -> None:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def allowed_rate(self) -> float | None:
        """Requests per second the limits allow (the request limit; a token limit is reported separately)."""
        return self.rpm / 60 if self.rpm else None


@contextmanager
def rate_limited_stub(script: Script = conversation_script, **kwargs: Any) -> Iterator[RateLimitedStub]:
    stub = RateLimitedStub(script, **kwargs)
    stub.start()
    try:
        yield stub
    finally:
        stub.stop()
