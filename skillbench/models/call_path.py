"""How a request reaches litellm: ``litellm.acompletion``, with its request set-up kept on the event loop's
thread for providers whose set-up does no I/O.

``litellm.acompletion`` builds every request in its synchronous ``completion``, run on the loop's default
executor, and awaits the coroutine that returns. For an OpenAI-compatible request the set-up is pure CPU
(provider lookup, parameter mapping, the request body), so the thread hand-off only adds cost: a worker is
woken, the two threads contend for the GIL, the loop is woken back. Running the set-up inline cut the CPU
per call of bare litellm by 4-19 % (benchmarks/call_paths.py) and of the engine by 11-17 % at 128 concurrent
conversations (docs/performance.md, "The engine against bare litellm"). Everything else litellm does is unchanged: its
parameter mapping, error mapping, pricing and logging run exactly as in a plain ``acompletion`` call.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import ContextVar
from types import ModuleType
from typing import Any

INLINE_SET_UP_PROVIDERS = frozenset({"openai", "hosted_vllm"})
"""Providers (as litellm resolves a model string) whose litellm set-up builds the request in memory. Others keep
the thread hand-off: Vertex AI refreshes tokens and Bedrock walks its credential chain there, which may block."""

# True from the moment a call asks for an inline set-up until its set-up has been submitted (see acompletion).
_SET_UP_INLINE: ContextVar[bool] = ContextVar("skillbench_litellm_set_up_inline", default=False)
_LOOPS: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()  # loops with the executor below

SEND_GATE: ContextVar[Callable[[], bool] | None] = ContextVar("skillbench_send_gate", default=None)
"""Asked in the sending task right before each request goes to litellm: False stops it (:class:`NotSent`). The engine
sets it for a job with a budget (engine/budget.py), so that no request leaves once the budget is reached."""


class NotSent(asyncio.CancelledError):
    """A request stopped before it was sent (its job's budget was reached): nothing reached the provider. A
    cancellation, as the budget's stop of the conversation in flight is."""


class InlineSetUpExecutor(ThreadPoolExecutor):
    """A loop's default executor: a thread pool, except that the one function a call marked for an inline
    set-up submits first (litellm's ``completion``) runs in the calling thread. Anything later from the same
    call (aiohttp resolves host names on this executor) and anything unmarked goes to the pool as usual."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        if not _SET_UP_INLINE.get():
            return super().submit(fn, *args, **kwargs)
        _SET_UP_INLINE.set(False)  # submit runs in the calling task's context: this ends the mark for the call
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # delivered to the awaiting call, as the pool would deliver it
            future.set_exception(exc)
        return future


def inline_set_up(litellm: ModuleType, model: str, api_base: str | None = None) -> bool:
    """Whether calls to ``model`` (a litellm model string: ``gpt-5`` is OpenAI's) build their request on the
    loop's thread. Asked once per client; litellm resolves the provider without a network call."""
    try:
        provider = litellm.get_llm_provider(model=model, api_base=api_base)[1]
    except Exception:  # a model litellm cannot route fails at its first call, with litellm's own message
        return False
    return provider in INLINE_SET_UP_PROVIDERS


async def acompletion(litellm: ModuleType, *, inline: bool, **kwargs: Any) -> Any:
    """``litellm.acompletion(**kwargs)``; with ``inline``, its synchronous set-up runs on this thread."""
    gate = SEND_GATE.get()
    if gate is not None and not gate():
        raise NotSent("the budget was reached before this request was sent")
    if not inline:
        return await litellm.acompletion(**kwargs)
    loop = asyncio.get_running_loop()
    if loop not in _LOOPS:
        # Installed before the loop's first executor job of a model call; asyncio.run shuts it down at the end.
        loop.set_default_executor(InlineSetUpExecutor(thread_name_prefix="skillbench-loop-executor"))
        _LOOPS.add(loop)
    token = _SET_UP_INLINE.set(True)
    try:
        return await litellm.acompletion(**kwargs)
    finally:
        _SET_UP_INLINE.reset(token)  # also when litellm raised before it submitted anything
