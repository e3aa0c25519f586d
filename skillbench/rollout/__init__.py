"""One conversation: agent ⇄ user simulator ⇄ MCP mock tools."""

from skillbench.core.records import (
    PROPER_ENDINGS,
    ROLES,
    Message,
    Rollout,
    Termination,
    ToolCall,
    ToolCallRecord,
    Usage,
)

__all__ = ["PROPER_ENDINGS", "ROLES", "Message", "Rollout", "Termination", "ToolCall", "ToolCallRecord", "Usage"]
