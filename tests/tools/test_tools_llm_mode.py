"""The llm response mode end to end through litellm, with the offline simulated tool responder."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario
from skillbench.config.schema import LlmMock, ModelConfig, StatefulMock
from skillbench.prompts.tool_result import (
    TOOL_RESULT_PROMPT_VERSION,
    parse_tool_call_message,
    parse_tool_result_reply,
    render_tool_block,
    render_tool_result_messages,
)
from skillbench.simulated import SIM_MODELS, SimRequest
from skillbench.tools import ToolSession, open_tool_session

ToyFactory = Callable[..., tuple[Benchmark, Scenario]]


def llm_mock(model: str = "skillbench_sim/tool-responder") -> LlmMock:
    return LlmMock(
        name="llm", llm=ModelConfig(name="sim_tool_responder", model=model, simulated=True)
    )


CONVERSATION: list[tuple[str, dict[str, Any]]] = [
    ("crm.verify_customer", {"customer_id": "C-1", "date_of_birth": "1990-01-02"}),
    ("crm.verify_customer", {"customer_id": "C-1", "date_of_birth": "2000-01-01"}),
    ("crm.search_orders", {"customer_id": "C-1"}),
    ("crm.get_order", {"order_id": "O-404"}),
    ("crm.update_order_address", {"order_id": "O-2", "new_address": "5 Oak Ave"}),
    ("crm.search_orders", {"customer_id": "C-1", "status": "address_changed"}),
    ("crm.create_ticket", {"customer_id": "C-1", "summary": "address changed"}),
    ("crm.create_ticket", {"customer_id": "C-1", "summary": "second"}),
    ("crm.delete_note", {"note_id": "N-2"}),
    ("crm.send_sms", {"customer_id": "C-1", "text": "Done."}),
    ("crm.update_order_address", {"order_id": "O-2"}),  # invalid: never reaches the model
]


async def replay(session: ToolSession) -> list[tuple[bool, str | None, str]]:
    records = [await session.call(name, dict(args), call_id=f"c{i}", turn=i) for i, (name, args) in enumerate(CONVERSATION)]
    return [(r.is_error, r.error_kind, r.result) for r in records]


async def test_llm_mode_answers_like_stateful_mode(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    async with open_tool_session(benchmark, scenario, StatefulMock(name="stateful"), seed=3) as session:
        expected, expected_state = await replay(session), session.state
    async with open_tool_session(benchmark, scenario, llm_mock(), seed=3) as session:
        answered, state = await replay(session), session.state
        usage = session.usage
    assert answered == expected
    assert expected[5][2].count('"order_id"') == 1  # the lookup after the update sees the change
    assert state == expected_state  # writes reach the environment state, so final-state checks work
    assert usage.calls == len(CONVERSATION) - 1  # every valid call, role "mock"
    assert usage.prompt_tokens > 0 and usage.cost_usd == 0.0


async def test_unparseable_reply_is_an_infra_error(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    async with open_tool_session(benchmark, scenario, llm_mock("skillbench_sim/echo"), seed=0) as session:
        record = await session.call("crm.get_order", {"order_id": "O-1"}, call_id="c1", turn=1)
        assert session.usage.calls == 1
    assert (record.is_error, record.error_kind) == (True, "infra")
    assert record.result.startswith("Internal error: the tool backend returned no JSON object")


def test_prompt_shows_the_tool_call_and_only_the_collections_it_touches(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    tool = benchmark.tools["crm.get_order"]
    state = {"orders": scenario.initial_state["orders"]}
    messages = render_tool_result_messages(render_tool_block(tool), {"order_id": "O-1"}, state)
    assert TOOL_RESULT_PROMPT_VERSION and messages[0]["role"] == "system"
    call = parse_tool_call_message(messages[1]["content"])
    assert call["tool"]["name"] == "crm.get_order" and call["tool"]["effect"]["operation"] == "get"
    assert call["arguments"] == {"order_id": "O-1"} and set(call["state"]) == {"orders"}
    reply = SIM_MODELS.get("tool-responder")(SimRequest(model="tool-responder", messages=messages))
    assert parse_tool_result_reply(reply.content) == scenario.initial_state["orders"][0]


def test_reply_parsing_tolerates_fences_and_rejects_non_objects() -> None:
    assert parse_tool_result_reply('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_tool_result_reply(' {"a": 1} ') == {"a": 1}
    assert parse_tool_result_reply("[1, 2]") is None
    assert parse_tool_result_reply("Sure! Here it is") is None
    assert parse_tool_result_reply(None) is None
