"""The engine's handle on a scenario's tools: an in-process MCP client connected to the mock server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, get_args

import mcp_types as types
from mcp import Client

from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario, State
from skillbench.config.schema import MockConfig
from skillbench.core.records import ToolCallRecord, ToolErrorKind, Usage
from skillbench.models.client import ClientPool
from skillbench.tools.server import ERROR_KIND_META, TRACEBACK_META, MockToolServer
from skillbench.tools.toolkit import openai_tool, openai_tool_name

_ERROR_KINDS: frozenset[str] = frozenset(get_args(ToolErrorKind))


class ToolSession:
    """The tools of one conversation, discovered and called over MCP; records every call.

    ``openai_tools`` name each tool with :func:`openai_tool_name` (providers reject dots);
    :meth:`call` accepts that name or the MCP name and records the MCP name.
    """

    def __init__(self, client: Client, server: MockToolServer, listed: list[types.Tool]) -> None:
        self._client = client
        self._server = server
        self.offered: list[str] = [tool.name for tool in listed]
        self.openai_tools: list[dict[str, Any]] = [openai_tool(tool) for tool in listed]
        self._names: dict[str, str] = {openai_tool_name(name): name for name in self.offered}
        self._offered = frozenset(self.offered)
        self.calls: list[ToolCallRecord] = []
        self._sequence: list[int] = []  # issue number of each entry of `calls`
        self._issued = 0
        self.fault_traceback = ""  # the traceback of the last call whose code tool failed (error kind benchmark)

    def mcp_name(self, name: str) -> str:
        """The MCP name of an offered tool given by either name; other names are returned unchanged."""
        return self._names.get(name, name)

    async def call(
        self, name: str, arguments: dict[str, Any], *, call_id: str, turn: int, call_seq: int | None = None
    ) -> ToolCallRecord:
        """Call a tool through the MCP client and record it. Never raises for a failed call.

        ``call_id`` is the provider's id, ``call_seq`` the call's identity in the transcript (``ToolCall.seq``)."""
        name = self.mcp_name(name)
        issued = self._issued
        self._issued += 1
        try:
            result = await self._client.call_tool(name, arguments)
        except Exception as exc:  # the transport failed, not the tool: an infra error the engine can see
            problem = f"Internal error: tool call failed ({exc})."
            record = self._record(turn, call_id, call_seq, name, arguments, True, "infra", problem)
        else:
            text = "".join(block.text for block in result.content if isinstance(block, types.TextContent))
            kind: Any = None
            if result.is_error:
                kind = (result.meta or {}).get(ERROR_KIND_META)
                kind = kind if kind in _ERROR_KINDS else "infra"
                if kind == "benchmark":
                    self.fault_traceback = str((result.meta or {}).get(TRACEBACK_META) or "")
            record = self._record(turn, call_id, call_seq, name, arguments, result.is_error, kind, text)
        # Keep `calls` in the order the calls were made, also when some run concurrently.
        position = len(self.calls)
        while position and self._sequence[position - 1] > issued:
            position -= 1
        self.calls.insert(position, record)
        self._sequence.insert(position, issued)
        return record

    def _record(
        self, turn: int, call_id: str, call_seq: int | None, name: str, arguments: dict[str, Any], is_error: bool,
        kind: ToolErrorKind | None, text: str,
    ) -> ToolCallRecord:
        # model_construct: every field is built here from checked values; skips a validation per call.
        return ToolCallRecord.model_construct(
            turn=turn,
            call_id=call_id,
            call_seq=call_seq,
            name=name,
            arguments=arguments,
            offered=name in self._offered,
            is_error=is_error,
            error_kind=kind,
            result=text,
            control=False,
        )

    @property
    def state(self) -> State:
        """A copy of the environment state as it is now (the final state once the conversation ends)."""
        return self._server.state.snapshot()

    @property
    def usage(self) -> Usage:
        """Model calls made by the llm response mode (role "mock")."""
        return self._server.usage


async def _list_tools(client: Client) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools


def _leaves(group: BaseExceptionGroup) -> list[BaseException]:
    leaves: list[BaseException] = []
    for exc in group.exceptions:
        leaves.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return leaves


@asynccontextmanager
async def open_tool_session(
    benchmark: Benchmark,
    scenario: Scenario,
    mock_cfg: MockConfig,
    *,
    seed: int,
    clients: ClientPool | None = None,
) -> AsyncIterator[ToolSession]:
    """Start the scenario's mock MCP server, connect the MCP client in-process, list the tools.

    ``clients`` supplies the llm mode's model client (shared concurrency limits); one is made if None.
    An exception raised in the ``async with`` block propagates as itself.
    """
    server = MockToolServer(benchmark, scenario, mock_cfg, seed=seed, clients=clients)
    raised: list[BaseException] = []
    unwrapped: BaseException | None = None
    try:
        # In-process: the client dispatches straight to the server (no JSON-RPC framing); no response cache.
        async with Client(server.mcp_server(), cache=None) as client:
            session = ToolSession(client, server, await _list_tools(client))
            try:
                yield session
            except BaseException as exc:
                raised.append(exc)
                raise
    except BaseExceptionGroup as group:
        # The client's task groups wrap the caller's exception (twice); hand the caller its own back,
        # so e.g. `except InfrastructureError` around a rollout still works.
        if not raised or _leaves(group) != raised:
            raise
        unwrapped = raised[0]
    if unwrapped is not None:
        raise unwrapped
