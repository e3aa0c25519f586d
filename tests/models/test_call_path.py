"""models.call_path: litellm's request set-up on the loop's thread for in-memory providers, all else on threads."""

from __future__ import annotations

import asyncio
import importlib
import threading
from typing import Any

import pytest

from skillbench.models import ModelClient
from skillbench.models.call_path import acompletion, inline_set_up
from skillbench.models.litellm_setup import get_litellm
from tests.conftest import compose_config
from tests.support.openai_stub import stub_server, text_reply


class ExecutorUser:
    """Stands in for litellm's acompletion: hands ``functions`` to the loop's default executor one after the
    other, as litellm hands it its set-up and aiohttp its host-name lookups, and returns their results."""

    def __init__(self, *functions: Any) -> None:
        self.functions = functions

    async def acompletion(self, **_: Any) -> list[Any]:
        loop = asyncio.get_running_loop()
        results = []
        for function in self.functions:
            await asyncio.sleep(0)  # let other calls interleave
            results.append(await loop.run_in_executor(None, function))
        return results


def test_the_providers_that_set_up_in_memory() -> None:
    litellm = get_litellm()
    assert all(inline_set_up(litellm, m) for m in ("hosted_vllm/Qwen/Qwen3.5-9B", "openai/gpt-5", "gpt-5", "gpt-5.4-mini"))
    assert not any(inline_set_up(litellm, m) for m in ("vertex_ai/gemini-3-pro", "bedrock/anthropic.claude-v2",
                                                       "gemini/gemini-2.5-pro", "no-such-provider/model"))


async def test_only_the_first_function_of_a_marked_call_runs_inline() -> None:
    here = threading.get_ident()
    first, later = await acompletion(ExecutorUser(threading.get_ident, threading.get_ident), inline=True)  # type: ignore[arg-type]
    assert first == here and later != here
    # Outside a call, and in an unmarked call, everything goes to the pool.
    assert await asyncio.get_running_loop().run_in_executor(None, threading.get_ident) != here
    (unmarked,) = await acompletion(ExecutorUser(threading.get_ident), inline=False)  # type: ignore[arg-type]
    assert unmarked != here


async def test_concurrent_calls_are_each_set_up_inline() -> None:
    here = threading.get_ident()
    user = ExecutorUser(threading.get_ident, threading.get_ident)
    results = await asyncio.gather(*(acompletion(user, inline=True) for _ in range(8)))  # type: ignore[arg-type]
    assert all(first == here and later != here for first, later in results)


async def test_a_set_up_that_raises_reaches_the_caller_and_ends_the_mark() -> None:
    def bad_request() -> None:
        raise ValueError("unsupported parameter")

    with pytest.raises(ValueError, match="unsupported parameter"):
        await acompletion(ExecutorUser(bad_request), inline=True)  # type: ignore[arg-type]
    assert await asyncio.get_running_loop().run_in_executor(None, threading.get_ident) != threading.get_ident()


async def test_a_real_call_builds_its_request_on_the_loop_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through ModelClient and real litellm to a local stub: litellm's synchronous ``completion`` (its set-up)
    runs on the loop's thread for hosted vLLM, and the reply is the stub's."""
    get_litellm()  # first: it imports litellm offline (the local price map)
    main = importlib.import_module("litellm.main")
    threads: list[int] = []
    original = main.completion

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        return original(*args, **kwargs)

    monkeypatch.setattr(main, "completion", spy)
    with stub_server(lambda body: text_reply("ok")) as server:
        monkeypatch.setenv("SKILLBENCH_QWEN3_5_9B_API_BASE", server.base_url)
        client = ModelClient(compose_config("agent=qwen3_5_9b").agent)
        replies = await asyncio.gather(*(client.complete([{"role": "user", "content": f"hi {i}"}]) for i in range(4)))
    assert [r.content for r in replies] == ["ok"] * 4 and len(server.requests) == 4
    assert threads == [threading.get_ident()] * 4
