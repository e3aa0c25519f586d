"""One adaptive rate limiter per limit scope (models/limit_scope.py): every client and job of the process uses it,
and, through a lease in a small file per scope, every process on the same store (models/limit_share.py).

What it does, per scope:

- **Costs nothing where nothing limits.** A call that finds a free slot, no pause and a token in the rate bucket
  is admitted at once, in its own turn: no lock, no await, no file. Its state lives in this process's memory;
  sharing with other processes is a lease renewed at most every few hundred ms, off the event loop.
- **Concurrency, adaptive (AIMD).** ``limit`` requests in flight at most. It starts at 2 and grows by one per
  success (doubling per round of calls) until the first throttle, then by one per ``limit`` successes; it grows
  only while calls are waiting for it. A 429, or a 503 that gives a reason, halves it (once per round: only a
  request started after the last cut can cut again). Never above the ceiling (the largest ``concurrency`` of
  the model configs using the scope), never below 1. ``adaptive_concurrency=false`` keeps it at the ceiling.
- **Rates.** Requests and tokens per minute, as configured (``requests_per_minute``, ``tokens_per_minute``) or as
  the provider states them in ``x-ratelimit-limit-requests`` / ``x-ratelimit-limit-tokens``: a token bucket of one
  second's worth paces new requests a little under the stated rate.
- **Shared pause.** While the provider signals a limit (``Retry-After``, ``retry-after-ms``, a ``*-remaining-*``
  of 0 with its reset, or a 429 without any hint: exponential back-off), *new attempts of every caller* wait for
  the same instant; waiting conversations never each hammer the endpoint.
- **Priority.** Waiting calls are admitted highest priority first (the client passes the judge's calls first,
  then calls of conversations further along), so conversations finish, and feed their judges, before new
  ones start.
- **Waits are told apart.** ``waited_s`` counts only what the provider imposed (its pause, its rate);
  ``queued_s`` the time behind this process's own slots. A call's patience (``rate_limit_patience_s``) is
  spent only by the provider: the pauses it sat through and its own throttled attempts.

Headers honoured (how litellm 1.110.2 exposes them: on an error, ``exc.litellm_response_headers`` — for the
hosted_vllm route ``exc.response`` is a synthetic response without headers — or ``exc.response.headers``; on a
success, ``response._hidden_params["additional_headers"]``, raw provider headers prefixed ``llm_provider-``, with
OpenAI's own ``x-ratelimit-*`` also unprefixed): ``retry-after`` (seconds or an HTTP date: every provider),
``retry-after-ms`` (OpenAI, Azure OpenAI), ``x-ratelimit-{limit,remaining,reset}-{requests,tokens}`` (OpenAI,
Azure OpenAI, Groq, Mistral, Together, vLLM behind a gateway), ``anthropic-ratelimit-{requests,tokens}-
{limit,remaining,reset}`` (Anthropic; reset is an RFC 3339 time). Gemini sends no rate headers (its 429 body
carries a ``retryDelay``), so it is paced by AIMD and back-off alone.

One event loop at a time per process uses a limiter (the basic launcher runs one job's loop after another; the
inflight launcher one loop for the sweep); forked launcher workers start with fresh per-process counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import heapq
import logging
import math
import os
import random
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillbench.models.limit_scope import LimitScope
from skillbench.models.limit_share import (
    OWN_LEASE_S,
    SYNC_S,
    Ask,
    Grant,
    alone,
    member_name,
    sync_shared,
)

log = logging.getLogger(__name__)

SLOW_START = 2.0  # the first limit of a scope never seen
MAX_PAUSE_S = 120.0  # a single pause asked for by the provider, at most (the patience bounds the whole wait)
# Paced a little under a stated rate: at exactly the rate the provider's own bucket stays empty and the jitter of
# arrival times turns into 429s (each of which pauses every caller for its Retry-After).
RATE_MARGIN = 0.97
_MIN_SYNC_GAP_S = 0.05  # renewals asked for at once (a 429, a newly stated limit) come at most this often
# Turns: where processes share a request rate of at most TURN_MAX_RATE a second (a provider's burst of one or two
# requests), each sends only at the start of turns reserved for it (limit_share: each turn of one clock grid, from
# time.time(), goes to one process), turns TURN_MARGIN of the rate apart, within TURN_WINDOW of a turn's start: any
# two sends are at least (1 - TURN_WINDOW) / TURN_MARGIN ≥ 1 request's time apart. Cluster nodes' clocks agree to
# milliseconds (NTP); a turn lasts half a second or more.
TURN_MAX_RATE = 2.0
TURN_MARGIN = 0.95
TURN_WINDOW = 0.05
TURNS_AHEAD = 2  # turns a process with calls waiting holds reserved at most


@dataclass(frozen=True)
class LimitSettings:
    """The configured limits of one scope (from the ModelConfigs that use it)."""

    ceiling: int
    adaptive: bool = True
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None

    def merged(self, other: LimitSettings) -> LimitSettings:
        """Two model configs in one scope: the larger ceiling, the stricter stated limits, fixed if either is."""
        return LimitSettings(ceiling=max(self.ceiling, other.ceiling), adaptive=self.adaptive and other.adaptive,
                             requests_per_minute=_lower(self.requests_per_minute, other.requests_per_minute),
                             tokens_per_minute=_lower(self.tokens_per_minute, other.tokens_per_minute))


def _lower(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


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


# ---------------------------------------------------------------------------------------------- clocks


class _Clock:
    """Seconds spent in one state (on), read at any instant."""

    def __init__(self) -> None:
        self.total = 0.0
        self.since: float | None = None

    def set(self, on: bool, now: float) -> None:
        if on and self.since is None:
            self.since = now
        elif not on and self.since is not None:
            self.total += now - self.since
            self.since = None

    def read(self, now: float) -> float:
        return self.total + (now - self.since if self.since is not None else 0.0)


class _Pause:
    """The provider's pause: until when every new attempt waits, and the seconds paused so far (a clock the
    patience is read from)."""

    def __init__(self) -> None:
        self.start = self.until = self.closed = 0.0

    def extend(self, now: float, until: float) -> None:
        if now >= self.until:  # not paused: the previous pause is over, a new one starts now
            self.closed += self.until - self.start
            self.start, self.until = now, max(now, until)
        else:
            self.until = max(self.until, until)

    def clock(self, now: float) -> float:
        return self.closed + max(0.0, min(now, self.until) - self.start)


# ---------------------------------------------------------------------------------------------- the limiter


@dataclass
class Ticket:
    """One admitted request: when it started (``time.monotonic()``), and how long it waited: ``waited_s`` for
    the provider (its pause, its rate), ``queued_s`` behind this process's own slots, ``paused_s`` of it in the
    provider's pauses (what spends the patience)."""

    started: float
    tokens: int = 0  # the prompt's estimated tokens
    waited_s: float = 0.0
    queued_s: float = 0.0
    paused_s: float = 0.0


