"""One small client over litellm: an adaptive limiter per endpoint, patience with throttling, retries with
backoff, timeouts, accounting."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from skillbench.config.schema import ModelConfig
from skillbench.core.errors import CONFIG_ERROR_PREFIX, THROTTLED_MARK, InfrastructureError, ModelOutputError
from skillbench.core.records import ServedBy, ToolCall, Usage
from skillbench.models.call_path import NotSent, acompletion, inline_set_up
from skillbench.models.ledger import note_reply
from skillbench.models.limit_scope import limit_scope
from skillbench.models.limiter import (
    LIMITERS,
    EndpointLimiter,
    EndpointStats,
    Hints,
    LimitSettings,
    Ticket,
    error_headers,
    read_hints,
    response_headers,
)
from skillbench.models.litellm_setup import get_litellm, register_zero_cost
from skillbench.models.plugins import ensure_provider
from skillbench.models.prices import token_prices
from skillbench.models.prompt_size import prompt_problem, prompt_tokens
from skillbench.models.server_faults import describe_model_fault, model_fault
from skillbench.models.server_props import ServerProps, endpoint_props

log = logging.getLogger(__name__)

# Retrying a request is decided by its HTTP status (see is_transient); these litellm exceptions carry no usable
# status of their own (the connection dropped, the client timed out) and are retried too.
_TRANSIENT_WITHOUT_STATUS = ("APIConnectionError", "Timeout", "APIError")
# A request the provider refused as malformed (HTTP 400 and litellm's subclasses of it).
_REFUSED = ("BadRequestError", "ContextWindowExceededError", "ContentPolicyViolationError", "UnsupportedParamsError")
# Failures that repeating the request cannot fix (bad key, no access, unknown model or route): not retried,
# neither here nor as a whole conversation.
_PERMANENT = ("AuthenticationError", "PermissionDeniedError", "NotFoundError")
_PERMANENT_STATUS = frozenset({401, 403, 404})
MAX_RETRY_AFTER_S = 60.0  # a server asking for a longer pause is treated as down: the rerun fills the row in
# A 503 that names a cause like these (or carries Retry-After) is throttling by a live server, not an outage.
_THROTTLE_WORDS = re.compile(r"overload|capacity|rate.?limit|too many|busy|try again|slow down|quota", re.IGNORECASE)
_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.DOTALL)

UsageObserver = Callable[[str, Usage], None]
"""Told ``(role, usage of one attempt)`` as each request ends, answered or not: live progress and cost see
every call as it happens, not when its conversation finishes. Passed down by the caller (the engine), so
this layer never imports the one that displays it."""


@dataclass
class Completion:
    """A model reply: text, tool calls, reasoning, and what it cost.

    ``problem`` says why a reply that came back is unusable in itself (no choices); whether an empty
    reply is the model's failure, a judge error or an infrastructure error depends on the caller's role.
    ``finish_reason`` is the server's (``length``: cut at the ``max_tokens`` cap, see :attr:`cut`);
    ``served_by`` is what the server says answered (its model id and fingerprint/build, when it gives them).
    """

    content: str | None
    tool_calls: list[ToolCall]
    usage: Usage
    raw_message: dict[str, Any] = field(default_factory=dict)
    reasoning: str | None = None
    problem: str | None = None
    finish_reason: str | None = None
    served_by: ServedBy | None = None
    max_tokens: int | None = None  # the cap this request was sent with (None: the server's default)

    @property
    def cut(self) -> bool:
        """The reply was cut by the token cap (``finish_reason: "length"``)."""
        return self.finish_reason == "length"

    def cut_note(self) -> str:
        """'cut at max_tokens (256)' — how a cut reply is named in rows, transcripts and judge errors."""
        return f"cut at max_tokens ({self.max_tokens if self.max_tokens is not None else 'server default'})"


def _parse_tool_calls(message: Any) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for call in getattr(message, "tool_calls", None) or []:
        function = call.function
        text = function.arguments or "{}"
        try:
            arguments = json.loads(text)
            raw = None
            if not isinstance(arguments, dict):
                arguments, raw = {}, text
        except json.JSONDecodeError:
            arguments, raw = {}, text
        # No id: litellm gives a call without one a random UUID; an empty one stays empty and the turn loop, which
        # knows the conversation, gives it an id unique in it (rollout.orchestrator.entered_call).
        calls.append(ToolCall(id=call.id or "", name=function.name or "", arguments=arguments, raw_arguments=raw))
    return calls


def split_reasoning(content: str | None, reasoning: str | None) -> tuple[str | None, str | None]:
    """Move ``<think>…</think>`` blocks out of the reply text into the reasoning (shown, never judged)."""
    if not content or "<think>" not in content:
        return content, reasoning
    thoughts = [part.strip() for part in _THINK.findall(content) if part.strip()]
    rest = _THINK.sub("", content).strip()
    joined = "\n\n".join([r for r in [reasoning, *thoughts] if r])
    return rest, joined or None


def model_fault_in_request(messages: list[dict[str, Any]]) -> str | None:
    """What in a request the model itself produced that a provider may refuse: tool-call arguments that
    are not a JSON object, or an assistant message with neither text nor tool calls. None when clean."""
    for message in messages:
        if message.get("role") != "assistant":
            continue
        calls = message.get("tool_calls") or []
        if not calls and not (message.get("content") or "").strip():
            return "an empty assistant message"
        for call in calls:
            text = (call.get("function") or {}).get("arguments") or "{}"
            try:
                valid = isinstance(json.loads(text), dict)
            except json.JSONDecodeError:
                valid = False
            if not valid:
                return f"tool call {(call.get('function') or {}).get('name', '?')} with arguments that are not JSON"
    return None


def retry_after_s(exc: Exception) -> float | None:
    """Seconds from a Retry-After / retry-after-ms header on a failed response (see models/limiter.py)."""
    return read_hints(error_headers(exc)).retry_after_s


def is_throttled(exc: BaseException) -> bool:
    """A live endpoint limiting us: HTTP 429, or a 503 that gives a reason (Retry-After, or words like 'overloaded')."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if name == "RateLimitError" or status == 429:
        return True
    if name == "ServiceUnavailableError" or status == 503:
        headers = error_headers(exc)
        return "retry-after" in headers or "retry-after-ms" in headers or bool(_THROTTLE_WORDS.search(str(exc)))
    return False


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def is_transient(exc: BaseException) -> bool:
    """Worth sending again: any 5xx (502 and 504 included; a 5xx reporting the model's own output never gets
    here, see server_faults.py), 408 and 429, or a failure with no HTTP status (a dropped connection, a client
    timeout). Decided by the status, not by litellm's class names, which differ per status and provider."""
    status = _status(exc)
    if status is not None:
        return status >= 500 or status in (408, 429)
    return isinstance(exc, asyncio.TimeoutError) or type(exc).__name__ in _TRANSIENT_WITHOUT_STATUS


