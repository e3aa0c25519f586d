"""The mock call pipeline is registered stages: the built-in order, and a new failure as one function."""

from __future__ import annotations

from typing import Any

import anyio

from skillbench.config.schema import StatefulMock
from skillbench.core.errors import ToolError
from skillbench.tools import MOCK_STAGES, MockCall, MockToolServer, StageHost, mock_stage
from tests.support.toy_domain import ToyFactory

SEARCH = "crm.search_orders"


# The order that matters between the built-in stages; another stage may sit anywhere between them.
BUILT_IN_ORDER = ["latency", "known_tool", "validate", "inject", "respond"]


def test_built_in_stage_order() -> None:
    ordered = [stage.name for stage in sorted(MOCK_STAGES.values(), key=lambda stage: stage.order)]
    assert [name for name in ordered if name in BUILT_IN_ORDER] == BUILT_IN_ORDER
    assert len({stage.order for stage in MOCK_STAGES.values()}) == len(MOCK_STAGES.names())  # no two share a place


def test_disabled_stages_are_left_out(make_toy: ToyFactory) -> None:
    benchmark, scenario = make_toy()
    plain = MockToolServer(benchmark, scenario, StatefulMock(name="t", validate_arguments=False), seed=0)
    slow = MockToolServer(benchmark, scenario, StatefulMock(name="t", latency_ms=1), seed=0)
    assert len(plain._steps) == 3 and len(slow._steps) == 5


def test_a_new_failure_stage_is_one_registered_function(make_toy: ToyFactory) -> None:
    @mock_stage("toy_rate_limit", order=45)  # after injected failures, before the response
    def rate_limit(host: StageHost) -> Any:
        async def step(call: MockCall) -> None:
            if call.index >= 1:
                raise ToolError("injected", "429 Too Many Requests")

        return step

    try:
        benchmark, scenario = make_toy()
        server = MockToolServer(benchmark, scenario, StatefulMock(name="t"), seed=0)

        async def two_calls() -> list[Any]:
            return [await server.call(SEARCH, {"customer_id": "C-1"}) for _ in range(2)]

        first, second = anyio.run(two_calls)
        assert not first.is_error
        assert second.is_error and second.error_kind == "injected" and "429" in second.text
        unknown = anyio.run(server.call, "crm.nope", {})
        assert unknown.error_kind == "unknown_tool"  # earlier stages still answer first
    finally:
        MOCK_STAGES.unregister("toy_rate_limit")
