"""One adaptive rate limiter per endpoint + key, shared by every client, job and process that calls it.

What it does, per endpoint (model string + api_base + a fingerprint of the key; never the key itself):

- **Concurrency, adaptive (AIMD).** ``limit`` requests in flight at most. It starts low and doubles per round of
  successes (slow start) until the first throttle, then grows by one per ``limit`` successes while latency holds
  (the smoothed latency stays under twice the best seen); a 429, or a 503 that gives a reason, halves it (once per
  round: only a request started after the last cut can cut again). Never above ``ModelConfig.concurrency`` (the
  ceiling), never below 1. ``adaptive=false`` keeps it at the ceiling (the fixed path).
- **Rates.** Requests and tokens per minute, as configured (``requests_per_minute``, ``tokens_per_minute``) or as
  the provider states them in ``x-ratelimit-limit-requests`` / ``x-ratelimit-limit-tokens``: a token bucket of one
  second's worth paces new requests so the stated rate is used without tripping it.
- **Shared pause.** While the endpoint signals a limit (``Retry-After``, ``retry-after-ms``, a ``*-remaining-*`` of
  0 with its reset, or a 429 without any hint: exponential back-off), *new attempts of every caller* wait for the
  same instant; waiting conversations never each hammer the endpoint.

Headers honoured (how litellm 1.110.2 exposes them: on an error, ``exc.litellm_response_headers`` — for the
hosted_vllm route ``exc.response`` is a synthetic response without headers — or ``exc.response.headers``; on a
success, ``response._hidden_params["additional_headers"]``, raw provider headers prefixed ``llm_provider-``, with
OpenAI's own ``x-ratelimit-*`` also unprefixed): ``retry-after`` (seconds or an HTTP date: every provider),
``retry-after-ms`` (OpenAI, Azure OpenAI), ``x-ratelimit-{limit,remaining,reset}-{requests,tokens}`` (OpenAI,
Azure OpenAI, Groq, Mistral, Together, vLLM behind a gateway), ``anthropic-ratelimit-{requests,tokens}-
{limit,remaining,reset}`` (Anthropic; reset is an RFC 3339 time). Gemini sends no rate headers (its 429 body
carries a ``retryDelay``), so it is paced by AIMD and back-off alone.

Where the state lives: in memory for one process, or, given ``shared_dir``, in one small JSON file per endpoint
guarded by ``fcntl.flock`` — the simplest mechanism that forked launcher workers and separate runs on one store
can all see; requests in flight are counted per pid, and the counts of dead processes are dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import fcntl
import hashlib
import json
import math
import os
import random
import re
import time
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillbench.core.files import write_text_atomic

POLL_S = 0.05  # how often the head waiter re-reads a shared state it cannot be woken by (other processes)
SLOW_START = 2.0  # the first limit of an endpoint never seen
MAX_PAUSE_S = 120.0  # a single pause asked for by the provider, at most (the patience bounds the whole wait)
# Paced a little under a stated rate: at exactly the rate the provider's own bucket stays empty and the jitter of
# arrival times turns into 429s (each of which pauses every caller for its Retry-After).
RATE_MARGIN = 0.97


@dataclass(frozen=True)
class LimitSettings:
    """The configured limits of one endpoint (from its ModelConfig)."""

    ceiling: int
    adaptive: bool = True
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None


@dataclass(frozen=True)
class Hints:
    """What a response's headers say about the endpoint's limits (all optional)."""

    retry_after_s: float | None = None
    wait_s: float | None = None  # a limit is exhausted until then (remaining 0 + reset)
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def _seconds(value: Any) -> float | None:
    """'1', '0.5', '6m0s', '20ms', an HTTP date or an RFC 3339 time → seconds from now."""
    if value is None:
        return None
    text = str(value).strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _DURATION.findall(text)
    if parts and "".join(f"{n}{u}" for n, u in parts) == text:
        scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
        return sum(float(n) * scale[u] for n, u in parts)
    with contextlib.suppress(TypeError, ValueError, IndexError):
        return max(0.0, email.utils.parsedate_to_datetime(text).timestamp() - time.time())
    with contextlib.suppress(ValueError):
        from datetime import datetime

        return max(0.0, datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() - time.time())
    return None


def _number(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def header_map(headers: Any) -> dict[str, str]:
    """Lower-case header names without litellm's ``llm_provider-`` prefix."""
    if not headers:
        return {}
    items = headers.items() if hasattr(headers, "items") else []
    out: dict[str, str] = {}
    for key, value in items:
        name = str(key).lower()
        name = name.removeprefix("llm_provider-")
        out.setdefault(name, str(value))
    return out


