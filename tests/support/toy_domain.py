"""A small self-contained benchmark whose tools cover every ToolEffect operation."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import (
    BenchmarkManifest,
    Industry,
    Persona,
    Scenario,
    Skill,
    ToolEffect,
    ToolSpec,
    WorkflowStep,
)


def _schema(required: list[str], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string"} for name in (*required, *optional)},
        "required": required,
        "additionalProperties": False,
    }


def _tool(name: str, schema: dict[str, Any], **effect: Any) -> ToolSpec:
    return ToolSpec(name=name, description=f"The {name} tool.", input_schema=schema, effect=ToolEffect(**effect))


TOOLS: list[ToolSpec] = [
    _tool(
        "crm.verify_customer",
        _schema(["customer_id", "date_of_birth"]),
        operation="verify",
        collection="customers",
        match={"customer_id": "customer_id", "date_of_birth": "date_of_birth"},
        returns=["customer_id", "full_name"],
    ),
    _tool(
        "crm.search_orders",
        _schema(["customer_id"], ("status",)),
        operation="lookup",
        collection="orders",
        match={"customer_id": "customer_id", "status": "status"},
    ),
    _tool("crm.get_order", _schema(["order_id"]), operation="get", collection="orders", match={"order_id": "order_id"}),
    _tool(
        "crm.update_order_address",
        _schema(["order_id", "new_address"]),
        operation="update",
        collection="orders",
        match={"order_id": "order_id"},
        set={"shipping_address": "new_address"},
        set_const={"status": "address_changed"},
    ),
    _tool(
        "crm.update_customer_orders",
        _schema(["customer_id"]),
        operation="update",
        collection="orders",
        match={"customer_id": "customer_id"},
        set_const={"status": "held"},
    ),
    _tool(
        "crm.create_ticket",
        _schema(["customer_id", "summary"]),
        operation="create",
        collection="tickets",
        set={"customer_id": "customer_id", "summary": "summary"},
        set_const={"status": "open"},
        id_field="ticket_id",
        id_prefix="T",
    ),
    _tool("crm.delete_note", _schema(["note_id"]), operation="delete", collection="notes", match={"note_id": "note_id"}),
    _tool(
        "crm.send_sms",
        _schema(["customer_id", "text"]),
        operation="action",
        collection="sms_log",
        returns=["customer_id"],
        result={"status": "sent"},
    ),
    _tool("crm.admin_wipe", _schema([]), operation="action", result={"status": "wiped"}),
]

SKILL_TOOLS = [tool.name for tool in TOOLS if tool.name != "crm.admin_wipe"]

INITIAL_STATE: dict[str, list[dict[str, Any]]] = {
    "customers": [
        {"customer_id": "C-1", "full_name": "Ada Byron", "date_of_birth": "1990-01-02", "phone": "+1-555-0100"},
        {"customer_id": "C-2", "full_name": "Alan Kay", "date_of_birth": "1985-05-06", "phone": "+1-555-0101"},
    ],
    "orders": [
        {"order_id": "O-1", "customer_id": "C-1", "status": "shipped", "shipping_address": "1 Main St"},
        {"order_id": "O-2", "customer_id": "C-1", "status": "processing", "shipping_address": "1 Main St"},
        {"order_id": "O-3", "customer_id": "C-2", "status": "processing", "shipping_address": "9 Elm St"},
    ],
    "tickets": [{"ticket_id": "T-2", "customer_id": "C-2", "summary": "old", "status": "closed"}],
    "notes": [{"note_id": "N-1", "text": "call back"}, {"note_id": "N-2", "text": "vip"}],
}


def make_scenario(**overrides: Any) -> Scenario:
    data: dict[str, Any] = {
        "id": "toy-happy-01",
        "skill_id": "toy_orders",
        "path": "happy_path",
        "title": "Customer changes an order's address",
        "objective": "Please send my order O-2 to 5 Oak Ave.",
        "persona": Persona(id="efficient-01", label="efficient"),
        "user_facts": {"customer_id": "C-1", "date_of_birth": "1990-01-02"},
        "initial_state": INITIAL_STATE,
        "success_criteria": ["Order O-2 ships to 5 Oak Ave."],
    }
    data.update(overrides)
    return Scenario(**data)


def make_benchmark(*scenarios: Scenario) -> Benchmark:
    skill = Skill(
        id="toy_orders",
        name="Change an order",
        industry="retail",
        category="orders",
        company="Toy Shop",
        capability="Changes orders.",
        workflow="Verify, then change the order.",
        steps=[WorkflowStep(id="verify", kind="verify", instruction="Verify.", tools=["crm.verify_customer"])],
        success_criteria=["The order is changed."],
        guardrails=["Verify first."],
        tools=SKILL_TOOLS,
    )
    return Benchmark(
        root=Path("."),
        manifest=BenchmarkManifest(name="toy", industries=[Industry(id="retail", name="Retail")]),
        tools={tool.name: tool for tool in TOOLS},
        skills={skill.id: skill},
        scenarios=list(scenarios) or [make_scenario()],
    )


ToyFactory = Callable[..., tuple[Benchmark, Scenario]]


@pytest.fixture
def make_toy() -> ToyFactory:
    """Builds the toy benchmark with one scenario; keyword arguments override scenario fields."""

    def build(**overrides: Any) -> tuple[Benchmark, Scenario]:
        scenario = make_scenario(**overrides)
        return make_benchmark(scenario), scenario

    return build


@pytest.fixture
def toy_tools() -> dict[str, ToolSpec]:
    return {tool.name: tool for tool in TOOLS}


@pytest.fixture
def toy_state() -> dict[str, list[dict[str, Any]]]:
    return copy.deepcopy(INITIAL_STATE)
