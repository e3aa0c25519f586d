"""What an agent reads for a tool call: a refusal states its kind, every other text reads as before."""

from __future__ import annotations

import json
from typing import get_args

import pytest

from skillbench.core.records import ToolErrorKind
from skillbench.prompts.tool_result import REFUSED, parse_tool_message, render_tool_error

MESSAGES = [
    "Loan L-700 was due 2026-12-01; no extension.",
    "Nein — dieses Rezept hat keine Wiederholungen mehr.",
    '{"error": "looks like JSON", "kind": "timeout"}',
    "",
    "Only a pending order can be cancelled.",  # wording that once decided a refusal: now it decides nothing
]


@pytest.mark.parametrize("message", MESSAGES)
def test_a_refusal_reads_back_as_a_refusal_whatever_its_words(message: str) -> None:
    text = render_tool_error(REFUSED, message)
    assert json.loads(text) == {"error": message, "kind": "precondition"}
    read = parse_tool_message(text)
    assert (read.ok, read.error, read.error_kind) == (False, message, REFUSED)


@pytest.mark.parametrize("kind", [kind for kind in get_args(ToolErrorKind) if kind != REFUSED])
@pytest.mark.parametrize("message", [m for m in MESSAGES if "kind" not in m])
def test_any_other_failure_keeps_its_text_and_states_no_kind(kind: ToolErrorKind, message: str) -> None:
    assert render_tool_error(kind, message) == message  # byte-identical to what agents read before tool-result-v2
    read = parse_tool_message(message)
    assert not read.ok and read.error_kind is None


def test_successes_and_plain_error_objects_read_as_before() -> None:
    assert parse_tool_message('{"records": [], "count": 0}').ok
    assert parse_tool_message('{"error": "x", "a": 1, "b": 2}').ok  # a result that merely has an 'error' field
    plain = parse_tool_message('{"error": "Not found"}')
    assert (plain.ok, plain.error, plain.error_kind) == (False, "Not found", None)
    assert not parse_tool_message(None).ok