def error_headers(exc: BaseException) -> dict[str, str]:
    """The response headers of a failed litellm call (see the module docstring for where litellm keeps them)."""
    found = header_map(getattr(exc, "litellm_response_headers", None))
    found.update({k: v for k, v in header_map(getattr(getattr(exc, "response", None), "headers", None)).items()
                  if k not in found})
    return found


def response_headers(response: Any) -> dict[str, str]:
    hidden = getattr(response, "_hidden_params", None) or {}
    return header_map(hidden.get("additional_headers") if isinstance(hidden, Mapping) else None)


def read_hints(headers: Mapping[str, str]) -> Hints:
    retry = None
    if "retry-after-ms" in headers:
        ms = _number(headers["retry-after-ms"])
        retry = ms / 1000 if ms is not None else None
    if retry is None:
        retry = _seconds(headers.get("retry-after"))
    waits: list[float] = []
    for remaining, reset in (
        ("x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"),
        ("x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"),
        ("anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset"),
        ("anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset"),
    ):
        if _number(headers.get(remaining)) == 0:
            seconds = _seconds(headers.get(reset))
            if seconds is not None:
                waits.append(seconds)
    rpm = _number(headers.get("x-ratelimit-limit-requests") or headers.get("anthropic-ratelimit-requests-limit"))
    tpm = _number(headers.get("x-ratelimit-limit-tokens") or headers.get("anthropic-ratelimit-tokens-limit"))
    return Hints(retry_after_s=retry, wait_s=max(waits) if waits else None,
                 requests_per_minute=rpm if rpm and rpm > 0 else None, tokens_per_minute=tpm if tpm and tpm > 0 else None)