def is_permanent(exc: BaseException) -> bool:
    """A bad key, no access, an unknown model or route (401, 403, 404): repeating it cannot help."""
    return _status(exc) in _PERMANENT_STATUS or type(exc).__name__ in _PERMANENT


def cached_prompt_tokens(usage: Any) -> int:
    """Prompt tokens served from the provider's prompt cache. litellm puts every provider's count (OpenAI's
    ``cached_tokens``, Anthropic's cache reads, Gemini's cached content) in ``prompt_tokens_details``."""
    details = getattr(usage, "prompt_tokens_details", None)
    return int(getattr(details, "cached_tokens", 0) or 0)


def served_by(response: Any, props: ServerProps | None = None) -> ServedBy | None:
    """What the server says answered: the reply's ``model`` and ``system_fingerprint`` (llama.cpp puts its build there),
    with the model file and chat template its ``/props`` reports (:mod:`skillbench.models.server_props`)."""
    model = getattr(response, "model", None)
    fingerprint = getattr(response, "system_fingerprint", None) or (props.build if props is not None else None)
    if not model and not fingerprint:
        return None
    return ServedBy(model=str(model or ""), fingerprint=str(fingerprint) if fingerprint else None,
                    model_file=props.model_file if props is not None else None,
                    chat_template=props.chat_template if props is not None else None)


JUDGE_PRIORITY = 1e9  # above any conversation's message count: a judge's call ends a row