@dataclass(eq=False)
class _Waiter:
    priority: float
    seq: int
    tokens: int
    future: asyncio.Future[Ticket]
    enqueued: float
    provider_clock: float
    pause_clock: float

    def __lt__(self, other: _Waiter) -> bool:  # the heap's order: highest priority first, then first come
        return (-self.priority, self.seq) < (-other.priority, other.seq)


@dataclass
class _Lease:
    """This process's share of a scope that other processes may use too (models/limit_share.py)."""

    path: Path
    nonce: str = field(default_factory=lambda: secrets.token_hex(4))
    grant: Grant | None = None  # None: not granted yet (or given back)
    valid_until: float = -math.inf  # monotonic
    task: asyncio.Task[None] | None = None
    soon: asyncio.Event | None = None
    last_sync: float = -math.inf
    broken: str | None = None  # why the file cannot be used (then this process limits alone)
    published_pause: float = 0.0  # epoch seconds
    fresh_rpm: float | None = None  # stated since the last renewal
    fresh_tpm: float | None = None

    def usable(self, now: float) -> bool:
        return self.broken is not None or (self.grant is not None and now < self.valid_until)


@dataclass
class EndpointStats:
    """What one job saw of a scope (the limiter itself is shared, so its own counters span jobs)."""

    label: str
    requests: int = 0
    rate_limited: int = 0
    waited_s: float = 0.0
    queued_s: float = 0.0

    def as_dict(self, limiter: EndpointLimiter) -> dict[str, Any]:
        snapshot = limiter.snapshot()
        return {"endpoint": snapshot["endpoint"], "scope": snapshot["scope"], "requests": self.requests,
                "rate_limited": self.rate_limited,
                "rate_limited_share": round(self.rate_limited / self.requests, 4) if self.requests else 0.0,
                "waited_s": round(self.waited_s, 3), "queued_s": round(self.queued_s, 3),
                **{name: snapshot[name] for name in ("limit", "ceiling", "requests_per_minute", "tokens_per_minute",
                                                     "shared", "processes")}}


