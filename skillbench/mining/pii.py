"""Personal-data scrubbing, applied at ingest so no transcript text reaches a model or a file unscrubbed.

Four kinds of rule, applied to turn text, tool-call arguments and results, and metadata:

* patterns that need no context: e-mail addresses, phone numbers, runs of 9-20 digits, street addresses;
* digit runs that are personal only in context: 6-20 digits shortly after an account/card word are an
  account number, 4-8 digits after a PIN/passcode word a PIN; the word may be in the same turn or at the
  end of the two turns before (the question a bare "85731890" answers). Dates, years (05/08/1927, 2024-03-17), times
  (12:30, 7 pm), amounts ($1250, 1,250.00, 15%) are never taken for numbers;
* values the source marks as personal (``metadata.pii_values``, and ``metadata.pii_names`` of the conversation
  or, at ingest, those marked in two or more conversations of the source), wherever they occur;
* fields of tool arguments and results whose key says they hold personal data (``FullName``,
  ``account_number``, ``PIN``, ``date_of_birth``, ``SecurityAnswer1`` ...), whatever their value.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache

from skillbench.mining.records import Conversation, Replacement, ScrubbedConversation, Turn

PLACEHOLDERS = {"email": "[EMAIL]", "phone": "[PHONE]", "card_or_account": "[NUMBER]", "pin": "[PIN]",
                "date_of_birth": "[DATE_OF_BIRTH]", "secret": "[SECRET]", "address": "[ADDRESS]", "name": "[NAME]"}

# Order matters: emails first (their digits are not numbers); numbers in an account/PIN context next
# (they are short); phones need separators between digit groups, so they go before the long-digit-run
# rule that would otherwise take them as account numbers.
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_PHONE = re.compile(r"(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)\s?|\b\d{2,4}[\s.-])\d{3}[\s.-]?\d{3,4}\b")
_LONG_NUMBER = re.compile(r"\b(?:\d[ -]?){8,19}\d\b")
# The word after the house number is not a unit: "walk 10 minutes on University Boulevard" is no address.
_ADDRESS = re.compile(
    r"\b\d{1,5}\s+(?!(?:minutes?|mins?|hours?|hrs?|blocks?|miles?|km|kilometres?|meters?|metres?|days?|weeks?|am|pm)\b)"
    r"(?:[A-Za-z0-9]+\s){0,3}(?:street|st|avenue|ave|road|rd|lane|ln|drive|dr|boulevard|blvd|way|court|ct)\b\.?",
    re.IGNORECASE)

# A digit run as people write account numbers and PINs: contiguous, or in groups of four (cards). Not part
# of a longer token, a date, a time, an amount or a percentage.
_DIGITS = re.compile(r"(?<![\w$€£/.,-])(\d{4}(?:[ -]\d{4}){1,4}|\d{4,20})"
                     r"(?![\w%]|[/:.,-]\d|\s?%|\s?(?:am|pm|a\.m|p\.m|percent|dollars?|euros?|credits?)\b)", re.IGNORECASE)
# (kind, words that give the context, fewest and most digits)
_CONTEXT = (
    ("card_or_account", re.compile(r"\b(?:account|acct|a/c|card|iban|routing)s?\b", re.IGNORECASE), 6, 20),
    ("pin", re.compile(r"\b(?:pins?|passcodes?|pass codes?|security codes?|access codes?|clearance codes?)\b", re.IGNORECASE), 4, 8),
)
WINDOW = 48  # characters before a number (or at the end of the two turns before) in which a context word counts

# Words of a marked name that are not names themselves ("Mary and John", "Dr. Ng"): never replaced alone.
_NOT_NAME_PARTS = frozenset({"and", "or", "the", "of", "dr", "dr.", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "sir", "my"})

# Keys (lower case, letters and digits only) of argument/result fields that hold personal data.
_KEYS = (
    ("name", re.compile(r"(?:full|first|last|sur|given|family|middle|customer|patient|renter|guest|caller|"
                        r"holder|accountholder|user|member|contact|doctor|driver|employee|agent)name")),
    ("card_or_account", re.compile(r"(?:account|acct|card|creditcard|debitcard|iban)(?:number|no|num|id)?")),
    ("pin", re.compile(r"pin|pincode|pinnumber|passcode|password|securitycode|cvv|cvc")),
    ("date_of_birth", re.compile(r"dateofbirth|dob|birthdate|birthday")),
    ("secret", re.compile(r"securityanswer\d*|securityquestionanswer\d*|mothersmaidenname|maidenname")),
    ("email", re.compile(r"e?mail|emailaddress")),
    ("phone", re.compile(r"phone|phonenumber|telephone|mobile")),
)


def key_kind(key: str) -> str | None:
    """The personal-data kind a field holds by its name (``AccountNumber`` → card_or_account), or None."""
    flat = re.sub(r"[^a-z0-9]", "", key.lower())
    return next((kind for kind, pattern in _KEYS if pattern.fullmatch(flat)), None)


_YEAR = re.compile(r"\b(?:in|since|from|until|till|year|born|of|by|before|after)\s+$", re.IGNORECASE)
_QUESTION = re.compile(r"[^.!?]*\?")


def _context_kind(text: str, start: int, digits: str, prompted: str) -> str | None:
    """The kind whose context word is nearest before ``start`` in the turn, else in the question the turn answers.

    The turns before count only when their tail asks a question or this turn is a short answer, so a number
    in a long turn after "my PIN is wrong." is not taken for a PIN.
    """
    if len(digits) == 4 and digits[:2] in {"19", "20"} and _YEAR.search(text[:start]):
        return None  # "in 2019", "born in 1985": a year
    tail = prompted[-WINDOW:]
    before = [text[max(0, start - WINDOW):start], tail if len(text.split()) <= 8 else " ".join(_QUESTION.findall(tail))]
    for scope in before:
        found = [(len(scope) - hits[-1].end(), kind) for kind, words, low, high in _CONTEXT
                 if low <= len(digits) <= high and (hits := list(words.finditer(scope)))]
        if found:
            return min(found)[1]
    return None


def _in_context(text: str, prompted: str, counts: Counter[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        digits = "".join(ch for ch in match.group(1) if ch.isdigit())
        kind = _context_kind(text, match.start(), digits, prompted)
        if kind is None:
            return match.group(0)
        counts[kind] += 1
        return PLACEHOLDERS[kind]

    return _DIGITS.sub(replace, text)


def _known_pattern(value: str) -> re.Pattern[str]:
    if value.isdigit():  # long ones written with or without separators (8573 1890); a short one only whole (not 03-14)
        return re.compile(r"(?<!\d)" + (r"[ -]?".join(value) if len(value) >= 8 else value) + r"(?!\d)")
    return re.compile(rf"(?<!\w){re.escape(value)}(?!\w)", re.IGNORECASE)


def scrub_text(text: str, names: Sequence[str], counts: Counter[str], known: Mapping[str, Sequence[str]] | None = None,
               prompted: str = "") -> str:
    """``text`` with personal data replaced; ``prompted``: the turns before (an account/PIN question there gives context)."""
    if not text:
        return text
    # Marked values first, longest first, so a known account number is counted as one, not as a long number.
    marked = sorted(((kind, v.strip()) for kind, values in (known or {}).items() for v in values if len(v.strip()) >= 2),
                    key=lambda kv: -len(kv[1]))
    for kind, value in marked:
        text, n = _known_pattern(value).subn(PLACEHOLDERS.get(kind, "[REDACTED]"), text)
        counts[kind] += n
    text, n = _EMAIL.subn(PLACEHOLDERS["email"], text)
    counts["email"] += n
    text = _in_context(text, prompted, counts)
    for kind, pattern in (("phone", _PHONE), ("card_or_account", _LONG_NUMBER), ("address", _ADDRESS)):
        text, n = pattern.subn(PLACEHOLDERS[kind], text)
        counts[kind] += n
    pattern = _names_pattern(tuple(sorted(set(names))))
    if pattern is not None:
        text, n = pattern.subn(PLACEHOLDERS["name"], text)
        counts["name"] += n
    return text


@lru_cache(maxsize=64)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for every name and each of its words (first, last), longest first: a corpus's hundreds of
    marked names cost one search per text."""
    parts = {part for name in names for part in (name.strip(), *name.split())
             if len(part) >= 2 and part.lower() not in _NOT_NAME_PARTS}
    if not parts:
        return None
    return re.compile(r"\b(?:" + "|".join(re.escape(p) for p in sorted(parts, key=lambda p: (-len(p), p))) + r")\b", re.IGNORECASE)


