"""The stateful semantics of every ToolEffect operation on an EnvironmentState."""

from __future__ import annotations

from typing import Any

import pytest

from skillbench.benchmark.schema import ToolSpec
from skillbench.benchmark.state import EnvironmentState
from skillbench.core.errors import ToolError

State = dict[str, list[dict[str, Any]]]


def run(state: EnvironmentState, tool: ToolSpec, **arguments: Any) -> dict[str, Any]:
    return state.apply(tool.effect, arguments)


def test_lookup_returns_matching_records_and_count(toy_tools: dict[str, ToolSpec], toy_state: State) -> None:
    state = EnvironmentState(toy_state)
    result = run(state, toy_tools["crm.search_orders"], customer_id="C-1")
    assert result["count"] == 2
    assert [record["order_id"] for record in result["records"]] == ["O-1", "O-2"]
    # An optional filter that is given narrows the match; one that is absent is not matched on.
    narrowed = run(state, toy_tools["crm.search_orders"], customer_id="C-1", status="processing")
    assert [record["order_id"] for record in narrowed["records"]] == ["O-2"]
    assert run(state, toy_tools["crm.search_orders"], customer_id="C-404") == {"records": [], "count": 0}


def test_matching_compares_as_strings(toy_tools: dict[str, ToolSpec]) -> None:
    state = EnvironmentState({"orders": [{"order_id": 1001, "customer_id": "C-1"}]})
    assert run(state, toy_tools["crm.get_order"], order_id="1001")["order_id"] == 1001


def test_get_returns_the_record_or_a_not_found_error(toy_tools: dict[str, ToolSpec], toy_state: State) -> None:
    state = EnvironmentState(toy_state)
    assert run(state, toy_tools["crm.get_order"], order_id="O-3")["shipping_address"] == "9 Elm St"
    with pytest.raises(ToolError) as caught:
        run(state, toy_tools["crm.get_order"], order_id="O-9")
    assert caught.value.kind == "not_found"
    assert caught.value.message == "Not found: no orders record matches order_id='O-9'."


def test_verify_reports_match_and_echoes_returns(toy_tools: dict[str, ToolSpec], toy_state: State) -> None:
    state = EnvironmentState(toy_state)
    verify = toy_tools["crm.verify_customer"]
    assert run(state, verify, customer_id="C-1", date_of_birth="1990-01-02") == {
        "verified": True,
        "customer_id": "C-1",
        "full_name": "Ada Byron",
    }
    assert run(state, verify, customer_id="C-1", date_of_birth="1999-09-09") == {"verified": False}
    # A missing fact never verifies anyone, even though absent arguments are not matched on elsewhere.
    assert run(state, verify, customer_id="C-1") == {"verified": False}


def test_create_generates_an_id_that_is_not_taken(toy_tools: dict[str, ToolSpec], toy_state: State) -> None:
    state = EnvironmentState(toy_state)
    created = run(state, toy_tools["crm.create_ticket"], customer_id="C-1", summary="late parcel")
    # One ticket exists (T-2), so T-2 would be next; it is taken, so T-3.
    assert created == {"ticket_id": "T-3", "customer_id": "C-1", "summary": "late parcel", "status": "open"}
    assert state.collections["tickets"][-1] == created
    second = run(state, toy_tools["crm.create_ticket"], customer_id="C-2", summary="again")
    assert second["ticket_id"] == "T-4"


def test_create_starts_a_missing_collection(toy_tools: dict[str, ToolSpec]) -> None:
    state = EnvironmentState({})
    assert run(state, toy_tools["crm.create_ticket"], customer_id="C-1", summary="s")["ticket_id"] == "T-1"
    assert len(state.collections["tickets"]) == 1


def test_update_writes_arguments_and_constants(toy_tools: dict[str, ToolSpec], toy_state: State) -> None:
    state = EnvironmentState(toy_state)
    updated = run(state, toy_tools["crm.update_order_address"], order_id="O-2", new_address="5 Oak Ave")
    assert updated == {"order_id": "O-2", "customer_id": "C-1", "status": "address_changed", "shipping_address": "5 Oak Ave"}


def test_update_then_lookup_sees_the_change(toy_tools: dict[str, ToolSpec], toy_state: State) -> None:
    state = EnvironmentState(toy_state)
    run(state, toy_tools["crm.update_order_address"], order_id="O-2", new_address="5 Oak Ave")
    records = run(state, toy_tools["crm.search_orders"], customer_id="C-1")["records"]
    assert {r["order_id"]: r["shipping_address"] for r in records} == {"O-1": "1 Main St", "O-2": "5 Oak Ave"}
    assert run(state, toy_tools["crm.search_orders"], customer_id="C-1", status="address_changed")["count"] == 1


def test_update_of_none_or_several_records_is_an_error(toy_tools: dict[str, ToolSpec], toy_state: State) -> None:
    state = EnvironmentState(toy_state)
    with pytest.raises(ToolError, match="Not found: no orders record matches order_id='O-9'"):
        run(state, toy_tools["crm.update_order_address"], order_id="O-9", new_address="x")
    with pytest.raises(ToolError) as caught:
        run(state, toy_tools["crm.update_customer_orders"], customer_id="C-1")
    assert caught.value.kind == "not_found"
    assert caught.value.message.startswith("Ambiguous: 2 orders records match customer_id='C-1'")
    assert all(record["status"] != "held" for record in state.collections["orders"])


def test_delete_removes_the_record(toy_tools: dict[str, ToolSpec], toy_state: State) -> None:
    state = EnvironmentState(toy_state)
    result = run(state, toy_tools["crm.delete_note"], note_id="N-1")
    assert result == {"deleted": True, "record": {"note_id": "N-1", "text": "call back"}}
    assert state.collections["notes"] == [{"note_id": "N-2", "text": "vip"}]
    with pytest.raises(ToolError, match="no notes record"):
        run(state, toy_tools["crm.delete_note"], note_id="N-1")


def test_action_logs_and_echoes(toy_tools: dict[str, ToolSpec], toy_state: State) -> None:
    state = EnvironmentState(toy_state)
    result = run(state, toy_tools["crm.send_sms"], customer_id="C-1", text="Your order moved.")
    assert result == {"status": "sent", "customer_id": "C-1"}
    assert state.collections["sms_log"] == [{"customer_id": "C-1", "text": "Your order moved.", "status": "sent"}]
    # Without a collection an action only answers.
    assert run(state, toy_tools["crm.admin_wipe"]) == {"status": "wiped"}


def test_state_is_a_copy_and_results_do_not_alias_it(toy_tools: dict[str, ToolSpec], toy_state: State) -> None:
    state = EnvironmentState(toy_state)
    run(state, toy_tools["crm.update_order_address"], order_id="O-2", new_address="5 Oak Ave")
    assert toy_state["orders"][1]["shipping_address"] == "1 Main St"
    record = run(state, toy_tools["crm.get_order"], order_id="O-2")
    record["status"] = "tampered"
    assert state.collections["orders"][1]["status"] == "address_changed"
    snapshot = state.snapshot()
    snapshot["orders"].clear()
    assert len(state.collections["orders"]) == 3
