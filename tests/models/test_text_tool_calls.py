"""A tool call written as text (in the reply's content, no tool_calls) is recognised in every form small models
write it and made the agent's model error; ordinary text, real calls and cut replies are not (docs/outcomes.md)."""

from __future__ import annotations

import pytest

from skillbench.agents.protocol import as_agent_reply
from skillbench.core.errors import ModelOutputError
from skillbench.core.records import ToolCall, Usage
from skillbench.models.client import Completion
from skillbench.models.text_tool_calls import tool_call_as_text, written_tool_call
from tests.support.replay import AGENT_TOOL_CALL_AS_JSON_TEXT, AGENT_TOOL_CALL_AS_TEXT


@pytest.mark.parametrize(("content", "form"), [
    (AGENT_TOOL_CALL_AS_TEXT["content"], "a <tool_call> block naming identity__verify_customer"),
    (AGENT_TOOL_CALL_AS_JSON_TEXT["content"], "a JSON object naming identity__verify_customer"),
    ('{"name": "get_booking", "arguments": {"booking_id": "1234567890"}}', "a JSON object naming get_booking"),
    ('Let me check.\n<tool_call>{"name": "get_booking", "arguments": {"booking_id": "12', "a <tool_call> block naming get_booking"),
    ("<tool_call>\n{not json at all}\n</tool_call>", "a <tool_call> block"),
    ('  ```\n{"name": "lookup", "arguments": {}}\n```  ', "a JSON object naming lookup"),
], ids=["hermes-block", "fenced-json-parameters", "bare-json", "after-prose-unclosed", "unparseable-block", "fence-no-lang"])
def test_each_written_form_is_recognised_and_named(content: str, form: str) -> None:
    assert written_tool_call(content) == form


@pytest.mark.parametrize("content", [
    "Could you give me your customer id and date of birth?",
    '{"name": "Dana Whitfield"}',  # a JSON object, but not a call (no arguments)
    'Your booking is {"id": "APT-7731", "name": "check-up", "arguments": "none"} -- anything else?',  # not the whole text
    "I will use <tool_call> tags when I need to.",  # the tag without a call after it
    "", None,
])
def test_ordinary_text_is_not_a_written_tool_call(content: str | None) -> None:
    assert written_tool_call(content) is None


def _completion(content: str | None, tool_calls: list[ToolCall] | None = None, finish: str = "stop") -> Completion:
    return Completion(content=content, tool_calls=tool_calls or [], usage=Usage(calls=1), finish_reason=finish,
                      max_tokens=96)


def test_the_agents_turn_is_a_model_error_naming_the_form_and_quoting_the_text() -> None:
    with pytest.raises(ModelOutputError) as caught:
        as_agent_reply(_completion(AGENT_TOOL_CALL_AS_TEXT["content"]))
    assert str(caught.value).startswith(
        "tool call written as text (a <tool_call> block naming identity__verify_customer): the server returned it as "
        "the reply's text, not as a tool call, so no tool ran: '<tool_call> {\"name\": \"identity__verify_customer\"")


def test_a_reply_with_real_calls_or_cut_at_its_cap_is_not_charged_as_a_written_call() -> None:
    call = ToolCall(id="c1", name="identity__verify_customer", arguments={"customer_id": "C-10482"})
    text = AGENT_TOOL_CALL_AS_TEXT["content"]
    reply = as_agent_reply(_completion(text, [call], finish="tool_calls"))
    assert reply.tool_calls == [call]  # the real call runs; the text beside it is the model's to say
    cut = as_agent_reply(_completion(text[:40], finish="length"))
    assert cut.cut == "cut at max_tokens (96)"  # the cut is the cause named (the turn loop ends it as such)
    assert tool_call_as_text(text, [], cut=True) is None
