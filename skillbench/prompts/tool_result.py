"""Tool results as text: what an agent reads for a call (:func:`render_tool_error`, :func:`parse_tool_message`),
and the llm response mode's prompt, where a model writes a tool's result from its definition, the call and
the state.

The llm mode's user message is one JSON object ``{"tool": ..., "arguments": ..., "state": ...}``; the tool
part is rendered once per tool (:func:`render_tool_block`), only arguments and state per call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from skillbench.benchmark.schema import ToolSpec
from skillbench.core.records import ToolErrorKind
from skillbench.prompts.format import Record

# Part of every rollout key. v2: a refused call's text states its kind (render_tool_error).
TOOL_RESULT_PROMPT_VERSION = "tool-result-v2"

# A failed call's text. A refusal under a business rule (a code tool's ToolRefused) is the one failure an agent
# must handle unlike a fault: retrying gets the same answer, and the caller hears why. Its text says so in a
# fixed structure, {"error": <the tool's message>, "kind": "precondition"}, so no reader (model, simulated
# agent or judge) has to guess it from the domain's wording. Other failures keep their text as it is: its
# wording is skillbench's own (validation, not found, unknown tool, timeout), and an injected fault must not
# say it was injected.
REFUSED: ToolErrorKind = "precondition"
ERROR_KEY = "error"
KIND_KEY = "kind"

TOOL_RESULT_SYSTEM_PROMPT = """You are the backend of a company's internal API. A support agent has called one of its tools.
You are given, as JSON: the tool (name, description, JSON Schema of its arguments, and `effect`: how the
tool behaves on the environment), the call's arguments, and the current environment state (collections of
records). Reply with the JSON object the tool returns, and nothing else: no prose, no code fences.

How each `effect.operation` answers (`match`: record field -> argument whose value it must equal; an
argument absent from the call is not matched on; `set`: record field -> argument written; `set_const`:
constant fields written):
- lookup: {"records": [every matching record of `collection`, all fields], "count": <n>}
- get: the one matching record
- verify: {"verified": true, <the `returns` fields of the matching record>} when a record matches every
  argument, else {"verified": false}
- create: the new record: `id_field` set to a new id "<id_prefix>-<n>", plus the `set` and `set_const` fields
- update: the matching record after writing the `set` and `set_const` fields
- delete: {"deleted": true, "record": <the removed record>}
- action: the `result` fields plus the `returns` arguments echoed
When get, update or delete finds no record, or more than one, reply {"error": "<what went wrong, as the
API would say it>"}. Use only the records in the state: never invent a record, id or value."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def render_tool_block(tool: ToolSpec) -> str:
    """The tool part of the prompt as JSON text; render once per tool."""
    return _dumps(
        {
            "name": tool.name,
            "description": tool.description,
            "input_schema": tool.input_schema,
            "effect": tool.effect.model_dump(mode="json"),
        }
    )


def render_tool_result_messages(
    tool_block: str, arguments: Mapping[str, Any], state: Mapping[str, Any]
) -> list[dict[str, str]]:
    """The chat messages of one call: the fixed instructions, then the call as one JSON object."""
    call = f'{{"tool":{tool_block},"arguments":{_dumps(arguments)},"state":{_dumps(state)}}}'
    return [{"role": "system", "content": TOOL_RESULT_SYSTEM_PROMPT}, {"role": "user", "content": call}]


def parse_tool_call_message(text: str) -> dict[str, Any]:
    """The call a rendered user message describes: ``{"tool", "arguments", "state"}`` (raises ValueError)."""
    data = json.loads(text)
    if not isinstance(data, dict) or not {"tool", "arguments", "state"} <= data.keys():
        raise ValueError("not a tool-result prompt: expected a JSON object with tool, arguments and state")
    return data


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def parse_tool_result_reply(text: str | None) -> dict[str, Any] | None:
    """The JSON object a model replied with (code fences tolerated), or None when there is none."""
    if not text:
        return None
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text.strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def render_tool_error(kind: ToolErrorKind | None, message: str) -> str:
    """The text an agent reads for a failed call of ``kind``: a refusal as ``{"error", "kind"}``, else the message."""
    if kind == REFUSED:  # spelt like a success's JSON (tools.server.dump_result)
        return json.dumps({ERROR_KEY: message, KIND_KEY: kind}, ensure_ascii=False)
    return message


class ToolMessage(Record):
    """A tool message as an agent reads it: what :func:`parse_tool_message` makes of its text."""

    ok: bool = Field(description="A success: JSON without an 'error' key (or with other keys beside it).")
    data: Any = Field(None, description="The decoded JSON (a success's result), or the text when it is not JSON.")
    error: str = Field("", description="A failure's message.")
    error_kind: ToolErrorKind | None = Field(None, description="The kind a failure states (only a refusal does).")


def parse_tool_message(text: str | None) -> ToolMessage:
    """Read a tool message: JSON without an 'error' key is a success; ``{"error": m, "kind": k}`` a failure of kind
    k (:func:`render_tool_error`); ``{"error": m}`` and any text that is not JSON a failure of unstated kind."""
    if text is None:
        return ToolMessage(ok=False)
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return ToolMessage(ok=False, data=text, error=text)
    if not (isinstance(data, dict) and ERROR_KEY in data and len(data) <= 2):
        return ToolMessage(ok=True, data=data)
    kind = data.get(KIND_KEY) if set(data) == {ERROR_KEY, KIND_KEY} else None
    return ToolMessage(ok=False, data=data, error=str(data[ERROR_KEY]), error_kind=kind if kind == REFUSED else None)
