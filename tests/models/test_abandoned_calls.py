"""A request cancelled after it was sent is billed by the provider all the same, so it is counted (issue 41 item 4):
its prompt from its size, its reply as long as the client's replies so far, at the model's price. A request the send
gate stops never leaves, and costs nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import litellm
import pytest

from skillbench.config.schema import ModelConfig
from skillbench.core.records import Usage
from skillbench.models import ModelClient
from skillbench.models.call_path import SEND_GATE, NotSent
from tests.support.openai_stub import stub_server, text_reply

PRICES = {"input_cost_per_token": 1e-4, "output_cost_per_token": 2e-4}
QUESTION = [{"role": "user", "content": "Where is my parcel? " * 200}]  # ~1,000 tokens


def _client(base_url: str, seen: list[Usage]) -> ModelClient:
    cfg = ModelConfig(name="paid", model="hosted_vllm/stub-model", api_base=base_url, timeout_s=30, params=dict(PRICES))
    return ModelClient(cfg, on_usage=seen.append)


async def _until(condition: Any, timeout_s: float = 10.0) -> None:
    waited = 0.0
    while not condition():
        await asyncio.sleep(0.01)
        waited += 0.01
        assert waited < timeout_s, "the stub never saw the request"


async def test_a_request_cancelled_in_flight_is_counted_at_its_estimated_price() -> None:
    seen: list[Usage] = []
    with stub_server(lambda body: text_reply("It left the depot this morning."), sized=True, latency_s=1.0) as stub:
        client = _client(stub.base_url, seen)
        first = await client.complete(QUESTION)  # one reply read: how long this client's replies are
        call = asyncio.ensure_future(client.complete(QUESTION))
        await _until(lambda: len(stub.requests) == 2)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await _until(lambda: len(stub.answered) == 2)  # the provider finished it for a client that went away
    answered, abandoned = seen
    assert (abandoned.calls, abandoned.abandoned_calls, abandoned.failed_attempts) == (0, 1, 0)
    billed = stub.answered[1]
    # Priced from the request's size (characters / 4, as the stub counts) and the length of the reply read before.
    assert abandoned.prompt_tokens == pytest.approx(billed.prompt_tokens, rel=0.05)
    assert abandoned.completion_tokens == first.usage.completion_tokens == billed.completion_tokens
    price = sum(litellm.cost_per_token(model="hosted_vllm/stub-model", prompt_tokens=billed.prompt_tokens,
                                       completion_tokens=billed.completion_tokens, custom_cost_per_token=PRICES))
    assert abandoned.cost_usd == pytest.approx(price, rel=0.05) and abandoned.cost_usd > 0
    assert answered.calls == 1 and answered.abandoned_calls == 0


async def test_a_request_the_send_gate_stops_never_leaves_and_costs_nothing() -> None:
    seen: list[Usage] = []
    with stub_server(lambda body: text_reply("hi"), sized=True) as stub:
        client = _client(stub.base_url, seen)
        token = SEND_GATE.set(lambda: False)
        try:
            with pytest.raises(NotSent):
                await client.complete(QUESTION)
        finally:
            SEND_GATE.reset(token)
        assert (await client.complete(QUESTION)).content == "hi"  # without the gate, it is sent
    assert len(stub.requests) == 1 and [u.calls for u in seen] == [1]


def test_an_abandoned_call_is_written_only_where_it_happened() -> None:
    # Stored usage (rollouts, rows) reads byte for byte as before the field existed.
    assert "abandoned_calls" not in Usage(calls=3, cost_usd=0.1).model_dump_json()
    assert Usage(calls=1).add(Usage(abandoned_calls=2)).abandoned_calls == 2
