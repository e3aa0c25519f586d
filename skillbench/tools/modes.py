"""Response modes: how a valid, non-failed tool call gets its result. One registered function each.

A mode is ``async (ctx, tool, arguments) -> result dict``; it raises :class:`ToolError` for an error
result. ``MockConfig.response_mode`` names the mode in :data:`RESPONSE_MODES`.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from skillbench.benchmark.schema import Scenario, ToolSpec
from skillbench.benchmark.state import EnvironmentState, created_id
from skillbench.config.schema import LlmMock, MockConfig, StaticMock
from skillbench.core.errors import InfrastructureError, ToolError
from skillbench.core.records import Usage
from skillbench.core.registry import Registry
from skillbench.models.client import ClientPool, ModelClient
from skillbench.prompts import tool_result
from skillbench.tools.toolkit import SpecCache

_WRITES = frozenset({"create", "update", "delete", "action"})


@dataclass
class MockContext:
    """What every mode may use: one per conversation, shared by all its calls."""

    scenario: Scenario
    mock: MockConfig
    state: EnvironmentState
    seed: int = 0
    clients: ClientPool | None = None
    usage: Usage = field(default_factory=Usage)  # model calls of role "mock" (llm mode)
    _llm: ModelClient | None = field(default=None, repr=False)

    def llm_client(self) -> ModelClient:
        """The responder model's client, built on first use (other modes never import litellm)."""
        if self._llm is None:
            if not isinstance(self.mock, LlmMock):
                raise ToolError("infra", f"Internal error: mock {self.mock.name!r} has no llm model configured.")
            if self.clients is None:
                self.clients = ClientPool(seed=self.seed)
            self._llm = self.clients.client(self.mock.llm, "mock")
        return self._llm


def _build_prompt_parts(tool: ToolSpec) -> tuple[str, list[str]]:
    names = [tool.effect.collection] if tool.effect.collection else []
    names += [name for name in (*tool.reads, *tool.writes) if name not in names]
    return tool_result.render_tool_block(tool), names


# The tool's rendered prompt block and the collections its prompt shows: built once per tool.
_prompt_parts: SpecCache[tuple[str, list[str]]] = SpecCache(_build_prompt_parts)


ResponseMode = Callable[[MockContext, ToolSpec, dict[str, Any]], Awaitable[dict[str, Any]]]

RESPONSE_MODES: Registry[ResponseMode] = Registry("mock response mode")


@RESPONSE_MODES.register("stateful")
async def stateful(ctx: MockContext, tool: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
    """Answers from, and writes to, the scenario's environment state by the tool's ``effect`` (or its code)."""
    return await ctx.state.apply_tool_async(tool, arguments, limit_s=ctx.mock.code_tool_limit_s)


@RESPONSE_MODES.register("static")
async def static(ctx: MockContext, tool: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
    """A fixed result per tool (``static_responses``), else a generic success. No state."""
    fixed = ctx.mock.static_responses if isinstance(ctx.mock, StaticMock) else {}
    return copy.deepcopy(fixed.get(tool.name, {"status": "ok"}))


@RESPONSE_MODES.register("llm")
async def llm(ctx: MockContext, tool: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
    """A model writes the result from the tool's definition, the arguments and the current state.

    Writes also go to the environment state by the tool's ``effect`` (when the model reports success),
    so later calls and the final-state checks see them; a created id the model chose is kept.
    """
    if tool.effect.operation == "code":
        # the domain's code is the truth; no model writes it
        return await ctx.state.apply_tool_async(tool, arguments, limit_s=ctx.mock.code_tool_limit_s)
    prompts = tool_result
    block, collections = _prompt_parts(tool)
    messages = prompts.render_tool_result_messages(block, arguments, ctx.state.view(collections))
    try:
        completion = await ctx.llm_client().complete(messages, response_format={"type": "json_object"})
    except InfrastructureError as exc:
        raise ToolError("infra", f"Internal error: the tool backend did not answer ({exc}).") from None
    ctx.usage = ctx.usage.add(completion.usage)
    result = prompts.parse_tool_result_reply(completion.content)
    if result is None:
        snippet = (completion.content or "")[:200]
        raise ToolError("infra", f"Internal error: the tool backend returned no JSON object: {snippet!r}")
    if set(result) == {"error"}:
        raise ToolError("not_found", str(result["error"]))
    if tool.effect.operation in _WRITES:
        new_id = created_id(tool.effect, result)
        # If the state has nothing to change (e.g. no such record), the model's answer still stands.
        with contextlib.suppress(ToolError):
            ctx.state.apply(tool.effect, arguments, new_id=new_id)
    return result
