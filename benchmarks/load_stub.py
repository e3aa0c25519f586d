"""A local OpenAI-compatible stub for load measurements (benchmarks/throughput.py, grid_projection.py).

    python benchmarks/load_stub.py --latency-ms 100                        # prints its port, serves until killed
    python benchmarks/load_stub.py --latency-ms 100 --model-latency-ms Qwen/Qwen3.5-9B=800 --record requests.jsonl
    python benchmarks/load_stub.py --latency-ms 50 --model-limit gpt-5=600/200000   # 600 req/min, 200k tokens/min

Serves the scripted support conversation of tests/support/openai_stub.py (about 12 agent, 5 user and 1 judge
calls per conversation) with two changes for load: the caller's replies carry a tag derived from its own
system prompt, so scenarios with different objectives give different transcripts (and the judge reads every
one: no verdict is reused), and ``--record`` appends every request body, as received, to a JSON-lines file
(the bodies benchmarks/throughput.py replays through bare litellm). Usage counts tokens (~4 characters each)
and imitates OpenAI's prompt caching (``PromptCache``). ``--model-limit`` rate-limits one served model as a
provider limits a key (tests/support/ratelimited_stub.py's buckets: one second's worth of burst; over a limit an
immediate HTTP 429 with ``Retry-After: 1`` and OpenAI's ``x-ratelimit-*`` headers; answered requests carry none, so
their usage keeps the prompt cache's counts), each model its own limits, so one stub serves a whole sweep's
endpoints.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, TextIO

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.openai_stub import RawReply, StubServer, conversation_script, request_role, text_reply  # noqa: E402
from tests.support.ratelimited_stub import Bucket  # noqa: E402

FILLER = "Thank you for bearing with me while I note the details of your request. "


def _padded(text: str, tokens: int) -> str:
    """``text`` lengthened with filler sentences to about ``tokens`` tokens (~4 characters each)."""
    missing = tokens * 4 - len(text)
    return text if missing <= 0 else f"{text} {(FILLER * (missing // len(FILLER) + 1))[:missing].strip()}"


def distinct_conversation_script(body: dict[str, Any], completion_tokens: dict[str, int] | None = None) -> dict[str, Any]:
    """The conversation script, with the caller's replies tagged by a hash of the caller's system prompt, the
    agent's text replies by its model, and text replies (the judge's explanation) padded to
    ``completion_tokens[role]`` tokens when given."""
    reply = conversation_script(body)
    role = request_role(body)
    if role == "user":
        tag = hashlib.blake2b(body["messages"][0]["content"].encode(), digest_size=4).hexdigest()
        reply = text_reply(f"{reply['content']} My reference is {tag}.")
    elif role == "agent" and reply.get("content") and not reply.get("tool_calls"):
        # Each agent model its own words, so two agents' transcripts differ and a judge reads both (identical
        # transcripts would share one verdict: half the judge calls of a real grid).
        reply = text_reply(f"{reply['content']} ({body.get('model', 'stub')})")
    tokens = (completion_tokens or {}).get(role)
    if not tokens or not reply.get("content"):
        return reply
    if role == "judge":
        verdict = json.loads(reply["content"])
        verdict["explanation"] = _padded(verdict["explanation"], tokens)
        return text_reply(json.dumps(verdict))
    return text_reply(_padded(reply["content"], tokens))


class ModelLimits:
    """One served model's requests and tokens per minute (either None: absent), as token buckets."""

    def __init__(self, requests_per_minute: float | None, tokens_per_minute: float | None) -> None:
        self.rpm, self.tpm = requests_per_minute, tokens_per_minute
        self.requests = Bucket(self.rpm / 60, max(1.0, self.rpm / 60)) if self.rpm else None
        self.tokens = Bucket(self.tpm / 60, self.tpm / 60) if self.tpm else None
        self.lock = threading.Lock()
        self.accepted: list[float] = []  # time.monotonic() of each request admitted (the clock is the machine's)
        self.refused: list[float] = []

    def admit(self, prompt_tokens: int) -> tuple[bool, dict[str, str]]:
        """Take one request of ``prompt_tokens`` (True) or refuse it (False); the x-ratelimit-* headers either way."""
        with self.lock:
            now = time.monotonic()
            wait = 0.0
            for bucket, amount in ((self.requests, 1.0), (self.tokens, float(prompt_tokens))):
                if bucket is not None:
                    bucket.refill(now)
                    wait = max(wait, bucket.seconds_until(amount))
            if wait <= 0:
                for bucket, amount in ((self.requests, 1.0), (self.tokens, float(prompt_tokens))):
                    if bucket is not None:
                        bucket.level -= amount
                self.accepted.append(now)
            else:
                self.refused.append(now)
            headers: dict[str, str] = {}
            for name, bucket, per_minute in (("requests", self.requests, self.rpm), ("tokens", self.tokens, self.tpm)):
                if bucket is not None and per_minute:
                    headers[f"x-ratelimit-limit-{name}"] = str(int(per_minute))
                    headers[f"x-ratelimit-remaining-{name}"] = str(int(max(0.0, bucket.level)))
                    headers[f"x-ratelimit-reset-{name}"] = f"{max(0.0, bucket.burst - bucket.level) / bucket.rate:.3f}s"
            return wait <= 0, headers


