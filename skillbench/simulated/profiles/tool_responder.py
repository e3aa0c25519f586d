"""Simulated tool responder for the llm mock mode: answers like a careful model that follows the prompt.

It reads only the rendered prompt (the tool with its ``effect``, the arguments and the state shown) and
applies the stateful semantics to that state, so its answers match the stateful mode's.
"""

from __future__ import annotations

import json

from skillbench.benchmark.schema import ToolEffect
from skillbench.benchmark.state import EnvironmentState
from skillbench.core.errors import ToolError
from skillbench.prompts.tool_result import parse_tool_call_message
from skillbench.simulated.base import SIM_MODELS, SimReply, SimRequest


@SIM_MODELS.register("tool-responder")
def tool_responder(request: SimRequest) -> SimReply:
    last = next((m for m in reversed(request.messages) if m.get("role") == "user"), None)
    try:
        call = parse_tool_call_message(str((last or {}).get("content") or ""))
        effect = ToolEffect.model_validate(call["tool"]["effect"])
    except (ValueError, KeyError, TypeError):
        return SimReply(content="I can only answer tool calls rendered by the tool-result prompt.")
    state = EnvironmentState(call["state"])
    try:
        result = state.apply(effect, call["arguments"])
    except ToolError as error:
        result = {"error": error.message}
    return SimReply(content=json.dumps(result, ensure_ascii=False))
