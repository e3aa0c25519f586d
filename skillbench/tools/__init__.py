"""MCP mock tools: a scenario's toolkit served over MCP, answered from its environment state.

The engine opens one :func:`open_tool_session` per conversation; ``python -m skillbench.tools.serve``
serves the same mocks over stdio for outside agents. The state semantics (what each tool's effect does
to the environment) belong to the benchmark (:mod:`skillbench.benchmark.state`); this package serves them.
"""

from skillbench.tools.modes import RESPONSE_MODES, MockContext, ResponseMode
from skillbench.tools.server import ERROR_KIND_META, MockToolServer, ToolOutcome
from skillbench.tools.session import ToolSession, open_tool_session
from skillbench.tools.stages import MOCK_STAGES, MockCall, StageHost, Step, mock_stage
from skillbench.tools.toolkit import openai_tool, openai_tool_name
from skillbench.tools.validation import ArgumentValidator

__all__ = [
    "ERROR_KIND_META",
    "MOCK_STAGES",
    "RESPONSE_MODES",
    "ArgumentValidator",
    "MockCall",
    "MockContext",
    "MockToolServer",
    "ResponseMode",
    "StageHost",
    "Step",
    "ToolOutcome",
    "ToolSession",
    "mock_stage",
    "open_tool_session",
    "openai_tool",
    "openai_tool_name",
]
