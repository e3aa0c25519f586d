"""MCP mock tools: a scenario's toolkit served over MCP, answered from its environment state.

The engine opens one :func:`open_tool_session` per conversation; ``python -m skillbench.tools.serve``
serves the same mocks over stdio for outside agents. The state semantics (what each tool's effect does
to the environment) belong to the benchmark (:mod:`skillbench.benchmark.state`); this package serves them.

Names are loaded on first use (PEP 562), as in ``skillbench.engine``: checking a config's response mode
(``skillbench.tools.modes``) before a run must not import the MCP SDK (about a second).
"""

from importlib import import_module
from typing import Any

_WHERE = {
    "RESPONSE_MODES": "modes", "MockContext": "modes", "ResponseMode": "modes",
    "ERROR_KIND_META": "server", "MockToolServer": "server", "ToolOutcome": "server",
    "ToolSession": "session", "open_tool_session": "session",
    "MOCK_STAGES": "stages", "MockCall": "stages", "StageHost": "stages", "Step": "stages", "mock_stage": "stages",
    "openai_tool": "toolkit", "openai_tool_name": "toolkit",
    "ArgumentValidator": "validation",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(f"skillbench.tools.{_WHERE[name]}"), name)
    raise AttributeError(name)
