"""How the SIMULATED caller says a fact's value, and how the simulated agents read it back: one convention.

The caller says each fact it gives as ``my <fact name in words> is <value>`` (``are`` before a list),
several joined by ', ' or ' and ', inside its persona's words ('Sure, ...', '..., I think.'). The value is

* a list or a mapping: JSON, nested to any depth (``["T-104", "T-233"]``, ``[{"flight": "HAT271"}]``);
* text: as written when it reads back unchanged (``C-10482``, ``Priya Natarajan``, ``148 W Belmont Ave``,
  ``100``), else as a JSON string (``"148 W Belmont Ave, Chicago"``, ``"not applicable"``, ``""``). Text
  reads back unchanged when it has no ``, ; ! ?`` or line break, no ``' and my '`` or ``'. '`` inside, no
  ``.`` at its end, and does not start with a quote or a bracket.

A reader gets back exactly what the caller's prompt holds (``prompts.user.fact_value``): lists and
mappings as themselves, anything else as its text. The prompt shows the number 7 and the text '7' alike,
so a model, real or simulated, types a scalar by the tool's schema. A new shape of fact needs no new
reading code.

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
# text said as written, so the caller quotes a fact that happens to be one ('"not applicable"').
_NOT_A_VALUE = re.compile(r"^(?:n't|unknown|something|no idea|that|this|it|what|which|a|an|the)$|^not\b", re.I)


def say_value(value: Any) -> str:
    """A value as the caller says it: text as written when that reads back unchanged, else as JSON."""
    if isinstance(value, str):
        return value if _reads_back_bare(value) else json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False)  # a list or mapping; a lone number or true/false reads back as its text


def say_fact(words: str, value: Any) -> str:
    """'my item ids are ["T-104", "T-233"]': one fact, its name already in words."""
    return FACT.format(words=words, verb="are" if isinstance(value, list) else "is", value=say_value(value))


def quote(text: str) -> str:
    """Someone else's words, relayed: always as a JSON string, so every reader can set them apart."""
    return json.dumps(text, ensure_ascii=False)


def read_value(text: str, start: int) -> tuple[Any, int, bool] | None:
    """The value said at ``text[start:]``: (value, where it ends, whether it was said as JSON), or None.

    A value that starts with a quote or a bracket is JSON, taken when it parses and a value's end follows it;
    anything else is text said as written, up to the end of the value.
    """
    if text[start:start + 1] in ('"', "[", "{"):
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            return None
        return (value, end, True) if _AFTER_VALUE.match(text, end) else None
    bare = _BARE.match(text, start)
    if bare is None or _NOT_A_VALUE.search(bare.group(0)):
        return None
    return bare.group(0), bare.end(), False


# What may follow a value in the caller's sentences: the end, a full stop, the next fact, a persona's words.
_CONTEXTS = ("", ".", ". Thank you.", ", I think.", " and my x is 1.", "?", "!")


def _reads_back_bare(value: str) -> bool:
    if not value or value != value.strip() or value.endswith(".") or any(ch.isspace() and ch != " " for ch in value):
        return False
    return all(read_value(value + after, 0) == (value, len(value), False) for after in _CONTEXTS)
