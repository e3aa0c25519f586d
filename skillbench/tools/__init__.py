"""MCP mock tools: a scenario's toolkit served over MCP, answered from its environment state.

The engine opens one :func:`open_tool_session` per conversation; ``python -m skillbench.tools.serve``
serves the same mocks over stdio for outside agents. The MCP server and session (and the mcp SDK)
load on first use, so data tools that only need the state semantics (benchmark lint/build) start fast.
"""

from importlib import import_module
from typing import Any

from skillbench.tools.errors import ErrorKind, ToolError
from skillbench.tools.state import OPERATIONS, EnvironmentState
from skillbench.tools.validation import ArgumentValidator

_LAZY = {
    "RESPONSE_MODES": "skillbench.tools.modes",
    "MockContext": "skillbench.tools.modes",
    "ResponseMode": "skillbench.tools.modes",
    "ERROR_KIND_META": "skillbench.tools.server",
    "MockToolServer": "skillbench.tools.server",
    "ToolOutcome": "skillbench.tools.server",
    "ToolSession": "skillbench.tools.session",
    "open_tool_session": "skillbench.tools.session",
    "openai_tool": "skillbench.tools.toolkit",
    "openai_tool_name": "skillbench.tools.toolkit",
}

__all__ = ["OPERATIONS", "ArgumentValidator", "EnvironmentState", "ErrorKind", "ToolError", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'skillbench.tools' has no attribute {name!r}")