class EndpointLimiter:
    """Admits requests to one limit scope (see the module docstring)."""

    def __init__(self, label: str, settings: LimitSettings, shared_path: Path | None = None,
                 scope: str = "model") -> None:
        self.where = label
        self.scope = scope
        self.models: list[str] = []
        self.settings = settings
        self.limit = float(settings.ceiling) if not settings.adaptive else min(float(settings.ceiling), SLOW_START)
        self.min_limit = self.limit
        self.slow_start = True
        self.last_cut = -math.inf
        self.in_flight = 0
        self.requests = self.rate_limited = 0
        self.learned_rpm: float | None = None
        self.learned_tpm: float | None = None
        self._streak = 0  # 429s in a row (the back-off's exponent)
        self._pause = _Pause()
        self._blocked = _Clock()  # runs while calls wait on the provider (its pause or its rate)
        self._req_level: float | None = None
        self._req_debt = 0  # requests sent before the rate was known, taken from the bucket when it starts
        self._my_turns: list[int] = []  # turns reserved for this process, not yet used (see TURN_MAX_RATE)
        self._turn_now: int | None = None  # the turn _check just admitted in, for _take
        self._last_sent = 0.0  # epoch seconds of this process's latest request
        self._tok_debt = 0  # ... and their tokens
        self._tokens_in_flight = 0
        self._tok_level: float | None = None
        self._bucket_at = 0.0
        self._waiters: list[_Waiter] = []
        self._waiting = 0
        self._seq = 0
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf
        self._timer_loop: asyncio.AbstractEventLoop | None = None
        self._lease = _Lease(shared_path) if shared_path is not None else None

    @property
    def label(self) -> str:
        """'<model>, <model> @ <where>': the models seen using the scope, and where it is."""
        models = ", ".join(self.models)
        return f"{models} @ {self.where}" if models and models != self.where else self.where

    def join(self, model: str, settings: LimitSettings) -> None:
        """A model config using this scope: its model string is listed, its limits merged in."""
        if model not in self.models:
            self.models.append(model)
        merged = self.settings.merged(settings)
        if merged != self.settings:
            self.settings = merged
            if not merged.adaptive:
                self.limit = float(merged.ceiling)

    # ------------------------------------------------------------------ admission

    async def acquire(self, tokens: int = 0, priority: float = 0.0, patience_s: float | None = None,
                      paused_s: float = 0.0) -> Ticket | None:
        """A slot for one request, or None once the provider's pauses since this call began (``paused_s`` of
        them before this wait) reach ``patience_s``."""
        now = time.monotonic()
        if not self._waiting and self._check(now, tokens)[0] == "ok":
            self._take(tokens)
            return Ticket(started=now, tokens=tokens)
        loop = asyncio.get_running_loop()
        self._seq += 1
        waiter = _Waiter(priority, self._seq, tokens, loop.create_future(), now, self._blocked.read(now),
                         self._pause.clock(now))
        heapq.heappush(self._waiters, waiter)
        self._waiting += 1
        self._dispatch()
        try:
            while not waiter.future.done():
                timeout = None
                if patience_s is not None:
                    spent = paused_s + self._pause.clock(time.monotonic()) - waiter.pause_clock
                    if spent >= patience_s:
                        self._forget(waiter)
                        return None
                    timeout = patience_s - spent  # the pause clock runs at most as fast as time does
                await asyncio.wait((waiter.future,), timeout=timeout)
        except BaseException:  # cancelled while waiting (a budget stop, Ctrl-C)
            if waiter.future.done() and not waiter.future.cancelled():
                self._give_back(waiter.tokens)  # admitted just before: the slot is not used
            else:
                self._forget(waiter)
            raise
        return waiter.future.result()

    def _check(self, now: float, tokens: int) -> tuple[str, float | None]:
        """('ok', 0) when a request can start now; else what holds it: 'pause' or 'rate' (the provider, with the
        seconds until it may), 'slots' (this process's own concurrency) or 'lease' (the share is being renewed)."""
        if now < self._pause.until:
            return "pause", self._pause.until - now
        lease = self._lease
        if lease is not None and not lease.usable(now):
            return "lease", None
        if self.in_flight >= self._slots():
            return ("lease", None) if self._slots() == 0 else ("slots", None)
        req_rate, tok_rate = self.rates()
        if req_rate is None and tok_rate is None:
            return "ok", 0.0
        if req_rate == 0.0 or tok_rate == 0.0:  # a rate in force, none of it this process's yet
            return "lease", None
        wait = self._rate_wait(now, tokens, req_rate, tok_rate)
        return ("rate", wait) if wait else ("ok", 0.0)

    def _rate_wait(self, now: float, tokens: int, req_rate: float | None, tok_rate: float | None) -> float:
        """Seconds until the rates in force let a request of ``tokens`` start (0: now)."""
        self._turn_now = None
        self._refill(now, req_rate, tok_rate)
        turns = self._turns_per_s() if req_rate else None
        if turns:
            wait = self._turn_wait(turns)
            if wait:
                return wait
        elif req_rate and self._req_level is not None and self._req_level < 1.0:
            return (1.0 - self._req_level) / req_rate
        if tok_rate and self._tok_level is not None:
            need = min(float(tokens), tok_rate)  # a request larger than a second's worth waits for a full bucket only
            if self._tok_level < need:
                self._turn_now = None
                return (need - self._tok_level) / tok_rate
        return 0.0

    def _turns_per_s(self) -> float | None:
        """Turns a second of the scope's clock grid when this process takes turns with others (a shared request rate
        of at most TURN_MAX_RATE), else None (its own bucket paces it)."""
        lease = self._lease
        grant = lease.grant if lease is not None and lease.broken is None else None
        rpm = self.settings.requests_per_minute or self.learned_rpm
        if grant is None or grant.members <= 1 or not rpm or rpm / 60 > TURN_MAX_RATE:
            return None
        return rpm / 60 * TURN_MARGIN

    def _turn_wait(self, per_s: float) -> float:
        """0 when a request may start in one of this process's turns now; else seconds to its next reserved turn
        (or to the next renewal, which reserves some)."""
        position = time.time() * per_s
        turn = math.floor(position)
        late = position - turn > TURN_WINDOW
        self._my_turns = [t for t in self._my_turns if t > turn or (t == turn and not late)]  # missed ones lapse
        if self._my_turns and self._my_turns[0] == turn:
            self._turn_now = turn
            return 0.0
        if self._my_turns:
            return (self._my_turns[0] - position) / per_s
        self._renew(soon=True)
        return SYNC_S

    def _slots(self) -> int:
        slots = max(1, math.floor(self.limit))
        lease = self._lease
        if lease is not None and lease.broken is None and lease.grant is not None:
            slots = min(slots, lease.grant.slots)
        return slots

    def rates(self) -> tuple[float | None, float | None]:
        """Requests and tokens per second this process paces to: its share of the rates in force."""
        rpm = self.settings.requests_per_minute or self.learned_rpm
        tpm = self.settings.tokens_per_minute or self.learned_tpm
        lease = self._lease
        share = lease.grant.rate_share if lease is not None and lease.broken is None and lease.grant else 1.0
        return (rpm / 60 * RATE_MARGIN * share if rpm else None), (tpm / 60 * RATE_MARGIN * share if tpm else None)

    def _refill(self, now: float, req_rate: float | None, tok_rate: float | None) -> None:
        elapsed = max(0.0, now - self._bucket_at)
        self._bucket_at = now
        # A bucket starts full (one second's worth) when this process is alone, empty when others share the rate.
        lease = self._lease
        start_full = lease is None or lease.grant is None or lease.grant.members <= 1
        if req_rate:
            cap = max(1.0, req_rate)
            have = self._req_level
            if have is None:  # created now, less the requests the provider counted before its rate was known
                self._req_level = max(0.0, cap - self._req_debt) if start_full else 0.0
                self._req_debt = 0
            else:  # (a new bucket is not refilled: the time since the last refill predates it)
                self._req_level = min(cap, have + elapsed * req_rate)
        if tok_rate:
            have = self._tok_level
            if have is None:
                self._tok_level = max(0.0, tok_rate - self._tok_debt) if start_full else 0.0
                self._tok_debt = 0
            else:
                self._tok_level = min(tok_rate, have + elapsed * tok_rate)

    def _take(self, tokens: int) -> None:
        if self._turn_now is not None:  # admitted in its turn: the turns pace it, not the bucket
            self._my_turns.remove(self._turn_now)
            self._turn_now = None
        elif self._req_level is not None:  # a bucket exists once a rate is in force (rates never go away)
            self._req_level -= 1.0
        if self._lease is not None:
            self._last_sent = time.time()
        if self._tok_level is not None:
            self._tok_level -= tokens
        self.in_flight += 1
        self._tokens_in_flight += tokens
        self.requests += 1

    def _give_back(self, tokens: int) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        self._tokens_in_flight -= tokens
        self.requests -= 1
        if self._req_level is not None:
            self._req_level += 1.0
        if self._tok_level is not None:
            self._tok_level += tokens
        self._dispatch()

    def _forget(self, waiter: _Waiter) -> None:
        """A waiter that gives up (patience spent, cancelled): it leaves the queue (lazily, from the heap)."""
        if not waiter.future.done():
            waiter.future.cancel()
            self._waiting -= 1
        self._dispatch()

    def _dispatch(self) -> None:
        """Admit waiting calls, best first, for as long as they fit; then wait for what holds the next one."""
        now = time.monotonic()
        reason, wait = "idle", None
        while self._waiters:
            waiter = self._waiters[0]
            if waiter.future.done() or waiter.future.get_loop().is_closed():  # gave up, or its job's loop ended
                heapq.heappop(self._waiters)
                if not waiter.future.done():
                    self._waiting -= 1
                continue
            reason, wait = self._check(now, waiter.tokens)
            if reason != "ok":
                break
            heapq.heappop(self._waiters)
            self._waiting -= 1
            self._take(waiter.tokens)
            waited = self._blocked.read(now) - waiter.provider_clock
            waiter.future.set_result(Ticket(started=now, tokens=waiter.tokens, waited_s=waited,
                                            queued_s=max(0.0, now - waiter.enqueued - waited),
                                            paused_s=self._pause.clock(now) - waiter.pause_clock))
            reason, wait = "idle", None
        self._blocked.set(reason in ("pause", "rate"), now)
        if wait is not None:
            self._arm(now + wait)
        if reason == "lease":
            self._renew()

    def _arm(self, when: float) -> None:
        """Dispatch again at ``when`` (monotonic): one timer, the earliest asked for, on the running loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._timer is not None:
            if self._timer_at <= when and self._timer_loop is loop:
                return
            self._timer.cancel()
        self._timer_at, self._timer_loop = when, loop
        self._timer = loop.call_later(max(0.0, when - time.monotonic()), self._on_timer)

    def _on_timer(self) -> None:
        self._timer, self._timer_at = None, math.inf
        self._dispatch()

    # ------------------------------------------------------------------ outcomes

    def release(self, ticket: Ticket, outcome: str, latency_s: float, hints: Hints = Hints(), extra_tokens: int = 0) -> None:
        """A request ended: ``outcome`` is ok, throttled (429 / 503 with a reason) or failed (anything else)."""
        now = time.monotonic()
        self.in_flight = max(0, self.in_flight - 1)
        self._tokens_in_flight -= ticket.tokens
        self._learn(hints, ticket.tokens)
        if extra_tokens and self._tok_level is not None:
            self._tok_level -= extra_tokens  # the reply's tokens, known only now
        pause = hints.wait_s
        if outcome == "ok" and any(self.rates()):
            # A remaining count of 0 on an answered request is the paced rate at work (the reset it gives is when the
            # provider's bucket is full again, not when the next request fits): the bucket already spaces them.
            pause = None
        if outcome == "ok":
            self._grow()
        elif outcome == "throttled":
            pause = max(pause or 0.0, self._throttled(ticket.started, now, hints))
        if pause:
            self._pause_for(now, pause)
            if outcome == "throttled":
                # The provider's buckets are empty: ours restart empty when the pause ends, so the first second after
                # it is paced, not a burst that empties the provider's again (a 429 and a pause every second).
                self._req_level = 0.0 if self._req_level is not None else None
                self._tok_level = 0.0 if self._tok_level is not None else None
                self._bucket_at = max(self._bucket_at, self._pause.until)
        self._dispatch()

    def _grow(self) -> None:
        self._streak = 0
        # Only while calls wait for it: a limit never used would otherwise grow untested up to the ceiling.
        if self.settings.adaptive and self.in_flight + self._waiting + 1 >= math.floor(self.limit):
            step = 1.0 if self.slow_start else 1.0 / max(1.0, self.limit)
            self.limit = min(float(self.settings.ceiling), self.limit + step)

    def _throttled(self, started: float, now: float, hints: Hints) -> float:
        """Count a 429 (or 503 with a reason), cut the limit once per round; the pause it asks for."""
        self.rate_limited += 1
        self._streak += 1
        if self.settings.adaptive and started >= self.last_cut:
            self.limit = max(1.0, self.limit * 0.5)
            self.slow_start = False
            self.last_cut = now
            self.min_limit = min(self.min_limit, self.limit)
        asked = hints.retry_after_s if hints.retry_after_s is not None else hints.wait_s
        if asked is None:  # no hint: exponential back-off shared by every caller, with jitter
            asked = min(30.0, 0.5 * 2 ** min(self._streak - 1, 6)) * (0.5 + random.random())
        return asked

    def _pause_for(self, now: float, seconds: float) -> None:
        self._pause.extend(now, now + min(seconds, MAX_PAUSE_S))
        if self._lease is not None:  # every other process follows it from its next renewal
            self._lease.published_pause = time.time() + (self._pause.until - now)
            self._renew(soon=True)

    def _learn(self, hints: Hints, tokens: int) -> None:
        """Limits the provider stated; the first time, the calls sent before (unpaced) are taken from the buckets
        when they start: the provider counted them."""
        lease = self._lease
        if hints.requests_per_minute and hints.requests_per_minute != self.learned_rpm:
            if self.learned_rpm is None and not self.settings.requests_per_minute:
                self._req_debt = self.in_flight + 1
            self.learned_rpm = hints.requests_per_minute
            if lease is not None:
                lease.fresh_rpm = self.learned_rpm
                self._renew(soon=True)
        if hints.tokens_per_minute and hints.tokens_per_minute != self.learned_tpm:
            if self.learned_tpm is None and not self.settings.tokens_per_minute:
                self._tok_debt = self._tokens_in_flight + tokens
            self.learned_tpm = hints.tokens_per_minute
            if lease is not None:
                lease.fresh_tpm = self.learned_tpm
                self._renew(soon=True)

    # ------------------------------------------------------------------ sharing with other processes

    def _renew(self, soon: bool = False) -> None:
        """Keep this process's lease (a task on the running loop, started when needed); ``soon``: renew now."""
        lease = self._lease
        if lease is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if lease.task is None or lease.task.done() or lease.task.get_loop() is not loop:
            lease.soon = asyncio.Event()
            lease.task = loop.create_task(self._keep_lease(lease))
        elif soon and lease.soon is not None:
            lease.soon.set()

    async def _keep_lease(self, lease: _Lease) -> None:
        """Renew the share every SYNC_S while calls are in flight or waiting (at once when asked), the file work in
        a thread; give the share back once idle."""
        while True:
            wait = lease.last_sync + _MIN_SYNC_GAP_S - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            turn_rate = self._turns_per_s() or 0.0
            ask = Ask(ceiling=self.settings.ceiling, want=min(self.settings.ceiling, self.in_flight + self._waiting),
                      in_flight=self.in_flight, learned_rpm=lease.fresh_rpm, learned_tpm=lease.fresh_tpm,
                      pause_until=lease.published_pause, last_sent=self._last_sent, turn_rate=turn_rate,
                      turns=max(0, min(TURNS_AHEAD, self._waiting) - len(self._my_turns)) if turn_rate else 0)
            lease.fresh_rpm = lease.fresh_tpm = None
            lease.last_sync = time.monotonic()
            try:
                grant = await asyncio.to_thread(sync_shared, lease.path, member_name(lease.nonce), ask)
                lease.broken = None
            except OSError as exc:  # an unwritable store: limit alone rather than stop every call
                if lease.broken is None:
                    log.warning("rate limits of %s cannot be shared with other processes (%s: %s); this process "
                                "limits alone until it can", self.label, lease.path, exc)
                lease.broken = str(exc)
                grant = alone(self.settings.ceiling)
            self._apply(lease, grant)
            self._dispatch()
            if ask.want == 0 and not self.in_flight and not self._waiting:
                lease.grant = None  # given back; the next call renews first
                return
            assert lease.soon is not None
            lease.soon.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(lease.soon.wait(), SYNC_S)

    def _apply(self, lease: _Lease, grant: Grant) -> None:
        now = time.monotonic()
        lease.grant = grant
        lease.valid_until = now + OWN_LEASE_S
        self._my_turns = sorted({*self._my_turns, *grant.turns})
        if grant.requests_per_minute and not lease.fresh_rpm:
            self.learned_rpm = grant.requests_per_minute
        if grant.tokens_per_minute and not lease.fresh_tpm:
            self.learned_tpm = grant.tokens_per_minute
        until = now + (grant.pause_until - time.time())
        if until > now and until > self._pause.until:
            self._pause.extend(now, until)

    def after_fork(self) -> None:
        """In a forked worker: nothing in flight or waiting here, no timer, no lease yet (learned limits kept)."""
        self.in_flight = self._waiting = self._tokens_in_flight = 0
        self._waiters, self._my_turns = [], []
        self._timer, self._timer_at = None, math.inf
        self._blocked = _Clock()
        if self._lease is not None:
            self._lease = _Lease(self._lease.path)

    # ------------------------------------------------------------------ what it shows

    def snapshot(self) -> dict[str, Any]:
        """Current limit, rates in force, requests, 429s (of this process's calls through the scope)."""
        rpm = self.settings.requests_per_minute or self.learned_rpm
        tpm = self.settings.tokens_per_minute or self.learned_tpm
        lease = self._lease
        processes = lease.grant.members if lease is not None and lease.grant is not None and lease.broken is None else 1
        return {"endpoint": self.label, "scope": self.scope, "limit": round(self.limit, 2),
                "ceiling": self.settings.ceiling, "adaptive": self.settings.adaptive, "in_flight": self.in_flight,
                "requests": self.requests, "rate_limited": self.rate_limited,
                "requests_per_minute": rpm, "tokens_per_minute": tpm,
                "paused_s": round(max(0.0, self._pause.until - time.monotonic()), 3),
                "shared": lease is not None, "processes": processes}


@dataclass
class LimiterRegistry:
    """The process's limiters, one per limit scope (and ``shared_dir``: where its lease file lives)."""

    limiters: dict[str, EndpointLimiter] = field(default_factory=dict)

    def get(self, scope: LimitScope, model: str, settings: LimitSettings, shared_dir: Path | None) -> EndpointLimiter:
        key = f"{scope.ident}|{shared_dir or ''}"
        limiter = self.limiters.get(key)
        if limiter is None:
            path = shared_dir / f"{scope.ident}.json" if shared_dir is not None else None
            limiter = self.limiters[key] = EndpointLimiter(scope.where, settings, path, scope.kind)
        limiter.join(model, settings)
        return limiter

    def after_fork(self) -> None:
        for limiter in self.limiters.values():
            limiter.after_fork()


LIMITERS = LimiterRegistry()
"""Every job of this process (and, through ``shared_dir``, every process on the same store) uses these."""
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=LIMITERS.after_fork)