def endpoint_id(model: str, api_base: str | None, api_key: str | None) -> str:
    """Stable name of an endpoint + key; the key enters only as a hash (limits are per key at providers)."""
    key = hashlib.sha256((api_key or "").encode()).hexdigest()[:12] if api_key else "nokey"
    return hashlib.sha256(f"{model}|{api_base or ''}|{key}".encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------- the algorithm
# Pure functions over a JSON-able state dict, so the in-memory and the shared-file backends run the same code.


def new_state(settings: LimitSettings) -> dict[str, Any]:
    start = float(settings.ceiling) if not settings.adaptive else min(float(settings.ceiling), SLOW_START)
    return {"limit": start, "slow_start": True, "in_flight": {}, "pause_until": 0.0, "last_cut": 0.0,
            "throttle_streak": 0, "latency": None, "best_latency": None, "learned_rpm": None, "learned_tpm": None,
            "req_bucket": None, "tok_bucket": None, "bucket_at": 0.0,
            "requests": 0, "rate_limited": 0, "waited_s": 0.0, "min_limit": start}


def _rates(state: dict[str, Any], settings: LimitSettings) -> tuple[float | None, float | None]:
    """Requests and tokens per second in force: the configured ones, else what the provider stated."""
    rpm = settings.requests_per_minute or state.get("learned_rpm")
    tpm = settings.tokens_per_minute or state.get("learned_tpm")
    return (rpm / 60 * RATE_MARGIN if rpm else None), (tpm / 60 * RATE_MARGIN if tpm else None)


def _refill(state: dict[str, Any], settings: LimitSettings, now: float) -> None:
    req_rate, tok_rate = _rates(state, settings)
    elapsed = max(0.0, now - float(state.get("bucket_at") or now))
    state["bucket_at"] = now
    if req_rate:
        cap = max(1.0, req_rate)  # one second's worth
        have = state["req_bucket"]
        state["req_bucket"] = cap if have is None else min(cap, have + elapsed * req_rate)
    if tok_rate:
        cap = tok_rate
        have = state["tok_bucket"]
        state["tok_bucket"] = cap if have is None else min(cap, have + elapsed * tok_rate)


def try_start(state: dict[str, Any], settings: LimitSettings, now: float, owner: str, tokens: int) -> float | None:
    """Take a slot for one request (returns 0.0), or say how long to wait (None: until a request ends)."""
    if now < state["pause_until"]:
        return state["pause_until"] - now
    if sum(state["in_flight"].values()) >= max(1, math.floor(state["limit"])):
        return None
    _refill(state, settings, now)
    req_rate, tok_rate = _rates(state, settings)
    if req_rate and state["req_bucket"] < 1.0:
        return (1.0 - state["req_bucket"]) / req_rate
    if tok_rate:
        need = min(float(tokens), tok_rate)  # a request larger than a second's worth waits for a full bucket only
        if state["tok_bucket"] < need:
            return (need - state["tok_bucket"]) / tok_rate
        state["tok_bucket"] -= tokens
    if req_rate:
        state["req_bucket"] -= 1.0
    state["in_flight"][owner] = state["in_flight"].get(owner, 0) + 1
    state["requests"] += 1
    return 0.0


def finish(state: dict[str, Any], settings: LimitSettings, now: float, owner: str, *, started: float,
           outcome: str, latency_s: float, hints: Hints, extra_tokens: int = 0) -> None:
    """A request ended: ``outcome`` is ok, throttled (429 / 503 with a reason) or failed (anything else)."""
    count = state["in_flight"].get(owner, 0) - 1
    if count > 0:
        state["in_flight"][owner] = count
    else:
        state["in_flight"].pop(owner, None)
    if hints.requests_per_minute:
        state["learned_rpm"] = hints.requests_per_minute
    if hints.tokens_per_minute:
        state["learned_tpm"] = hints.tokens_per_minute
    if extra_tokens and state.get("tok_bucket") is not None:
        state["tok_bucket"] -= extra_tokens  # the reply's tokens, known only now
    pause = hints.wait_s
    if outcome == "ok" and any(_rates(state, settings)):
        # A remaining count of 0 on an answered request is the paced rate at work (the reset it gives is when the
        # provider's bucket is full again, not when the next request fits): the bucket above already spaces them.
        pause = None
    if outcome == "ok":
        state["throttle_streak"] = 0
        previous = state["latency"]
        state["latency"] = latency_s if previous is None else 0.8 * previous + 0.2 * latency_s
        best = state["best_latency"]
        state["best_latency"] = state["latency"] if best is None else min(best, state["latency"])
        if settings.adaptive and state["latency"] <= 2.0 * state["best_latency"] + 0.05:
            grow = 1.0 if state["slow_start"] else 1.0 / max(1.0, state["limit"])
            state["limit"] = min(float(settings.ceiling), state["limit"] + grow)
    elif outcome == "throttled":
        state["rate_limited"] += 1
        state["throttle_streak"] += 1
        if settings.adaptive and started >= state["last_cut"]:
            state["limit"] = max(1.0, state["limit"] * 0.5)
            state["slow_start"] = False
            state["last_cut"] = now
            state["min_limit"] = min(state["min_limit"], state["limit"])
        asked = hints.retry_after_s if hints.retry_after_s is not None else hints.wait_s
        if asked is None:  # no hint: exponential back-off shared by every caller, with jitter
            asked = min(30.0, 0.5 * 2 ** min(state["throttle_streak"] - 1, 6)) * (0.5 + random.random())
        pause = max(pause or 0.0, asked)
        # The bucket restarts empty after a throttle: the provider's own is empty too.
        if state.get("req_bucket") is not None:
            state["req_bucket"] = 0.0
    if pause:
        state["pause_until"] = max(state["pause_until"], now + min(pause, MAX_PAUSE_S))


# ---------------------------------------------------------------------------------------------- the backends


class _MemoryState:
    def __init__(self, settings: LimitSettings) -> None:
        self.state = new_state(settings)
        self.shared = False

    @contextlib.contextmanager
    def locked(self) -> Iterator[dict[str, Any]]:
        yield self.state


class _FileState:
    """The state in ``path``, read and written under an exclusive ``flock`` of ``path.lock``."""

    def __init__(self, path: Path, settings: LimitSettings) -> None:
        self.path = path
        self.settings = settings
        self.shared = True
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_path = path.with_suffix(".lock")

    @contextlib.contextmanager
    def locked(self) -> Iterator[dict[str, Any]]:
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                state = json.loads(self.path.read_text(encoding="utf-8"))
                if not isinstance(state, dict) or "limit" not in state:
                    raise ValueError("not a limiter state")
            except (OSError, ValueError):
                state = new_state(self.settings)
            state["in_flight"] = {pid: n for pid, n in state.get("in_flight", {}).items() if _alive(pid)}
            state["limit"] = min(float(self.settings.ceiling), float(state["limit"]))
            if not self.settings.adaptive:
                state["limit"] = float(self.settings.ceiling)
            yield state
            write_text_atomic(self.path, json.dumps(state))
        finally:
            os.close(fd)  # closing releases the lock


def _alive(owner: str) -> bool:
    try:
        os.kill(int(owner), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


# ---------------------------------------------------------------------------------------------- the limiter


@dataclass
class Ticket:
    """One admitted request: when it started (epoch seconds) and how long it waited for its slot."""

    started: float
    waited_s: float


@dataclass
class EndpointStats:
    """What one job saw of an endpoint (the limiter itself is shared, so its own counters span jobs)."""

    label: str
    requests: int = 0
    rate_limited: int = 0
    waited_s: float = 0.0

    def as_dict(self, limiter: EndpointLimiter) -> dict[str, Any]:
        snapshot = limiter.snapshot()
        return {"endpoint": self.label, "requests": self.requests, "rate_limited": self.rate_limited,
                "rate_limited_share": round(self.rate_limited / self.requests, 4) if self.requests else 0.0,
                "waited_s": round(self.waited_s, 3), "limit": snapshot["limit"], "ceiling": snapshot["ceiling"],
                "requests_per_minute": snapshot["requests_per_minute"], "shared": snapshot["shared"]}


class EndpointLimiter:
    """Admits requests to one endpoint (see the module docstring). Safe across event loops and processes."""

    def __init__(self, label: str, settings: LimitSettings, shared_path: Path | None = None) -> None:
        self.label = label
        self.settings = settings
        self._backend: _MemoryState | _FileState = (
            _FileState(shared_path, settings) if shared_path is not None else _MemoryState(settings))
        self._owner = str(os.getpid())
        # Per event loop (jobs may each run their own): FIFO turn-taking and a wake-up when a slot frees.
        self._turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()
        self._freed: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Event] = weakref.WeakKeyDictionary()

    def _loop_primitives(self) -> tuple[asyncio.Lock, asyncio.Event]:
        loop = asyncio.get_running_loop()
        if loop not in self._turns:
            self._turns[loop], self._freed[loop] = asyncio.Lock(), asyncio.Event()
        return self._turns[loop], self._freed[loop]

    async def acquire(self, tokens: int = 0, deadline: float | None = None) -> Ticket | None:
        """Wait for a slot (None if ``deadline``, a ``time.monotonic()`` instant, passes first)."""
        began = time.monotonic()
        turn, freed = self._loop_primitives()
        async with turn:  # one waiter at a time asks: the others queue behind it, in order
            while True:
                with self._backend.locked() as state:
                    self._owner = str(os.getpid())  # a forked worker is its own owner
                    wait = try_start(state, self.settings, time.time(), self._owner, tokens)
                if wait == 0.0:
                    break
                if wait is None:
                    wait = POLL_S if self._backend.shared else 3600.0
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return None
                    wait = min(wait, left)
                freed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(freed.wait(), timeout=max(0.001, wait))
        waited = time.monotonic() - began
        if waited > 0.001:
            with self._backend.locked() as state:
                state["waited_s"] = float(state.get("waited_s", 0.0)) + waited
        return Ticket(started=time.time(), waited_s=waited)

    def release(self, ticket: Ticket, outcome: str, latency_s: float, hints: Hints = Hints(), extra_tokens: int = 0) -> None:
        with self._backend.locked() as state:
            finish(state, self.settings, time.time(), self._owner, started=ticket.started, outcome=outcome,
                   latency_s=latency_s, hints=hints, extra_tokens=extra_tokens)
        with contextlib.suppress(RuntimeError):
            _, freed = self._loop_primitives()
            freed.set()

    def snapshot(self) -> dict[str, Any]:
        """Current limit, requests, 429s and time waited (over every job and process that shares it)."""
        with self._backend.locked() as state:
            rpm, tpm = _rates(state, self.settings)
            return {"endpoint": self.label, "limit": round(float(state["limit"]), 2), "ceiling": self.settings.ceiling,
                    "adaptive": self.settings.adaptive, "in_flight": sum(state["in_flight"].values()),
                    "requests": state["requests"], "rate_limited": state["rate_limited"],
                    "waited_s": round(float(state.get("waited_s", 0.0)), 3),
                    "requests_per_minute": round(rpm * 60 / RATE_MARGIN, 1) if rpm else None,
                    "tokens_per_minute": round(tpm * 60 / RATE_MARGIN, 1) if tpm else None,
                    "paused_s": round(max(0.0, state["pause_until"] - time.time()), 3),
                    "shared": self._backend.shared}


@dataclass
class LimiterRegistry:
    """The process's limiters, one per endpoint id; ``shared_dir`` puts their state in files there."""

    limiters: dict[str, EndpointLimiter] = field(default_factory=dict)

    def get(self, ident: str, label: str, settings: LimitSettings, shared_dir: Path | None) -> EndpointLimiter:
        key = f"{ident}|{shared_dir or ''}"
        limiter = self.limiters.get(key)
        if limiter is None or limiter.settings != settings:
            path = shared_dir / f"{ident}.json" if shared_dir is not None else None
            limiter = self.limiters[key] = EndpointLimiter(label, settings, path)
        return limiter


LIMITERS = LimiterRegistry()
"""Every job of this process (and, through ``shared_dir``, every process on the same store) uses these."""
