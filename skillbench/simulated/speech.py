"""How the SIMULATED caller says a fact's value, and how the simulated agents read it back: one convention.

The caller says each fact it gives as ``my <fact name in words> is <value>`` (``are`` before a list),
several joined by ', ' or ' and ', inside its persona's words ('Sure, ...', '..., I think.'). The value is
JSON (a quoted string, a number, true or false, a list or a mapping, nested to any depth), except a string
that reads back unchanged without quotes, which is said as written (``C-10482``, ``Priya Natarajan``,
``148 W Belmont Ave``): one with no ``, ; ! ?`` or line break, no ``' and my '`` or ``'. '`` inside and no
``.`` at its end, not starting with a quote or bracket, and not itself JSON (``"100"`` and ``"true"`` are
quoted, so the string and the number stay apart). A reader gets back exactly the value the caller's
prompt holds (``prompts.user.fact_value``), so a new shape of fact needs no new reading code.

:func:`read_value` also reads values in free text (a scenario's scripted lines): a value runs to the next
``, ; ! ?``, a full stop before a space or the end, or ``' and my '``.
"""

from __future__ import annotations

import json
import re
from typing import Any

FACT = "my {words} {verb} {value}"

# Where a value said in a sentence ends: punctuation, a full stop before a space or the end, the next fact.
_END = r"(?:\s*[,;!?]|\.(?:\s|$)|\s+and\s+my\b|\s*$)"
_AFTER_VALUE = re.compile(_END, re.I)
_BARE = re.compile(rf"[^\s,;!?\"\[{{][^,;!?\n]*?(?={_END})", re.I)
_DECODER = json.JSONDecoder()
# Words that stand in for a value rather than being one ('my e-mail is not something I have'): never read as
# said-as-written values, so the caller quotes a fact that happens to be one ('"not applicable"').
_NOT_A_VALUE = re.compile(r"^(?:n't|unknown|something|no idea|that|this|it|what|which|a|an|the)$|^not\b", re.I)


def say_value(value: Any) -> str:
    """A value as the caller says it: as written when that reads back unchanged, else as JSON."""
    if isinstance(value, str) and _reads_back_bare(value):
        return value
    return json.dumps(value, ensure_ascii=False)


def say_fact(words: str, value: Any) -> str:
    """'my item ids are ["T-104", "T-233"]': one fact, its name already in words."""
    return FACT.format(words=words, verb="are" if isinstance(value, list) else "is", value=say_value(value))


def quote(text: str) -> str:
    """Someone else's words, relayed: always as a JSON string, so every reader can set them apart."""
    return json.dumps(text, ensure_ascii=False)


def read_value(text: str, start: int) -> tuple[Any, int, bool] | None:
    """The value said at ``text[start:]``: (value, where it ends, whether it was said as JSON), or None.

    JSON is taken when it parses and a value's end follows it ('100.' is the number, '12 Main St' is not);
    anything else is a string said as written, up to the end of the value.
    """
    try:
        value, end = _DECODER.raw_decode(text, start)
    except ValueError:
        pass
    else:
        if _AFTER_VALUE.match(text, end):
            return value, end, True
    bare = _BARE.match(text, start)
    if bare is None or _NOT_A_VALUE.search(bare.group(0)):
        return None
    return bare.group(0), bare.end(), False


# What may follow a value in the caller's sentences: the end, a full stop, the next fact, a persona's words.
_CONTEXTS = ("", ".", ". Thank you.", ", I think.", " and my x is 1.", "?", "!")


def _reads_back_bare(value: str) -> bool:
    if not value or value != value.strip() or value.endswith(".") or any(ch.isspace() and ch != " " for ch in value):
        return False
    try:
        json.loads(value)
    except ValueError:
        pass
    else:
        return False  # '100', 'true', '"quoted"': said as JSON, or they would read back as something else
    return all(read_value(value + after, 0) == (value, len(value), False) for after in _CONTEXTS)
