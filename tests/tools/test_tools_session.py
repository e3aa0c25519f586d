"""The tool session over in-process MCP: discovery, validation, unknown tools, failures, modes, records."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from skillbench.benchmark import load_benchmark
from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario
from skillbench.config.schema import FailureInjectionConfig, StatefulMock, StaticMock
from skillbench.core.errors import InfrastructureError
from skillbench.tools import ToolSession, open_tool_session, openai_tool_name
from tests.support.nonempty import nonempty

ToyFactory = Callable[..., tuple[Benchmark, Scenario]]

SEARCH = "crm.search_orders"
UPDATE = "crm.update_order_address"


async def calls(session: ToolSession, *items: tuple[str, dict[str, Any]]) -> list[Any]:
    return [await session.call(name, args, call_id=f"c{i}", turn=i) for i, (name, args) in enumerate(items, start=1)]


async def test_tools_are_discovered_over_mcp(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    async with open_tool_session(benchmark, scenario, StatefulMock(name="t"), seed=0) as session:
        skill_tools = benchmark.skill_of(scenario).tools
        assert session.offered == skill_tools  # the skill's toolkit only, in its order
        functions = [tool["function"] for tool in session.openai_tools]
        assert [f["name"] for f in functions] == [openai_tool_name(name) for name in skill_tools]
        assert functions[0]["name"] == "crm__verify_customer"
        assert functions[0]["parameters"] == benchmark.tools["crm.verify_customer"].input_schema
        assert all(tool["type"] == "function" and f["description"] for tool, f in zip(session.openai_tools, functions, strict=True))


async def test_calls_are_recorded_with_json_results(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    async with open_tool_session(benchmark, scenario, StatefulMock(name="t"), seed=0) as session:
        record = await session.call("crm__get_order", {"order_id": "O-3"}, call_id="call_1", turn=2)
        assert (record.name, record.call_id, record.turn) == ("crm.get_order", "call_1", 2)  # alias → MCP name
        assert record.offered and not record.is_error and record.error_kind is None
        assert json.loads(record.result)["shipping_address"] == "9 Elm St"
        assert session.calls == [record]
        assert session.usage.calls == 0


async def test_update_then_lookup_through_mcp_and_final_state(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    async with open_tool_session(benchmark, scenario, StatefulMock(name="t"), seed=0) as session:
        _, after = await calls(session, (UPDATE, {"order_id": "O-2", "new_address": "5 Oak Ave"}), (SEARCH, {"customer_id": "C-1"}))
        assert {r["order_id"]: r["shipping_address"] for r in json.loads(after.result)["records"]}["O-2"] == "5 Oak Ave"
        final = session.state
    assert final["orders"][1]["status"] == "address_changed"
    assert scenario.initial_state["orders"][1]["status"] == "processing"  # the scenario itself is untouched


async def test_invalid_arguments_say_exactly_what_is_wrong(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    async with open_tool_session(benchmark, scenario, StatefulMock(name="t"), seed=0) as session:
        missing, wrong_type, extra = await calls(
            session,
            (UPDATE, {"order_id": "O-2"}),
            (SEARCH, {"customer_id": 7}),
            (SEARCH, {"customer_id": "C-1", "limit": "5"}),
        )
    assert missing.is_error and missing.error_kind == "validation"
    assert missing.result == "Invalid arguments for crm.update_order_address: 'new_address' is a required property"
    assert wrong_type.result == "Invalid arguments for crm.search_orders: customer_id: 7 is not of type 'string'"
    assert extra.result == (
        "Invalid arguments for crm.search_orders: Additional properties are not allowed ('limit' was unexpected)"
    )
    assert session.state["orders"][1]["shipping_address"] == "1 Main St"


async def test_validation_can_be_switched_off(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    async with open_tool_session(benchmark, scenario, StatefulMock(name="t", validate_arguments=False), seed=0) as session:
        (record,) = await calls(session, (SEARCH, {"customer_id": "C-2", "limit": 5}))
    assert not record.is_error and json.loads(record.result)["count"] == 1


async def test_unknown_tools_are_errors_and_not_offered(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    async with open_tool_session(benchmark, scenario, StatefulMock(name="t"), seed=0) as session:
        # crm.admin_wipe is in the catalogue but not in the skill's toolkit: the server does not serve it.
        invented, outside = await calls(session, ("crm.refund_everything", {}), ("crm.admin_wipe", {}))
    for record, name in ((invented, "crm.refund_everything"), (outside, "crm.admin_wipe")):
        assert record.is_error and record.error_kind == "unknown_tool" and not record.offered
        assert record.result == f"Unknown tool {name!r}."


async def test_not_found_is_an_error_result(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    async with open_tool_session(benchmark, scenario, StatefulMock(name="t"), seed=0) as session:
        (record,) = await calls(session, ("crm.get_order", {"order_id": "O-404"}))
    assert (record.is_error, record.error_kind) == (True, "not_found")
    assert record.result == "Not found: no orders record matches order_id='O-404'."


async def test_fail_first_fails_the_first_valid_calls(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    failures = FailureInjectionConfig(fail_first={SEARCH: 2}, error_message="Backend down (503).")
    async with open_tool_session(benchmark, scenario, StatefulMock(name="t", failures=failures), seed=0) as session:
        records = await calls(
            session,
            (SEARCH, {"customer_id": 1}),  # invalid: rejected before it reaches the backend, not counted
            (SEARCH, {"customer_id": "C-1"}),
            ("crm.get_order", {"order_id": "O-1"}),  # other tools are unaffected
            (SEARCH, {"customer_id": "C-1"}),
            (SEARCH, {"customer_id": "C-1"}),
        )
    assert [r.error_kind for r in records] == ["validation", "injected", None, "injected", None]
    assert records[1].result == "Backend down (503)."


async def test_scenario_tool_failures_are_honored_unless_switched_off(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy(path="tool_failure", tool_failures={SEARCH: 1})
    async with open_tool_session(benchmark, scenario, StatefulMock(name="t"), seed=0) as session:
        first, second = await calls(session, (SEARCH, {"customer_id": "C-1"}), (SEARCH, {"customer_id": "C-1"}))
    assert (first.error_kind, second.error_kind) == ("injected", None)
    assert first.result == FailureInjectionConfig().error_message
    ignoring = StatefulMock(name="t", honor_scenario_failures=False)
    async with open_tool_session(benchmark, scenario, ignoring, seed=0) as session:
        (only,) = await calls(session, (SEARCH, {"customer_id": "C-1"}))
    assert not only.is_error


async def _failure_pattern(make_toy: ToyFactory, seed: int, scenario_id: str = "toy-happy-01") -> list[bool]:
    benchmark, scenario = make_toy(id=scenario_id)
    mock = StatefulMock(name="flaky", failures=FailureInjectionConfig(rate=0.5))
    async with open_tool_session(benchmark, scenario, mock, seed=seed) as session:
        records = await calls(session, *[(SEARCH, {"customer_id": "C-1"})] * 40)
    assert {r.error_kind for r in records} <= {"injected", None}
    return [r.is_error for r in records]


async def test_random_failures_are_deterministic_per_seed_and_scenario(make_toy: ToyFactory) -> None:
    pattern = await _failure_pattern(make_toy, seed=1)
    assert pattern == await _failure_pattern(make_toy, seed=1)
    assert 8 <= sum(pattern) <= 32  # about half of 40
    assert pattern != await _failure_pattern(make_toy, seed=2)
    assert pattern != await _failure_pattern(make_toy, seed=1, scenario_id="toy-happy-02")


async def test_timeouts_wait_then_fail(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    mock = StatefulMock(name="t", timeout_s=0.05, failures=FailureInjectionConfig(timeout_tools=[SEARCH]))
    async with open_tool_session(benchmark, scenario, mock, seed=0) as session:
        started = time.perf_counter()
        (record,) = await calls(session, (SEARCH, {"customer_id": "C-1"}))
        waited = time.perf_counter() - started
        (other,) = await calls(session, ("crm.get_order", {"order_id": "O-1"}))
    assert waited >= 0.05
    assert (record.is_error, record.error_kind) == (True, "timeout")
    assert record.result == "Request to crm.search_orders timed out after 0.05s."
    assert not other.is_error


async def test_latency_is_added_to_every_call(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    async with open_tool_session(benchmark, scenario, StatefulMock(name="t", latency_ms=30), seed=0) as session:
        started = time.perf_counter()
        await calls(session, (SEARCH, {"customer_id": "C-1"}), ("crm.nope", {}))
    assert time.perf_counter() - started >= 0.06


async def test_static_mode_answers_fixed_results_without_state(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    mock = StaticMock(name="static", static_responses={SEARCH: {"records": [], "count": 0}})
    async with open_tool_session(benchmark, scenario, mock, seed=0) as session:
        search, update, invalid = await calls(
            session,
            (SEARCH, {"customer_id": "C-1"}),
            (UPDATE, {"order_id": "O-404", "new_address": "x"}),
            (UPDATE, {"order_id": "O-2"}),
        )
        assert json.loads(search.result) == {"records": [], "count": 0}
        assert json.loads(update.result) == {"status": "ok"}
        assert invalid.error_kind == "validation"  # static answers still go through validation
        assert session.state == scenario.initial_state


async def test_session_on_the_starter_scenario() -> None:
    benchmark = load_benchmark("starter")
    scenario = next(s for s in benchmark.scenarios if s.id == "hc-resched-happy-01")
    facts = scenario.user_facts
    async with open_tool_session(benchmark, scenario, StatefulMock(name="stateful"), seed=0) as session:
        assert set(session.offered) == set(benchmark.skill_of(scenario).tools)
        verify, search, update, again = await calls(
            session,
            ("identity.verify_customer", {"customer_id": facts["customer_id"], "date_of_birth": facts["date_of_birth"]}),
            ("scheduling.search_appointments", {"customer_id": facts["customer_id"]}),
            ("scheduling.update_appointment", {"appointment_id": "APT-7731", "new_start_time": facts["new_start_time"]}),
            ("scheduling.search_appointments", {"customer_id": facts["customer_id"]}),
        )
        assert json.loads(verify.result)["verified"] is True
        assert [r["appointment_id"] for r in json.loads(search.result)["records"]] == ["APT-7731"]
        assert not update.is_error
        assert json.loads(again.result)["records"][0]["start_time"] == facts["new_start_time"]
        final = session.state
    # The scenario's target for the appointment is reached.
    for expectation in nonempty((e for e in scenario.target_state if e.collection == "appointments"), "appointment targets"):
        (moved,) = [r for r in final["appointments"] if all(r.get(k) == v for k, v in expectation.match.items())]
        assert all(moved.get(k) == v for k, v in nonempty(expectation.expect.items(), "expected fields"))


async def test_concurrent_calls_are_recorded_in_call_order(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    mock = StatefulMock(name="t", timeout_s=0.05, failures=FailureInjectionConfig(timeout_tools=[SEARCH]))
    async with open_tool_session(benchmark, scenario, mock, seed=0) as session:
        slow = session.call(SEARCH, {"customer_id": "C-1"}, call_id="slow", turn=1)
        fast = [session.call("crm.get_order", {"order_id": "O-1"}, call_id=f"fast{i}", turn=1) for i in range(3)]
        await asyncio.gather(slow, *fast)
        assert [record.call_id for record in session.calls] == ["slow", "fast0", "fast1", "fast2"]


async def test_an_error_in_the_session_block_propagates_as_itself(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    with pytest.raises(InfrastructureError, match="user simulator down"):
        async with open_tool_session(benchmark, scenario, StatefulMock(name="t"), seed=0) as session:
            await session.call(SEARCH, {"customer_id": "C-1"}, call_id="c1", turn=1)
            raise InfrastructureError("user simulator down")
