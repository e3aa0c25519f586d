"""How a tool is presented: as an MCP ``Tool``, as an OpenAI function definition, and its OpenAI-safe name."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import mcp_types as types

from skillbench.benchmark.schema import ToolSpec

T = TypeVar("T")

_OPENAI_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_OPENAI_MAX_NAME = 64


class SpecCache(Generic[T]):
    """Objects derived from a ToolSpec, built once per spec and shared by every session.

    Keyed by the spec's identity (a loaded benchmark's specs live as long as the benchmark; specs hold
    dicts, so they are not hashable); the spec is kept with its entry so an id is never reused.
    """

    def __init__(self, build: Callable[[ToolSpec], T], max_entries: int = 8192) -> None:
        self._build = build
        self._max = max_entries
        self._entries: dict[int, tuple[ToolSpec, T]] = {}

    def __call__(self, spec: ToolSpec) -> T:
        entry = self._entries.get(id(spec))
        if entry is not None and entry[0] is spec:
            return entry[1]
        value = self._build(spec)
        if len(self._entries) >= self._max:  # many benchmarks loaded in one process: start over
            self._entries.clear()
        self._entries[id(spec)] = (spec, value)
        return value


def _build_mcp_tool(spec: ToolSpec) -> types.Tool:
    return types.Tool(name=spec.name, description=spec.description, input_schema=spec.input_schema)


mcp_tool: SpecCache[types.Tool] = SpecCache(_build_mcp_tool)
"""The MCP ``Tool`` definition of a spec (name, description, input schema), built once."""


def openai_tool_name(name: str) -> str:
    """An MCP tool name as OpenAI and Anthropic accept it (``^[A-Za-z0-9_-]{1,64}$``): '.' becomes '__'.

    ``scheduling.update_appointment`` → ``scheduling__update_appointment``.
    """
    safe = _OPENAI_UNSAFE.sub("_", name.replace(".", "__"))
    if len(safe) > _OPENAI_MAX_NAME:
        digest = hashlib.sha256(name.encode()).hexdigest()[:8]
        safe = f"{safe[: _OPENAI_MAX_NAME - 9]}_{digest}"
    return safe


def openai_tool(tool: types.Tool) -> dict[str, Any]:
    """The OpenAI function-tool definition of an MCP tool (as listed by an MCP server)."""
    return {
        "type": "function",
        "function": {
            "name": openai_tool_name(tool.name),
            "description": tool.description or "",
            "parameters": tool.input_schema,
        },
    }
