"""The mock tool server of one scenario: the skill's tools over MCP, answered by the configured response mode.

Every call goes through the registered stages (:mod:`skillbench.tools.stages`): latency → unknown tool? →
argument validation → injected failure? → response mode. The result is an MCP ``CallToolResult``: the
JSON the tool returned as text (and as structured content), or an ``isError`` result whose text says
what went wrong (:func:`~skillbench.prompts.tool_result.render_tool_error`: a refusal states its kind) and
whose ``_meta`` carries the error kind.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario, ToolSpec
from skillbench.benchmark.state import EnvironmentState
from skillbench.config.schema import MockConfig
from skillbench.core.errors import BenchmarkCodeError, ToolError
from skillbench.core.records import ToolErrorKind, Usage
from skillbench.models.client import ClientPool
from skillbench.prompts.tool_result import render_tool_error
from skillbench.tools.failures import FailureInjector
from skillbench.tools.modes import RESPONSE_MODES, MockContext
from skillbench.tools.stages import MockCall, build_steps
from skillbench.tools.toolkit import mcp_tool
from skillbench.tools.validation import ArgumentValidator

log = logging.getLogger(__name__)

ERROR_KIND_META = "skillbench/error_kind"
"""Key of the error kind in an error result's ``_meta`` (so it survives any MCP transport)."""
TRACEBACK_META = "skillbench/traceback"
"""Key of a failed code tool's traceback in a ``benchmark`` error result's ``_meta``."""


def dump_result(result: Any) -> str:
    """The text of a tool result: its JSON, as an API would send it."""
    return json.dumps(result, ensure_ascii=False, default=str)


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What one call returned, before it is wrapped as an MCP result."""

    text: str
    is_error: bool = False
    error_kind: ToolErrorKind | None = None
    data: dict[str, Any] | None = None
    traceback: str = ""

    def to_mcp(self) -> types.CallToolResult:
        content = [types.TextContent(type="text", text=self.text)]
        if self.is_error:
            meta: dict[str, Any] = {ERROR_KIND_META: self.error_kind}
            if self.traceback:
                meta[TRACEBACK_META] = self.traceback
            return types.CallToolResult(content=content, is_error=True, meta=meta)
        return types.CallToolResult(content=content, structured_content=self.data)


class MockToolServer:
    """The skill's tools for one scenario: validation, failure injection, response mode and state.

    Built once per conversation; validators, MCP tool definitions and prompt blocks are cached per tool.
    """

    def __init__(
        self,
        benchmark: Benchmark,
        scenario: Scenario,
        mock: MockConfig,
        *,
        seed: int = 0,
        clients: ClientPool | None = None,
    ) -> None:
        self.scenario = scenario
        self.mock = mock
        self.tools: dict[str, ToolSpec] = {spec.name: spec for spec in benchmark.toolkit(benchmark.skill_of(scenario))}
        self.mode = RESPONSE_MODES.get(mock.response_mode)
        self.validator = ArgumentValidator(self.tools.values()) if mock.validate_arguments else None
        self.failures = FailureInjector(mock, scenario, seed)
        self.context = MockContext(
            scenario=scenario, mock=mock, state=EnvironmentState.from_scenario(scenario), seed=seed, clients=clients
        )
        self.mcp_tools: list[types.Tool] = [mcp_tool(spec) for spec in self.tools.values()]
        self.calls = 0
        self._steps = build_steps(self)

    @property
    def state(self) -> EnvironmentState:
        return self.context.state

    @property
    def usage(self) -> Usage:
        """Model calls the llm mode made (role "mock")."""
        return self.context.usage

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Answer one call. Never raises: every failure is an error outcome with its kind."""
        index = self.calls
        self.calls += 1
        try:
            result = await self._answer(name, arguments, index)
        except ToolError as error:
            return ToolOutcome(render_tool_error(error.kind, error.message), True, error.kind)
        except BenchmarkCodeError as error:  # the domain's code tool failed: the benchmark's fault, named
            log.warning("scenario %s: %s", self.scenario.id, error)
            return ToolOutcome(str(error), True, "benchmark", traceback=error.traceback)
        except Exception as exc:  # a bug or a broken mock must not end the sweep; the kind flags it
            log.warning("mock tool %s failed in scenario %s", name, self.scenario.id, exc_info=True)
            return ToolOutcome(f"Internal error in {name}: {type(exc).__name__}.", True, "infra")
        return ToolOutcome(dump_result(result), data=result)

    async def _answer(self, name: str, arguments: dict[str, Any], index: int) -> dict[str, Any]:
        call = MockCall(name, arguments, index)
        for step in self._steps:
            result = await step(call)
            if result is not None:
                return result
        raise ToolError("infra", f"Internal error: no mock stage answered {name}.")  # respond always answers

    def mcp_server(self) -> Server[Any]:
        """A low-level MCP server answering ``tools/list`` and ``tools/call`` from this mock."""
        listing = types.ListToolsResult(tools=self.mcp_tools)

        async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
            return listing

        async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
            outcome = await self.call(params.name, dict(params.arguments or {}))
            return outcome.to_mcp()

        server: Server[Any] = Server(
            "skillbench-mock-tools",
            version="1",
            description=f"Mock tools of skillbench scenario {self.scenario.id} ({self.mock.response_mode} mode).",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
        )
        server.middleware = []  # no tracing spans for mocks: ~15% of the per-call cost
        return server