RATE_LIMITED = {"error": {"message": "Rate limit reached for requests. Please try again in 1s.",
                          "type": "requests", "code": "rate_limit_exceeded"}}


class RecordingStub(StubServer):
    """A stub that appends every request body to ``record`` (one JSON object per line), answers each model after
    its latency and, for models in ``limits``, refuses what is over their rate limits before any latency."""

    def __init__(self, record: TextIO | None, completion_tokens: dict[str, int] | None = None, *,
                 latency_s: float = 0.0, model_latency_s: dict[str, float] | None = None,
                 limits: dict[str, ModelLimits] | None = None, **kwargs: Any) -> None:
        self._record = record
        self._record_lock = threading.Lock()
        latencies = model_latency_s or {}

        def script(body: dict[str, Any]) -> Any:
            if self._record is not None:
                line = json.dumps(body)
                with self._record_lock:
                    self._record.write(line + "\n")
            model = body.get("model", "")
            limit = (limits or {}).get(model)
            if limit is not None:
                prompt = max(1, len(json.dumps(body.get("tools") or []) + json.dumps(body.get("messages", []))) // 4)
                admitted, headers = limit.admit(prompt)
                if not admitted:
                    return RawReply(429, RATE_LIMITED, {"retry-after": "1", **headers})
            latency = latencies.get(model, latency_s)
            if latency:
                time.sleep(latency)
            return distinct_conversation_script(body, completion_tokens)

        super().__init__(script, **kwargs)
        self.requests = _Discard()  # a load run makes ~100,000 requests: keep none in memory


class _Discard(list):  # type: ignore[type-arg]
    """The request log of a long-running stub: counts, keeps nothing."""

    count = 0

    def append(self, item: Any) -> None:
        self.count += 1

    def __len__(self) -> int:
        return self.count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=100.0, help="every model's latency unless given below")
    parser.add_argument("--model-latency-ms", action="append", default=[], metavar="SERVED_NAME=MS",
                        help="one model's latency (the name the request carries, e.g. Qwen/Qwen3.5-9B=800)")
    parser.add_argument("--completion-tokens", action="append", default=[], metavar="ROLE=TOKENS",
                        help="pad text replies of a role (agent, user, judge) to about this many tokens")
    parser.add_argument("--models", default="stub", help="comma-separated served names GET /v1/models lists")
    parser.add_argument("--model-limit", action="append", default=[], metavar="SERVED_NAME=RPM[/TPM]",
                        help="rate-limit one served model: requests (and tokens) per minute")
    parser.add_argument("--record", type=Path, help="append every request body to this JSON-lines file")
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    latencies = {}
    for item in options.model_latency_ms:
        name, _, value = item.rpartition("=")
        latencies[name] = float(value) / 1000
    completion = {role: int(n) for role, _, n in (item.partition("=") for item in options.completion_tokens)}
    record = options.record.open("a", buffering=1) if options.record else None
    limits = {}
    for item in options.model_limit:
        name, _, value = item.rpartition("=")
        rpm, _, tpm = value.partition("/")
        limits[name] = ModelLimits(float(rpm) if rpm else None, float(tpm) if tpm else None)
    server = RecordingStub(record, completion, latency_s=options.latency_ms / 1000, model_latency_s=latencies, limits=limits,
                           port=options.port, prompt_cache=True, models=tuple(options.models.split(",")))
    print(server.port, flush=True)

    def stop(*_: Any) -> None:
        # SIGTERM: one JSON line of when each limited model admitted and refused requests, then one of the requests
        # answered and the most in flight at once (a client's concurrency as the server saw it)
        print(json.dumps({name: {"accepted": limit.accepted, "refused": limit.refused}
                          for name, limit in limits.items()}), flush=True)
        print(json.dumps({"requests": len(server.requests), "peak_in_flight": server.peak_in_flight,
                          "mean_in_flight": round(server.mean_in_flight, 1)}), flush=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    server._server.serve_forever()


if __name__ == "__main__":
    main()
