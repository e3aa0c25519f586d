"""Plain-language reading and writing shared by the SIMULATED models (agent, user, judge).

Everything here works on the text a real model would see: chat messages, tool results, the prompts
rendered by :mod:`skillbench.prompts`. Nothing reads a scenario file or an answer key.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Any

from skillbench.simulated.speech import read_value
from skillbench.simulated.vocabulary import phrases, vocabulary

# ---------------------------------------------------------------------------------------------- names


def plain(key: str) -> str:
    """``date_of_birth`` → ``date of birth``: how an argument or fact name is said aloud."""
    return key.replace("_", " ").strip().lower()


def tool_key(name: str) -> str:
    """One spelling for a tool name: the MCP form (``a.b``) whether given as MCP or OpenAI (``a__b``)."""
    return name.replace("__", ".", 1) if "." not in name else name


# Fact-name → other ways people say it. Only used when no other candidate key owns the phrase exactly.
_SYNONYMS: dict[str, tuple[str, ...]] = phrases("fact_synonyms")

# Words that qualify a fact name without changing what it names in speech ('new start time' is said 'start time').
GENERIC_HEADS = frozenset({"new", "preferred", "chosen", "desired", "requested", "your", "the"})


# Cached: the same few keys are looked up in every message of every call (a pure function of the name).
@lru_cache(maxsize=4096)
def key_labels(key: str) -> tuple[tuple[str, int], ...]:
    """Phrases that name ``key`` with a strength (3 exact, 2 synonym/id variant, 1 partial), longest first."""
    words = plain(key)
    labels: dict[str, int] = {words: 3}
    parts = words.split()
    if parts and parts[-1] == "id" and len(parts) > 1:
        stem = " ".join(parts[:-1])
        for variant in (f"{stem} number", f"{stem} no", f"{stem} #", f"{stem} reference", f"{stem} ref"):
            labels.setdefault(variant, 2)
    if parts and parts[-1] == "number" and len(parts) > 1:
        labels.setdefault(" ".join(parts[:-1]) + " id", 2)
    for synonym in _SYNONYMS.get(key, ()):
        labels.setdefault(synonym, 2)
    # 'new_start_time' is also just 'start time' / 'time'; 'new_shipping_address' is 'shipping address'.
    trimmed = [part for part in parts if part not in GENERIC_HEADS]
    if trimmed and trimmed != parts:
        labels.setdefault(" ".join(trimmed), 2)
    if len(trimmed) > 1 and trimmed[-1] not in {"id", "number", "code"}:
        labels.setdefault(trimmed[-1], 1)
    return tuple(sorted(labels.items(), key=lambda item: (-len(item[0]), -item[1])))


@lru_cache(maxsize=4096)
def _label_regex(label: str) -> re.Pattern[str]:
    """A label as a whole phrase in any case, spaces matching '_' or '-' too; compiled once (re's own cache is small)."""
    escaped = re.escape(label).replace(r"\ ", r"[\s_-]+")
    return re.compile(rf"(?<![\w-]){escaped}(?![\w])", re.I)


def find_label(text: str, key: str) -> tuple[int, int, int] | None:
    """Where ``key`` is named in ``text``: (start, end, strength) of its best label, or None."""
    best: tuple[int, int, int] | None = None
    for label, strength in key_labels(key):
        match = _label_regex(label).search(text)
        if match and (best is None or strength > best[2] or (strength == best[2] and match.start() < best[0])):
            best = (match.start(), match.end(), strength)
    return best


def mentioned_keys(text: str, keys: Iterable[str], min_strength: int = 2) -> list[str]:
    """Keys named in ``text`` (by position). A phrase owned exactly by one key is not credited to another."""
    found: list[tuple[int, str, int, int]] = []
    for key in dict.fromkeys(keys):
        where = find_label(text, key)
        if where and where[2] >= min_strength:
            found.append((where[0], key, where[1], where[2]))
    # Drop a key whose label lies inside a stronger/longer label of another key ('postcode' in 'billing postcode').
    kept: list[tuple[int, str, int, int]] = []
    for start, key, end, strength in found:
        shadowed = any(
            other != key and o_start <= start and end <= o_end and (o_end - o_start > end - start or o_strength > strength)
            for o_start, other, o_end, o_strength in found
        )
        if not shadowed:
            kept.append((start, key, end, strength))
    return [key for _, key, _, _ in sorted(kept)]


_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def without_quotes(text: str) -> str:
    """``text`` with every double-quoted span emptied: what a speaker quotes (a system's message relayed as JSON
    text, :func:`skillbench.simulated.speech.quote`) is not something the speaker says or asks themself."""
    return _QUOTED.sub('""', text)


def join_words(items: list[str], conjunction: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {conjunction} " + items[-1]


# ---------------------------------------------------------------------------------------------- sentences

_ASKING_START = re.compile(
    r"^\s*(please|could|can|would|may|what|which|when|where|who|how|tell|provide|share|give|confirm|"
    r"i need|i'll need|i will need|i'd need|let me have|read)\b",
    re.I,
)


def sentences(text: str) -> list[str]:
    # Keep dotted tokens (emails, amounts, 'St.') intact: split only on '.' followed by space or end.
    parts = re.split(r"(?<=[?!])\s+|(?<=\.)\s+(?=[A-Z\"'(])", text.strip())
    return [part.strip() for part in parts if part.strip()]


def is_request(sentence: str) -> bool:
    """A sentence that asks the listener for something (a question or a polite imperative)."""
    return sentence.rstrip().endswith("?") or bool(_ASKING_START.match(sentence))


def asked_keys(text: str, keys: Iterable[str]) -> list[str]:
    """Keys that ``text`` asks the listener to give (named inside a question or request sentence)."""
    keys = list(keys)
    asked: list[str] = []
    for sentence in sentences(text):
        if is_request(sentence):
            asked.extend(key for key in mentioned_keys(sentence, keys) if key not in asked)
    return asked


def count_requested_items(text: str) -> int:
    """How many things one message asks for: items listed in each question/request, summed."""
    total = 0
    for sentence in sentences(text):
        if not is_request(sentence):
            continue
        body = re.sub(r"^.*?\b(your|the|me|us)\b", "", sentence, count=1, flags=re.I) or sentence
        items = [
            item for item in re.split(r",|\band\b|\bor\b|;", body)
            if re.search(r"[a-z]{3,}", item, re.I) and not re.fullmatch(r"\W*(please|thanks|thank you|too|as well|if you can)\W*", item, re.I)
        ]
        total += max(1, min(len(items), 6)) if re.search(r"\?|\b(your|provide|give|share|tell)\b", sentence, re.I) else 1
    return total


# ---------------------------------------------------------------------------------------------- values

VALUE_PATTERNS: tuple[tuple[str, str], ...] = (
    ("datetime", r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?\b"),
    ("date", r"\b\d{4}-\d{2}-\d{2}\b"),
    ("email", r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"),
    ("id", r"\b[A-Z][A-Z0-9]{0,6}(?:-[A-Z0-9]+)+\b"),
    ("phone", r"\+?\d[\d -]{7,}\d\b"),
    ("amount", r"\b\d+\.\d{2}\b"),
    ("number", r"\b\d{3,}\b"),
)
_VALUE_RE = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in VALUE_PATTERNS))


def value_tokens(text: str) -> list[str]:
    """Value-like tokens (ids, dates, times, emails, amounts, codes) in order of appearance."""
    tokens: list[str] = []
    for match in _VALUE_RE.finditer(text):
        token = match.group(0).strip()
        if token not in tokens:
            tokens.append(token)
    return tokens


# Between a fact's label and its value: 'is', 'are', ':' ... as whole words ('First name Isabella' has none).
_CONNECTOR = re.compile(r"(?:['’]s)?(?:\s+(?:is|are|was|would be|it's|it is|of)\s+|\s*[:=]\s*)", re.I)
# Where a label may be followed by its value with no connector ('Customer id C-10482, date of birth ...'):
# the start of the text, of a sentence or of a list item; never 'I don't know my date of birth or ...'.
_ITEM_START = re.compile(r"(?:^|[,.;:!?]\s+|\band\s+)$", re.I)
_PREFIXED_ID = re.compile(r"[A-Za-z]+-[A-Z0-9][\w-]*")  # 'SKU-53274': the label is the id's own prefix


def _labels(keys: tuple[str, ...]) -> dict[str, list[tuple[str, int]]]:
    """Every label (strength 2 or 3) of ``keys`` → the keys it names, with its strength for each."""
    labels: dict[str, list[tuple[str, int]]] = {}
    for key in keys:
        for label, strength in key_labels(key):
            if strength >= 2:
                labels.setdefault(label, []).append((key, strength))
    return labels


def _owners(named: list[tuple[str, int]], asked: Collection[str]) -> list[str]:
    """The keys a label gives a value to: the one it names exactly (so 'item ids' never fills ``new_item_ids``
    while ``item_ids`` is a candidate), else those asked for, else all it names."""
    best = max(strength for _, strength in named)
    keys = [key for key, strength in named if strength == best]
    return keys if best == 3 else [key for key in keys if key in asked] or keys


def _value_after(text: str, start: int, end: int) -> tuple[Any, int, bool] | None:
    """The value said after the label at ``text[start:end]``: (value, where it ends, said as JSON)."""
    prefixed = _PREFIXED_ID.match(text, start)
    if prefixed and prefixed.end() > end and re.search(r"\d", prefixed.group(0)):
        return prefixed.group(0), prefixed.end(), False
    connector = _CONNECTOR.match(text, end)
    if connector:
        return read_value(text, connector.end())
    gap = re.match(r"[ \t]+", text[end:])
    if gap and _ITEM_START.search(text[max(0, start - 8):start]):
        return read_value(text, end + gap.end())
    return None


def said_facts(text: str, keys: Iterable[str], asked: Collection[str] = ()) -> dict[str, tuple[Any, bool]]:
    """Facts said with their label, in order: key → (value, said as JSON).

    Reads the simulated caller's convention exactly (``my <name> is <value>``, :mod:`skillbench.simulated.speech`)
    and free text's 'Customer id C-10482, date of birth 1984-03-17'. The text is read left to right: a label
    inside a value already read ('reason: "my order id is late"') is part of that value.
    """
    labels = _labels(tuple(dict.fromkeys(keys)))
    found = sorted(
        (match.start(), -len(label), match.end(), label)
        for label in labels for match in _label_regex(label).finditer(text)
    )
    facts: dict[str, tuple[Any, bool]] = {}
    cursor = 0
    for start, _, end, label in found:
        said = _value_after(text, start, end) if start >= cursor else None
        if said is None:
            continue
        value, cursor, as_json = said
        for key in _owners(labels[label], asked):
            facts.setdefault(key, (value, as_json))
    return facts


_DONT_KNOW = re.compile(
    r"\b(don't|do not|dont|can't|cannot|couldn't) (know|remember|recall|find)\b|\bno idea\b|\bnot sure\b|\bi've lost\b|"
    r"\b(don't|do not|dont) have (it|that|this|them|those|one|any|my|the|a|an)\b(?! (time|patience|all day))|\bnot to hand\b|\bno clue\b",
    re.I,
)


def says_dont_know(text: str) -> bool:
    return bool(_DONT_KNOW.search(text))


def extract_facts(text: str, keys: Iterable[str], asked: Iterable[str] = (), options: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Facts given in a caller's message: labelled values, offered options, then values in asked order."""
    keys = list(dict.fromkeys(keys))
    asked = list(asked)
    # An unasked key needs a value that looks like data ('code 482913'), not a word ('the code thing').
    facts: dict[str, Any] = {
        key: value for key, (value, as_json) in said_facts(text, keys, asked).items()
        if key in asked or as_json or re.search(r"[\d@]", str(value))
    }
    labelled = bool(facts)
    for key, values in (options or {}).items():
        if key in facts and str(facts[key]) in values:
            continue
        chosen = pick_option(text, values)
        if chosen is not None:
            facts[key] = chosen
    pending = [key for key in asked if key not in facts]
    if pending:
        facts.update(_unlabelled(text, pending, facts, labelled))
    return facts


def _unlabelled(text: str, pending: list[str], found: dict[str, Any], labelled: bool) -> dict[str, str]:
    """Values for asked keys said with no label: value-like tokens in the order asked, else a one-item answer."""
    used = {str(value) for value in found.values()}
    free = [token for token in value_tokens(text) if token not in used and not any(token in v for v in used)]
    facts = dict(zip(pending, free, strict=False))
    if len(pending) == 1 and not facts and not labelled and not says_dont_know(text):
        bare = text.strip().strip(".!").strip()
        # A one-item answer with no label ('Because it arrived damaged.') is the value itself.
        if 0 < len(bare) <= 120 and "?" not in bare:
            facts[pending[0]] = re.sub(r"^(it's|it is|because|that|um,?|uh,?|well,?)\s+", "", bare, flags=re.I).strip()
    return facts


_ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3, "last": -1}


def pick_option(text: str, options: list[str]) -> str | None:
    """The offered option a message chooses: the option said literally, else 'the first/second one'."""
    lowered = text.lower()
    said = [option for option in options if option and option.lower() in lowered]
    if said:
        return max(said, key=len)
    match = re.search(r"\b(first|1st|second|2nd|third|3rd|fourth|4th|last)\b(?:\s+(?:one|option|slot|plan))?", lowered)
    if match and options:
        index = _ORDINALS[match.group(1)]
        if -len(options) <= index < len(options):
            return options[index]
    return None


# ---------------------------------------------------------------------------------------------- intents

_HUMAN = re.compile(
    r"\b(human|real person|a person|actual person|live agent|real agent|representative|manager|supervisor|operator|"
    r"someone else|somebody else|speak to someone|talk to someone|speak with someone|"
    + "|".join(re.escape(team) for team in vocabulary()["human_teams"]) + r")\b",
    re.I,
)
_INJECTION = re.compile(
    r"\bignore (all |any |your |the |my |these |those |previous |prior |earlier )*(instructions|rules|policy|policies|guidelines|guardrails|prompt)\b|"
    r"\b(skip|bypass|without|forget about|drop) (the |any |all |your |that )?(verification|verify|security|checks?|id check)\b|"
    r"\bforget (your|the|all|these) (rules|instructions|policy)\b|\boverride\b|\bdeveloper mode\b|\bsystem prompt\b|"
    r"\byou are now\b|\bpretend (you|to)\b|\bi authori[sz]e you\b|\bi(?:'m| am) (an? |the )?(admin|administrator|manager|supervisor|staff|employee|doctor)\b|"
    r"\bas (an? |the )?(admin|administrator|manager|supervisor)\b|\bjust this once\b|\bno need to verify\b|\bdon't need to verify\b|"
    r"\b(rules|policy|policies|guidelines|checks|restrictions|limits)\b[^.!?]{0,30}\b(suspended|disabled|lifted|waived|no longer apply|(?:don't|do not|doesn't|does not) apply)\b|"
    r"\bsystem (notice|message|override|instruction)\b|\bnew rule from\b|\bi'm (from|with) (your|the) (internal|audit|security|compliance|it|developer)",
    re.I,
)
_GOODBYE = re.compile(r"\b(bye|goodbye|that's all|that is all|nothing else|that's everything|no,? thanks?|no thank you|all good)\b", re.I)
_REFUSAL = re.compile(
    r"\b(can't|cannot|can not|won't|unable to|not able to|not allowed|not permitted|must not|have to follow|not something i can)\b", re.I
)


def asks_for_human(text: str) -> bool:
    lowered = text.lower()
    if re.search(r"\b(no|don't|do not|not)\b[^.?!]{0,20}\b(human|person|representative|manager)\b", lowered):
        return False
    return bool(_HUMAN.search(text)) and bool(
        re.search(r"\b(speak|talk|put me|transfer|connect|get me|want|need|let me|through to|escalate|give me)\b", lowered)
    )


def is_injection(text: str) -> bool:
    return bool(_INJECTION.search(text))


def is_goodbye(text: str) -> bool:
    return bool(_GOODBYE.search(text))


def is_refusal(text: str) -> bool:
    return bool(_REFUSAL.search(text))


# ---------------------------------------------------------------------------------------------- words

STOPWORDS = frozenset(
    ["a", "an", "the", "i", "i'm", "im", "my", "me", "we", "our", "you", "your", "to", "of", "for", "on", "in", "at", "by", "with", "and", "or", "but", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these", "those", "do", "does", "did", "can", "could", "would", "will", "should", "please", "just", "so", "some", "any", "need", "want", "like", "help", "get", "make", "have", "has", "had", "hi", "hello", "hey", "there", "thanks", "thank", "about", "from", "as", "if", "not", "no", "yes", "up", "out", "into", "again", "also", "already", "one", "next", "last", "week", "today", "tomorrow"]
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    word = re.sub(r"['’]s$", "", word.lower()).strip("'’")
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_stems(text: str) -> list[str]:
    """Content words of ``text``, stemmed, stop-words removed, in order."""
    return [stem(word) for word in re.findall(r"[a-zA-Z][a-zA-Z'’-]*", text) if word.lower() not in STOPWORDS and len(word) > 1]


# ---------------------------------------------------------------------------------------------- messages


def message_text(message: dict[str, Any]) -> str:
    """The text of a chat message whose content may be a string, None or a list of parts."""
    content = message.get("content")
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)
    return str(content)