def _scrub_value(value: object, names: Sequence[str], counts: Counter[str], known: Mapping[str, Sequence[str]],
                 key_kind_of: str | None = None) -> object:
    if key_kind_of is not None and value not in (None, "", True, False) and not isinstance(value, bool):
        counts[key_kind_of] += 1  # a personal field: replaced whole, whatever it holds (a number, a quoted string ...)
        return PLACEHOLDERS[key_kind_of]
    if isinstance(value, str):
        return scrub_text(value, names, counts, known)
    if isinstance(value, int | float) and not isinstance(value, bool):
        text = str(value)
        kind = next((k for k, values in known.items() if text in {v.strip() for v in values}), None)
        if kind is not None:
            counts[kind] += 1
            return PLACEHOLDERS[kind]
        if len(text) >= 9 and text.isdigit():  # a bare long number (as the text rule)
            counts["card_or_account"] += 1
            return PLACEHOLDERS["card_or_account"]
        return value
    if isinstance(value, dict):
        return {k: _scrub_value(v, names, counts, known, key_kind(str(k))) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_value(v, names, counts, known, key_kind_of) for v in value]
    return value


def scrub(conversation: Conversation, also_names: Sequence[str] = ()) -> ScrubbedConversation:
    """The conversation with personal data replaced (module docstring), and what was replaced by kind.

    ``also_names``: names marked in other conversations of the source, replaced here too (a name a source
    knows as a person's is a person's name wherever it occurs).
    """
    counts: Counter[str] = Counter()
    names = [*conversation.metadata.pii_names, *also_names]
    known: dict[str, list[str]] = {str(k): list(v) for k, v in conversation.metadata.pii_values.items()}
    turns = []
    recent: list[str] = []  # the last two turns' text: "you need my account?" "yes" "it is 85731890"
    for turn in conversation.turns:
        prompted = " ".join(recent)
        calls = [call.model_copy(update={"arguments": _scrub_value(call.arguments, names, counts, known),
                                         "result": _scrub_value(call.result, names, counts, known)}) for call in turn.tool_calls]
        turns.append(Turn(speaker=turn.speaker, text=scrub_text(turn.text, names, counts, known, prompted), tool_calls=calls,
                          action=turn.action))
        if turn.text:
            recent = [*recent[-1:], turn.text]
    meta = conversation.metadata.model_copy(update={"pii_names": [], "pii_values": {},
                                                    "extra": _scrub_value(conversation.metadata.extra, names, counts, known)})
    clean = Conversation(id=conversation.id, turns=turns, metadata=meta)
    return ScrubbedConversation(conversation=clean, replaced=[Replacement(kind=k, count=v) for k, v in sorted(counts.items()) if v])


_ANY_PLACEHOLDER = re.compile("|".join(re.escape(p) for p in PLACEHOLDERS.values()))


def handles_personal(conversation: Conversation, *, calls: bool) -> bool:
    """Whether a scrubbed conversation dealt with personal data: placeholders in its tool calls' arguments
    (``calls``: the extractor reads the calls), else in its turns' text."""
    if calls:
        return any(_ANY_PLACEHOLDER.search(str(call.arguments)) for turn in conversation.turns for call in turn.tool_calls)
    return any(_ANY_PLACEHOLDER.search(turn.text) for turn in conversation.turns)