@dataclass
class _Call:
    """One call's state across its attempts."""

    began: float  # time.monotonic()
    tokens: int  # the prompt's estimated tokens (for a tokens-per-minute limit)
    priority: float
    spent: Usage = field(default_factory=Usage)
    attempt: int = 0  # retries of failures other than throttling
    throttles: int = 0
    paused_s: float = 0.0  # time the provider made this call wait: its pauses and refused attempts (the patience)
    throttled_s: float = 0.0  # wall time until the last throttled reply (extends the retry budget)


class ModelClient:
    """Calls one configured model. Real endpoints go through their shared :class:`EndpointLimiter` (one per
    endpoint + key in the process, or across processes with ``shared_dir``); simulated ones through a plain
    semaphore (nothing to throttle). ``stats`` counts this job's requests, 429s and waiting. ``role`` (agent,
    user, judge, mock) labels what the calls record in the current call ledger (:mod:`skillbench.models.ledger`)."""

    def __init__(
        self,
        cfg: ModelConfig,
        limiter: EndpointLimiter | asyncio.Semaphore | None = None,
        seed: int | None = None,
        on_usage: Callable[[Usage], None] | None = None,
        role: str | None = None,
        stats: EndpointStats | None = None,
    ) -> None:
        self.cfg = cfg
        self.role = role
        self.limiter = limiter if limiter is not None else endpoint_limiter(cfg)
        self.stats = stats
        self.seed = seed
        self.on_usage = on_usage
        self._replies = (0, 0)  # replies read and their completion tokens: how long an abandoned reply likely was
        self._litellm = get_litellm()
        ensure_provider(cfg.model, self._litellm)
        self._inline_set_up = inline_set_up(self._litellm, cfg.model, cfg.api_base)
        if cfg.api_base and not cfg.simulated:
            provider = cfg.model.split("/", 1)[0]
            register_zero_cost(cfg.model, provider)

    def _request_kwargs(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                        response_format: dict[str, Any] | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.cfg.model,
            "messages": messages,
            "timeout": self.cfg.timeout_s,
            "num_retries": 0,  # retries are ours, so they are counted and logged once
            **{k: v for k, v in self.cfg.params.items() if v is not None},
        }
        if tools:
            kwargs["tools"] = tools
        if response_format is not None:
            kwargs["response_format"] = response_format
        if self.seed is not None and "seed" not in kwargs:
            kwargs["seed"] = self.seed
        if self.cfg.api_base:
            kwargs["api_base"] = self.cfg.api_base
        if self.cfg.api_key_env and os.environ.get(self.cfg.api_key_env):
            kwargs["api_key"] = os.environ[self.cfg.api_key_env]
        return kwargs

    def _refused(self, exc: Exception, messages: list[dict[str, Any]], spent: Usage) -> Exception:
        """A 400: the model's fault when the request echoes its own unusable output, else a configuration error."""
        what = f"{self.cfg.name} ({self.cfg.model}): {type(exc).__name__}: {str(exc)[:300]}"
        fault = model_fault_in_request(messages)
        if fault is not None:
            return ModelOutputError(f"provider refused a request holding the model's own {fault}: {what}", usage=spent)
        log.error("configuration error: the provider refused a request built from valid inputs: %s", what)
        return InfrastructureError(f"{CONFIG_ERROR_PREFIX} (request refused): {what}", usage=spent, retryable=False)

    def _delay(self, exc: Exception, attempt: int, deadline: float) -> float | None:
        """Seconds to wait before the next attempt; None when the server's Retry-After exceeds the budget."""
        remaining = deadline - time.monotonic()
        asked = retry_after_s(exc)
        if asked is not None:
            return asked if asked <= min(MAX_RETRY_AFTER_S, remaining) else None
        # Exponential backoff with jitter (0.5-1.5 × the base), never past the budget.
        backoff = min(30.0, 0.5 * 2**attempt) * (0.5 + random.random())
        return min(backoff, remaining) if remaining > 0 else None

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> Completion:
        """One chat completion.

        Raises :class:`InfrastructureError` when the endpoint cannot answer (after bounded retries, or once the
        provider has kept it waiting for its patience) and :class:`ModelOutputError` when the provider refuses a
        request because of the model's own output. Both carry the attempts spent in ``usage``.
        """
        call = self._start_call(messages, tools)
        kwargs = self._request_kwargs(messages, tools, response_format)
        response, latency = await self._answered(call, kwargs, messages)
        props = (await endpoint_props(self.cfg.api_base, kwargs.get("api_key"))
                 if self.cfg.api_base and not self.cfg.simulated else None)
        return self._completion(response, latency, call.spent, props)

    def _start_call(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> _Call:
        """A call's bookkeeping; a prompt over the cap is refused before anything is sent (never retried or charged)."""
        size = prompt_tokens(messages, tools)
        too_big = prompt_problem(f"{self.cfg.name} ({self.cfg.model})", self.role or "agent", self.cfg.max_prompt_tokens,
                                 size)
        if too_big:
            raise InfrastructureError(too_big, usage=Usage(), retryable=False)
        return _Call(began=time.monotonic(), tokens=size, priority=self._priority(messages))

    def _priority(self, messages: list[dict[str, Any]]) -> float:
        """Who goes first when calls wait for the limiter: the judge's (each ends a row), then calls of
        conversations further along, so conversations finish, and feed their judges, before new ones start.
        A conversation's progress is its message count; the agent's request counts one more than the user
        simulator's at the same count (the simulator's prompt carries an extra opening instruction), so the
        progress grows by one with every call of a conversation: user 2, agent 3, user 4, agent 5, ..."""
        if self.role == "judge":
            return JUDGE_PRIORITY
        return float(len(messages) + (self.role == "agent"))

    async def _answered(self, call: _Call, kwargs: dict[str, Any], messages: list[dict[str, Any]]) -> tuple[Any, float]:
        """Attempts until one is answered: each within a slot of the limiter, each failure released and judged."""
        while True:
            ticket = await self._admit(call)
            started = time.perf_counter()
            try:
                response = await acompletion(self._litellm, inline=self._inline_set_up, **kwargs)
            except BaseException as exc:  # litellm maps provider errors onto its own exception types
                throttled = isinstance(exc, Exception) and is_throttled(exc)
                self._release(ticket, "throttled" if throttled else "failed", time.perf_counter() - started,
                              read_hints(error_headers(exc)) if throttled else Hints())
                if not isinstance(exc, Exception):  # cancelled (a budget stop, Ctrl-C): the slot is back
                    self._count_abandoned(exc, call.tokens)
                    raise
                await self._before_retry(call, exc, throttled, time.perf_counter() - started, messages)
                continue
            latency = time.perf_counter() - started
            self._release(ticket, "ok", latency, read_hints(response_headers(response)),
                          extra_tokens=int(getattr(getattr(response, "usage", None), "completion_tokens", 0) or 0))
            return response, latency

    async def _before_retry(self, call: _Call, exc: Exception, throttled: bool, latency_s: float,
                            messages: list[dict[str, Any]]) -> None:
        """Count a failed attempt, then wait before the next one; raise when there is no next one."""
        failed = Usage(failed_attempts=1, latency_s=latency_s)
        self._observe(failed)
        call.spent = call.spent.add(failed)
        self._raise_unretryable(exc, call.spent, messages)
        if throttled:  # waited out in the limiter (its shared pause) until the provider's patience is spent
            call.throttles += 1
            call.paused_s += latency_s  # the refused attempt itself is time the provider made the call wait
            call.spent = call.spent.add(Usage(retries=1))
            if not isinstance(self.limiter, EndpointLimiter):  # the simulated path has no shared pause
                pause = min(retry_after_s(exc) or min(30.0, 0.5 * 2 ** min(call.throttles, 6)),
                            max(0.0, self.cfg.rate_limit_patience_s - call.paused_s))
                await asyncio.sleep(pause)
                call.paused_s += pause
            call.throttled_s = time.monotonic() - call.began
            log.debug("%s throttled (%s); waiting for the endpoint's limiter", self.cfg.model, type(exc).__name__)
            return
        name = type(exc).__name__
        # Other failures are retried within this budget, which the time spent throttled does not use up.
        deadline = call.began + call.throttled_s + self.cfg.timeout_s * (self.cfg.max_retries + 1)
        retry = is_transient(exc) and call.attempt < self.cfg.max_retries
        delay = self._delay(exc, call.attempt, deadline) if retry else None
        if delay is None:
            raise InfrastructureError(
                f"{self.cfg.name} ({self.cfg.model}): {name} after {call.attempt + 1} attempt(s): {str(exc)[:300]}",
                usage=call.spent, retryable=not is_permanent(exc), status=getattr(exc, "status_code", None),
            ) from exc
        log.debug("retrying %s after %s (attempt %d, %.1fs)", self.cfg.model, name, call.attempt + 1, delay)
        call.attempt += 1
        call.spent = call.spent.add(Usage(retries=1))
        await asyncio.sleep(delay)

    def _raise_unretryable(self, exc: Exception, spent: Usage, messages: list[dict[str, Any]]) -> None:
        """The model's own unusable output (whatever the status) and a refused request are never retried."""
        fault = model_fault(exc)
        if fault is not None:
            shape, message = fault
            raise ModelOutputError(
                f"{self.cfg.name} ({self.cfg.model}): " + describe_model_fault(shape, message, getattr(exc, "status_code", None)),
                usage=spent,
            ) from exc
        if type(exc).__name__ in _REFUSED:
            raise self._refused(exc, messages, spent) from exc

    def _completion(self, response: Any, latency: float, spent: Usage, props: ServerProps | None) -> Completion:
        """The reply as a :class:`Completion`, its usage counted (with the attempts spent before it); ``props``: what
        a self-hosted server reports about itself (its model file, chat template, build)."""
        choices = getattr(response, "choices", None) or []
        message = choices[0].message if choices else None
        usage = getattr(response, "usage", None)
        answered = Usage(
            calls=1,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            cached_prompt_tokens=cached_prompt_tokens(usage),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=0.0 if self.cfg.simulated else self._cost(response),
            latency_s=latency,
        )
        self._observe(answered)
        self._replies = (self._replies[0] + 1, self._replies[1] + answered.completion_tokens)
        finish = getattr(choices[0], "finish_reason", None) if choices else None
        common: dict[str, Any] = {
            "usage": spent.add(answered), "finish_reason": str(finish) if finish else None,
            "served_by": served_by(response, props), "max_tokens": self.cfg.max_tokens,
        }
        if message is None:
            completion = Completion(content=None, tool_calls=[], problem="the reply had no choices", **common)
        else:
            content, reasoning = split_reasoning(message.content, getattr(message, "reasoning_content", None) or None)
            completion = Completion(content=content, tool_calls=_parse_tool_calls(message), reasoning=reasoning, **common)
        note_reply(self.role, completion.served_by, cut=completion.cut)
        return completion

    async def _admit(self, call: _Call) -> Ticket | bool:
        """A slot from the scope's limiter; raises once the provider has made this call wait its patience."""
        patience = self.cfg.rate_limit_patience_s
        if isinstance(self.limiter, EndpointLimiter):
            ticket = await self.limiter.acquire(call.tokens, call.priority, patience_s=patience, paused_s=call.paused_s)
            if ticket is not None:
                call.paused_s += ticket.paused_s
                if self.stats is not None:
                    self.stats.waited_s += ticket.waited_s
                    self.stats.queued_s += ticket.queued_s
                return ticket
        elif call.paused_s < patience:
            await self.limiter.acquire()
            return True
        raise InfrastructureError(
            f"{self.cfg.name} ({self.cfg.model}): {THROTTLED_MARK} after waiting {patience:.0f}s "
            f"({call.throttles} 429/503 replies; {self.cfg.name}.rate_limit_patience_s)",
            usage=call.spent, retryable=True, throttled=True,
        )

    def _release(self, ticket: Ticket | bool, outcome: str, latency_s: float, hints: Hints, extra_tokens: int = 0) -> None:
        if self.stats is not None:
            self.stats.requests += 1
            self.stats.rate_limited += outcome == "throttled"
        if isinstance(self.limiter, EndpointLimiter):
            assert isinstance(ticket, Ticket)
            self.limiter.release(ticket, outcome, latency_s, hints, extra_tokens)
        else:
            self.limiter.release()

    def _count_abandoned(self, exc: BaseException, prompt: int) -> None:
        """A request cancelled after it was sent, before its reply was read (a budget stop, Ctrl-C): the provider
        generates and bills it all the same, so it is counted as an abandoned call at an estimate: its ``prompt``
        tokens from the request's size (characters / 4, :func:`prompt_tokens`), its reply as long as this client's
        replies so far, at the model's prices. A request stopped before it was sent (:class:`NotSent`) costs
        nothing."""
        if isinstance(exc, NotSent) or not isinstance(exc, asyncio.CancelledError):
            return
        replies, reply_tokens = self._replies
        completion = round(reply_tokens / replies) if replies else 0
        prices = token_prices(self.cfg)  # None: litellm cannot price it, and counts its answered calls $0 too
        cost = prices.price(prompt, completion) if prices is not None else 0.0
        self._observe(Usage(abandoned_calls=1, prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost))

    def _observe(self, usage: Usage) -> None:
        if self.on_usage is not None:
            try:
                self.on_usage(usage)
            except Exception:  # a display problem must never fail a paid call
                log.debug("usage observer failed", exc_info=True)

    def _cost(self, response: Any) -> float:
        """litellm's own per-call cost (computed while it handled the reply); priced again only when absent."""
        hidden = getattr(response, "_hidden_params", None) or {}
        cost = hidden.get("response_cost")
        if cost is None:
            try:
                cost = self._litellm.completion_cost(completion_response=response)
            except Exception:  # unknown price: record 0 rather than fail the call
                cost = 0.0
        return float(cost or 0.0)


def endpoint_limiter(cfg: ModelConfig, shared_dir: Any = None) -> EndpointLimiter | asyncio.Semaphore:
    """The limiter of ``cfg``'s limit scope (models/limit_scope.py): shared by every client of the process (and, with
    ``shared_dir``, of every process using that folder); a plain semaphore for simulated models."""
    if cfg.simulated:
        return asyncio.Semaphore(cfg.concurrency)
    settings = LimitSettings(ceiling=cfg.concurrency, adaptive=cfg.adaptive_concurrency,
                             requests_per_minute=cfg.requests_per_minute, tokens_per_minute=cfg.tokens_per_minute)
    return LIMITERS.get(limit_scope(cfg), cfg.model, settings, shared_dir)


class ClientPool:
    """Builds clients so that every client of one limit scope shares one limiter (see models/limiter.py).

    ``shared_dir``: where the scopes' leases are kept for every process using it (the store's ``.limits`` folder);
    None keeps every limit in this process. ``endpoint_stats()`` is what this pool's clients saw, per scope."""

    def __init__(self, seed: int | None = None, observer: UsageObserver | None = None, shared_dir: Any = None) -> None:
        self.seed = seed
        self.observer = observer
        self.shared_dir = shared_dir
        self._stats: dict[int, tuple[EndpointStats, EndpointLimiter]] = {}
        self._simulated: dict[tuple[str, str | None], asyncio.Semaphore] = {}  # one per simulated model, per pool

    def client(self, cfg: ModelConfig, role: str | None = None, seed: int | None = None) -> ModelClient:
        """``role`` (agent, user, judge, mock) labels this client's calls for the pool's observer; ``seed``
        replaces the pool's (a repeated trial's own seed)."""
        if cfg.simulated:
            limiter: EndpointLimiter | asyncio.Semaphore = self._simulated.setdefault(
                (cfg.model, cfg.api_base), asyncio.Semaphore(cfg.concurrency))
        else:
            limiter = endpoint_limiter(cfg, self.shared_dir)
        stats = None
        if isinstance(limiter, EndpointLimiter):
            stats = self._stats.setdefault(id(limiter), (EndpointStats(limiter.label), limiter))[0]
        observer = self.observer
        on_usage = (lambda usage: observer(role, usage)) if observer is not None and role is not None else None
        return ModelClient(cfg, limiter=limiter, seed=self.seed if seed is None else seed, on_usage=on_usage, role=role,
                           stats=stats)

    def endpoint_stats(self) -> list[dict[str, Any]]:
        """Per real limit scope: this pool's requests, 429s, time waited, and the limiter's limits in force."""
        return [stats.as_dict(limiter) for stats, limiter in self._stats.values()]
