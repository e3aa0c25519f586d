"""A tool call written as text: the model put the call in the reply's ``content`` instead of ``tool_calls``.

A server returns a call as text when the model wrote it in a form the server's tool-call parser does not take
(a ``<tool_call>`` block the grammar never saw, a bare JSON object, a call wrapped in prose or a code fence).
Read as the agent's message it would go to the caller as if spoken, and the conversation would go on with no
tool run and nothing to say why. The tools were offered and rendered (the preflight refuses a llama.cpp
endpoint whose template renders none: docs/real-servers.md), so not using the call interface is the model's
own failure: the agent's turn is a **model error** named "tool call written as text" (docs/outcomes.md), never
converted into a call (that would grade a format the server did not accept) and never passed to the caller.

Recognised, in the reply's whole text (fences and whitespace aside): a ``<tool_call>`` tag followed by a JSON
object (Hermes/Qwen style, closed or not), or a JSON object that is nothing but a call: a ``name`` string with
``arguments`` or ``parameters`` (OpenAI/Llama style). A reply with real tool calls, or cut at its token cap
(that cause is named instead), is never one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

_TAGGED = re.compile(r"<tool_call>\s*(\{.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED = re.compile(r"\A```[a-zA-Z]*\s*(.*?)\s*```\Z", re.DOTALL)
_NAME = re.compile(r'"name"\s*:\s*"([^"\\]{1,200})"')
_ARGUMENT_KEYS = ("arguments", "parameters")
EXCERPT_CHARS = 200  # how much of the text is quoted in the reason


def _call_object(text: str) -> dict[str, object] | None:
    """``text`` as a JSON object shaped like a tool call (a ``name`` string and its arguments), else None."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("name"), str) and any(key in value for key in _ARGUMENT_KEYS):
        return value
    return None


def written_tool_call(content: str | None) -> str | None:
    """What form of written tool call ``content`` is ('a <tool_call> block naming get_booking'), else None."""
    text = (content or "").strip()
    fenced = _FENCED.match(text)
    text = fenced.group(1).strip() if fenced else text
    tagged = _TAGGED.search(text)
    if tagged is not None:
        name = _NAME.search(tagged.group(1))
        return "a <tool_call> block" + (f" naming {name.group(1)}" if name else "")
    if text.startswith("{") and text.endswith("}"):
        call = _call_object(text)
        if call is not None:
            return f"a JSON object naming {call['name']}"
    return None


def tool_call_as_text(content: str | None, tool_calls: Sequence[object], *, cut: bool = False) -> str | None:
    """Why an agent reply with no tool calls cannot be its turn: it wrote a tool call as text. None otherwise
    (real tool calls, a reply cut at its cap, or ordinary text)."""
    if tool_calls or cut:
        return None
    form = written_tool_call(content)
    if form is None:
        return None
    excerpt = " ".join((content or "").split())[:EXCERPT_CHARS]
    return (f"tool call written as text ({form}): the server returned it as the reply's text, not as a tool call, "
            f"so no tool ran: {excerpt!r}")
