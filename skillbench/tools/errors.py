"""Why a mock tool call failed: the error kinds a :class:`~skillbench.rollout.records.ToolCallRecord` carries."""

from __future__ import annotations

from typing import Literal

# Same values as ToolCallRecord.error_kind; the rule checks tell model mistakes (validation, unknown_tool,
# not_found) from environment faults (injected, timeout) and our own failures (infra) by this field.
ErrorKind = Literal["validation", "injected", "timeout", "unknown_tool", "not_found", "infra"]


class ToolError(Exception):
    """A tool call that ends in an MCP ``isError`` result; ``message`` is the text the agent reads."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
