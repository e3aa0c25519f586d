"""ModelClient against a local stub: each provider fault gets its class (docs/outcomes.md), Retry-After is
honoured within bounds, attempts are counted, reasoning is split off, and litellm's own cost is used."""

from __future__ import annotations

import time
from typing import Any

import pytest

from skillbench.config.schema import ModelConfig
from skillbench.core.errors import InfrastructureError, ModelOutputError
from skillbench.models import ModelClient
from skillbench.models.client import split_reasoning
from tests.support.openai_stub import NGINX_502, FaultPlan, RawReply, stub_server, text_reply

HELLO = [{"role": "user", "content": "hello"}]


def _client(base_url: str, **overrides: Any) -> ModelClient:
    cfg = ModelConfig(name="stubbed", model="hosted_vllm/stub-model", api_base=base_url, **overrides)
    return ModelClient(cfg)


def _plan(*faults: str, **kwargs: Any) -> FaultPlan:
    # every=1: the n-th request gets the n-th fault of the cycle; "ok" is a normal reply.
    return FaultPlan({"user": list(faults)}, every=1, **kwargs)


async def test_retry_after_is_honoured_and_attempts_are_counted() -> None:
    with stub_server(lambda body: text_reply("hi"), faults=_plan("rate_limit", "ok")) as server:
        started = time.monotonic()
        reply = await _client(server.base_url, timeout_s=2).complete(HELLO)
        elapsed = time.monotonic() - started
    assert reply.content == "hi"
    assert elapsed >= 1.0  # the stub asked for Retry-After: 1; our own first backoff could be 0.25 s
    assert (reply.usage.calls, reply.usage.failed_attempts, reply.usage.retries) == (1, 1, 1)
    assert len(server.requests) == 2


async def test_throttling_is_waited_out_until_the_patience_then_it_is_a_throttled_infra_error() -> None:
    # Every request is a 429 (Retry-After: 1): neither timeout_s nor max_retries ends the call, the patience does.
    with stub_server(lambda body: text_reply("hi"), faults=_plan("rate_limit")) as server, \
            pytest.raises(InfrastructureError) as caught:
        await _client(server.base_url, timeout_s=0.2, max_retries=0, rate_limit_patience_s=2.5).complete(HELLO)
    assert caught.value.retryable and caught.value.throttled
    assert 2 <= len(server.requests) <= 4  # paced by the endpoint's Retry-After, not hammered
    assert caught.value.usage is not None and caught.value.usage.failed_attempts == len(server.requests)


async def test_empty_choices_and_null_content_come_back_as_unusable_replies_not_exceptions() -> None:
    with stub_server(lambda body: text_reply("hi"), faults=_plan("empty_choices", "null_content")) as server:
        client = _client(server.base_url)
        empty = await client.complete(HELLO)
        null = await client.complete(HELLO)
    assert empty.problem == "the reply had no choices" and empty.content is None and empty.usage.calls == 1
    assert null.problem is None and null.content is None and not null.tool_calls


async def test_a_400_is_a_config_error_on_valid_input_and_a_model_error_on_echoed_model_output() -> None:
    echoed = [*HELLO, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"id": '}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "error"}]
    with stub_server(lambda body: text_reply("hi"), faults=_plan("config_400")) as server:
        client = _client(server.base_url)
        with pytest.raises(InfrastructureError) as config:
            await client.complete(HELLO)
        with pytest.raises(ModelOutputError) as model:
            await client.complete(echoed)
    assert not config.value.retryable and str(config.value).startswith("configuration error")
    assert "tool call lookup with arguments that are not JSON" in str(model.value)
    assert len(server.requests) == 2  # neither is retried


async def test_reasoning_content_is_kept_apart_from_the_reply() -> None:
    reply = {"role": "assistant", "content": "<think>check the policy</think>Sure.", "reasoning_content": "step 1"}
    with stub_server(lambda body: reply) as server:
        completion = await _client(server.base_url).complete(HELLO)
    assert completion.content == "Sure."
    assert completion.reasoning == "step 1\n\ncheck the policy"
    assert split_reasoning("<think>only thoughts", None) == ("", "only thoughts")


async def test_cost_is_litellm_response_cost_for_a_priced_model(monkeypatch: pytest.MonkeyPatch) -> None:
    import litellm

    with stub_server(lambda body: text_reply("hi")) as server:
        # No api_base in the config: a real provider name, priced from litellm's local cost map.
        monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        client = ModelClient(ModelConfig(name="mini", model="openai/gpt-4o-mini"))

        def no_second_pricing(**_kwargs: Any) -> float:
            raise AssertionError("completion_cost called again")

        monkeypatch.setattr(litellm, "completion_cost", no_second_pricing)
        completion = await client.complete(HELLO)
    prompt_cost, completion_cost = litellm.cost_per_token(model="gpt-4o-mini", prompt_tokens=11, completion_tokens=7)
    assert completion.usage.cost_usd == pytest.approx(prompt_cost + completion_cost)
    assert completion.usage.cost_usd > 0


async def test_an_auth_failure_is_infra_and_not_retried() -> None:
    with stub_server(lambda body: text_reply("hi"), fail_first=5, fail_status=401) as server, \
            pytest.raises(InfrastructureError) as caught:
        await _client(server.base_url).complete(HELLO)
    assert not caught.value.retryable and len(server.requests) == 1


_NGINX_PAGE = NGINX_502.body


@pytest.mark.parametrize("status", [500, 502, 503, 504, 520])
async def test_a_5xx_that_says_nothing_about_the_model_is_sent_again(status: int) -> None:
    """By status, whatever class litellm maps it to (502 BadGatewayError, 504 Timeout, 520 APIError): an HTML page
    from the proxy in front of the server, once, then the reply."""
    page = RawReply(status, str(_NGINX_PAGE).replace("502 Bad Gateway", f"{status} Error"), {"content-type": "text/html"})
    replies = iter([page])
    with stub_server(lambda body: next(replies, text_reply("hi"))) as server:
        reply = await _client(server.base_url, timeout_s=5).complete(HELLO)
    assert reply.content == "hi"
    assert len(server.requests) == 2 and (reply.usage.failed_attempts, reply.usage.retries) == (1, 1)


@pytest.mark.parametrize("status", [401, 403, 404])
async def test_a_refused_key_access_or_model_is_never_sent_again(status: int) -> None:
    with stub_server(lambda body: text_reply("hi"), fail_first=5, fail_status=status) as server, \
            pytest.raises(InfrastructureError) as caught:
        await _client(server.base_url).complete(HELLO)
    assert not caught.value.retryable and len(server.requests) == 1
