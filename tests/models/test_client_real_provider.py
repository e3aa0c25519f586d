"""The real-provider path: a Hydra agent config (hosted vLLM) → ModelClient → litellm → a local OpenAI-compatible stub."""

from __future__ import annotations

from typing import Any

import pytest

from skillbench.core.errors import InfrastructureError
from skillbench.models import ModelClient
from tests.conftest import compose_config
from tests.support.openai_stub import stub_server, text_reply, tool_reply

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "identity.verify_customer",
            "description": "Verify the caller.",
            "parameters": {
                "type": "object",
                "properties": {"customer_id": {"type": "string"}, "date_of_birth": {"type": "string"}},
                "required": ["customer_id", "date_of_birth"],
            },
        },
    }
]


def _script(body: dict[str, Any]) -> dict[str, Any]:
    last = body["messages"][-1]
    if last["role"] == "tool":
        return text_reply(f"Thanks, you are verified ({last['content']}).")
    return tool_reply("identity.verify_customer", {"customer_id": "C-1", "date_of_birth": "1990-01-01"})


async def test_hosted_vllm_tool_call_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    with stub_server(_script) as server:
        monkeypatch.setenv("SKILLBENCH_QWEN3_5_9B_API_BASE", server.base_url)
        monkeypatch.setenv("SKILLBENCH_QWEN3_5_9B_API_KEY", "sk-test-secret")
        cfg = compose_config("agent=qwen3_5_9b").agent
        assert cfg.model == "hosted_vllm/Qwen/Qwen3.5-9B"
        assert cfg.api_base == server.base_url
        client = ModelClient(cfg, seed=0)
        messages: list[dict[str, Any]] = [{"role": "system", "content": "policy"}, {"role": "user", "content": "hi"}]
        first = await client.complete(messages, tools=TOOLS)
        assert [(c.name, c.arguments) for c in first.tool_calls] == [
            ("identity.verify_customer", {"customer_id": "C-1", "date_of_birth": "1990-01-01"})
        ]
        call = first.tool_calls[0]
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": '{"customer_id": "C-1"}'}}
            ]},
            {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": '{"verified": true}'},
        ]
        second = await client.complete(messages, tools=TOOLS)
    assert second.content == 'Thanks, you are verified ({"verified": true}).'
    assert second.usage.calls == 1 and second.usage.prompt_tokens == 11 and second.usage.completion_tokens == 7
    assert second.usage.cost_usd == 0.0  # self-hosted: registered at zero cost
    sent = server.requests
    assert sent[0]["model"] == "Qwen/Qwen3.5-9B"
    assert sent[0]["tools"][0]["function"]["name"] == "identity.verify_customer"
    assert sent[1]["messages"][-1]["role"] == "tool"
    headers = {k.lower(): v for k, v in server.headers[0].items()}
    assert headers.get("authorization") == "Bearer sk-test-secret"


async def test_transient_errors_are_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    with stub_server(lambda body: text_reply("ok"), fail_first=2, fail_status=503) as server:
        monkeypatch.setenv("SKILLBENCH_QWEN3_5_9B_API_BASE", server.base_url)
        cfg = compose_config("agent=qwen3_5_9b").agent
        completion = await ModelClient(cfg).complete([{"role": "user", "content": "hi"}])
    assert completion.content == "ok"
    assert len(server.requests) == 3


async def test_permanent_errors_are_infrastructure_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    with stub_server(lambda body: text_reply("never"), fail_first=99, fail_status=401) as server:
        monkeypatch.setenv("SKILLBENCH_QWEN3_5_9B_API_BASE", server.base_url)
        cfg = compose_config("agent=qwen3_5_9b").agent
        with pytest.raises(InfrastructureError, match="qwen3_5_9b"):
            await ModelClient(cfg).complete([{"role": "user", "content": "hi"}])
    assert len(server.requests) == 1  # an auth failure is not retried


async def test_pool_observer_sees_every_request_as_it_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """Live progress and cost: each attempt (failed or answered) is reported with its role, priced by litellm."""
    from skillbench.core.records import Usage
    from skillbench.models import ClientPool

    seen: list[tuple[str, Usage]] = []
    with stub_server(lambda body: text_reply("ok"), fail_first=1, fail_status=503, models=("gpt-5",)) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-local")
        cfg = compose_config("agent=gpt5", f"agent.api_base={server.base_url}").agent
        client = ClientPool(observer=lambda role, usage: seen.append((role, usage))).client(cfg, "agent")
        completion = await client.complete([{"role": "user", "content": "hi"}])
    assert [role for role, _ in seen] == ["agent", "agent"]
    assert (seen[0][1].failed_attempts, seen[1][1].calls) == (1, 1)
    assert seen[1][1].cost_usd > 0 and seen[1][1].cost_usd == completion.usage.cost_usd  # gpt-5's listed price
