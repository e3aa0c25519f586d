"""Personal-data scrubbing, applied at ingest so no transcript text reaches a model or a file unscrubbed."""

from __future__ import annotations

import re
from collections import Counter

from skillbench.build.records import Conversation, Replacement, ScrubbedConversation, Turn

# Order matters: emails first (their digits are not numbers); phones need separators between digit
# groups, so they go before the long-digit-run rule that would otherwise take them as account numbers.
_PATTERNS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"), "[EMAIL]"),
    ("phone", re.compile(r"(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)\s?|\b\d{2,4}[\s.-])\d{3}[\s.-]?\d{3,4}\b"), "[PHONE]"),
    ("card_or_account", re.compile(r"\b(?:\d[ -]?){8,19}\d\b"), "[NUMBER]"),
    ("address", re.compile(
        r"\b\d{1,5}\s+(?:[A-Za-z0-9]+\s){0,3}(?:street|st|avenue|ave|road|rd|lane|ln|drive|dr|boulevard|blvd|way|court|ct)\b\.?",
        re.IGNORECASE), "[ADDRESS]"),
)


def scrub_text(text: str, names: list[str], counts: Counter[str]) -> str:
    for kind, pattern, placeholder in _PATTERNS:
        text, n = pattern.subn(placeholder, text)
        counts[kind] += n
    for name in sorted({n for n in names if n.strip()}, key=len, reverse=True):
        for part in {name, *name.split()}:
            if len(part) < 2:
                continue
            text, n = re.subn(rf"\b{re.escape(part)}\b", "[NAME]", text, flags=re.IGNORECASE)
            counts["name"] += n
    return text


def _scrub_value(value: object, names: list[str], counts: Counter[str]) -> object:
    if isinstance(value, str):
        return scrub_text(value, names, counts)
    if isinstance(value, dict):
        return {k: _scrub_value(v, names, counts) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_value(v, names, counts) for v in value]
    return value


def scrub(conversation: Conversation) -> ScrubbedConversation:
    """The conversation with emails, phones, card/account numbers, street addresses and marked names replaced."""
    counts: Counter[str] = Counter()
    names = conversation.metadata.pii_names
    turns = []
    for turn in conversation.turns:
        calls = [call.model_copy(update={"arguments": _scrub_value(call.arguments, names, counts),
                                         "result": _scrub_value(call.result, names, counts)}) for call in turn.tool_calls]
        turns.append(Turn(speaker=turn.speaker, text=scrub_text(turn.text, names, counts), tool_calls=calls, action=turn.action))
    meta = conversation.metadata.model_copy(update={"pii_names": [], "extra": _scrub_value(conversation.metadata.extra, names, counts)})
    clean = Conversation(id=conversation.id, turns=turns, metadata=meta)
    return ScrubbedConversation(conversation=clean, replaced=[Replacement(kind=k, count=v) for k, v in sorted(counts.items()) if v])
