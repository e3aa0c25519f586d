"""One small client over litellm: bounded concurrency per endpoint, retries with backoff, timeouts, accounting."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any

from skillbench.config.schema import ModelConfig
from skillbench.core.errors import InfrastructureError
from skillbench.core.records import ToolCall, Usage
from skillbench.models.litellm_setup import get_litellm, register_zero_cost
from skillbench.models.plugins import ensure_provider

log = logging.getLogger(__name__)

# litellm exception names that are worth retrying (rate limits, overload, network, timeouts).
_TRANSIENT = (
    "RateLimitError",
    "APIConnectionError",
    "Timeout",
    "ServiceUnavailableError",
    "InternalServerError",
    "APIError",
)


@dataclass
class Completion:
    """A model reply: text, tool calls, and what it cost."""

    content: str | None
    tool_calls: list[ToolCall]
    usage: Usage
    raw_message: dict[str, Any] = field(default_factory=dict)


def _parse_tool_calls(message: Any) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for index, call in enumerate(getattr(message, "tool_calls", None) or []):
        function = call.function
        text = function.arguments or "{}"
        try:
            arguments = json.loads(text)
            raw = None
            if not isinstance(arguments, dict):
                arguments, raw = {}, text
        except json.JSONDecodeError:
            arguments, raw = {}, text
        calls.append(ToolCall(id=call.id or f"call_{index}", name=function.name or "", arguments=arguments, raw_arguments=raw))
    return calls


class ModelClient:
    """Calls one configured model. Share ``limiter`` between clients of the same endpoint."""

    def __init__(self, cfg: ModelConfig, limiter: asyncio.Semaphore | None = None, seed: int | None = None) -> None:
        self.cfg = cfg
        self.limiter = limiter or asyncio.Semaphore(cfg.concurrency)
        self.seed = seed
        self._litellm = get_litellm()
        ensure_provider(cfg.model, self._litellm)
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

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> Completion:
        """One chat completion. Raises :class:`InfrastructureError` when the endpoint cannot answer."""
        kwargs = self._request_kwargs(messages, tools, response_format)
        attempt = 0
        while True:
            started = time.perf_counter()
            try:
                async with self.limiter:
                    response = await self._litellm.acompletion(**kwargs)
                break
            except Exception as exc:  # litellm maps provider errors onto its own exception types
                name = type(exc).__name__
                transient = name in _TRANSIENT or isinstance(exc, asyncio.TimeoutError)
                if not transient or attempt >= self.cfg.max_retries:
                    raise InfrastructureError(f"{self.cfg.name} ({self.cfg.model}): {name}: {str(exc)[:300]}") from exc
                delay = min(30.0, 0.5 * 2**attempt) * (0.5 + random.random())
                log.debug("retrying %s after %s (attempt %d, %.1fs)", self.cfg.model, name, attempt + 1, delay)
                attempt += 1
                await asyncio.sleep(delay)
        latency = time.perf_counter() - started
        message = response.choices[0].message
        usage = getattr(response, "usage", None)
        cost = 0.0
        if not self.cfg.simulated:
            try:
                cost = float(self._litellm.completion_cost(completion_response=response) or 0.0)
            except Exception:  # unknown price: record 0 rather than fail the call
                cost = 0.0
        return Completion(
            content=message.content,
            tool_calls=_parse_tool_calls(message),
            usage=Usage(
                calls=1,
                prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                cost_usd=cost,
                latency_s=latency,
            ),
        )


class ClientPool:
    """Builds clients so that every client of one endpoint shares one concurrency limit."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._limiters: dict[tuple[str, str | None], asyncio.Semaphore] = {}

    def client(self, cfg: ModelConfig) -> ModelClient:
        endpoint = (cfg.model, cfg.api_base)
        limiter = self._limiters.setdefault(endpoint, asyncio.Semaphore(cfg.concurrency))
        return ModelClient(cfg, limiter=limiter, seed=self.seed)
