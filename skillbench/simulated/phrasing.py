"""How SIMULATED agents put actions and records into words (and how judges recognise claimed actions)."""

from __future__ import annotations

import re

from skillbench.simulated.reading import plain

# Operation verb (first word of a tool's operation) → past participle, for "your X has been <done>".
PARTICIPLES: dict[str, str] = {
    "update": "updated", "change": "changed", "move": "moved", "reschedule": "rescheduled", "book": "booked",
    "create": "created", "open": "opened", "cancel": "cancelled", "delete": "deleted", "remove": "removed",
    "refund": "refunded", "issue": "issued", "apply": "applied", "credit": "credited", "waive": "waived",
    "send": "sent", "notify": "notified", "email": "emailed", "post": "posted", "freeze": "frozen", "block": "blocked",
    "unblock": "unblocked", "order": "ordered", "request": "requested", "submit": "submitted", "process": "processed",
    "reset": "reset", "add": "added", "log": "logged", "record": "recorded", "file": "filed", "schedule": "scheduled",
    "set": "set", "close": "closed", "renew": "renewed", "upgrade": "upgraded", "downgrade": "downgraded",
    "replace": "replaced", "activate": "activated", "deactivate": "deactivated", "suspend": "suspended",
    "unlock": "unlocked", "lock": "locked", "pause": "paused", "resume": "resumed", "escalate": "escalated",
    "transfer": "transferred", "override": "overridden", "redirect": "redirected", "register": "registered",
}

# Claimed-action words grouped by meaning: a claim is backed by a write whose verb shares its group.
CLAIM_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"rescheduled", "moved", "changed", "updated", "booked", "scheduled", "switched", "redirected", "set"}),
    frozenset({"cancelled", "canceled", "deleted", "removed", "closed"}),
    frozenset({"refunded", "credited", "waived", "issued", "reimbursed", "applied"}),
    frozenset({"sent", "emailed", "notified", "posted", "texted", "messaged", "delivered"}),
    frozenset({"frozen", "blocked", "locked", "suspended", "deactivated"}),
    frozenset({"ordered", "requested", "submitted", "placed", "processed", "replaced"}),
    frozenset({"opened", "created", "raised", "logged", "filed", "recorded", "added", "started"}),
    frozenset({"reset", "unlocked", "unblocked", "activated", "renewed", "upgraded", "downgraded", "resumed"}),
    frozenset({"overridden", "escalated", "registered", "transferred"}),
)
CLAIM_WORDS = frozenset().union(*CLAIM_GROUPS)
_WORDS = "|".join(sorted(CLAIM_WORDS, key=len, reverse=True))
# 'I've <...> rescheduled' (first person, loose) or 'has been / is now / was rescheduled' (tight).
_CLAIM = re.compile(
    rf"\b(?:i've|i have|i just|we've|we have|i went ahead and)\b[^.?!]{{0,50}}?\b(?P<a>{_WORDS})\b|"
    rf"\b(?:has been|have been|is now|are now|successfully|just|got)\s+(?:\w+\s+){{0,2}}?(?P<b>{_WORDS})\b",
    re.I,
)
_NEGATED = re.compile(r"\b(not|n't|cannot|unable|couldn't|won't|never|no longer|if|once|when|before|until|would|will|can|could|should|may|whether)\b", re.I)


# 'I've taken care of that' claims *some* action: backed by any successful write.
HANDLED = "handled"
_HANDLED = re.compile(r"\b(i've|i have|we've|we have)\s+(taken care of|sorted|handled|dealt with|done)\b", re.I)


def participle(verb: str) -> str:
    return PARTICIPLES.get(verb, verb + ("d" if verb.endswith("e") else "ed"))


def claim_group(word: str) -> frozenset[str] | None:
    return next((group for group in CLAIM_GROUPS if word.lower() in group), None)


def claimed_actions(text: str) -> list[str]:
    """Action words an agent states as done ('I've rescheduled', 'has been sent'); negated or hypothetical ones are not."""
    found: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+|;\s*", text):
        if sentence.rstrip().endswith("?"):
            continue  # a question ('Would you like it moved?') claims nothing
        for match in _CLAIM.finditer(sentence):
            before = sentence[: match.end()]
            if _NEGATED.search(before[max(0, match.start() - 30):]):
                continue
            word = (match.group("a") or match.group("b")).lower()
            if word not in found:
                found.append(word)
        if _HANDLED.search(sentence) and not _NEGATED.search(sentence) and HANDLED not in found:
            found.append(HANDLED)
    return found


def tool_noun(name: str) -> str:
    """'scheduling.update_appointment' → 'appointment'; 'card_management.order_replacement' → 'replacement'."""
    operation = name.split(".", 1)[-1]
    words = operation.split("_")[1:] or operation.split("_")
    return plain("_".join(words))


# Operation verbs of tools that only read; any other verb changes something (agents and judges agree).
READ_VERBS = frozenset({"get", "list", "search", "find", "lookup", "look", "check", "verify", "read", "query", "fetch", "run", "view", "show"})


def tool_verb(name: str) -> str:
    """'scheduling.update_appointment' → 'update': the first word of the operation."""
    return name.split(".", 1)[-1].split("_", 1)[0]


_PRONOUNS = (
    (r"\btheir\b", "your"), (r"\bthem\b", "you"), (r"\bthey\b", "you"), (r"\bthe caller's\b", "your"),
    (r"\bthe (?:caller|patient|customer|shopper|subscriber)\b", "you"), (r"\bhis or her\b", "your"),
)


def second_person(text: str) -> str:
    for pattern, repl in _PRONOUNS:
        text = re.sub(pattern, repl, text, flags=re.I)
    return text


_STATEMENT_VERB = re.compile(r"\b(is|are|was|went|will|arrives?|replies|reply|shows?|applies|goes|takes|appears?)\b", re.I)
_LEAD = re.compile(
    r"^(?:tell|confirm|explain|say|state|restate|let|inform|remind)\b(?:\s+(?:the\s+)?(?:caller|patient|customer|shopper|subscriber|them|him|her))?(?:\s+that)?\s+",
    re.I,
)


def statement_from_instruction(instruction: str) -> str | None:
    """What a confirm step tells the caller, as statements to them.

    'Tell the patient the request went to their pharmacy' → 'The request went to your pharmacy.'; clauses
    that ask for data ('Give the return number') or for an explanation ('explain when ...') are left to
    the caller-facing details the agent adds from its records.
    """
    text = instruction.strip().rstrip(".")
    clauses = re.split(r",\s*(?:and\s+)?|\s+and\s+(?=(?:ask|offer|give|say|state|tell|explain|confirm|restate|that)\b)", text)
    statements: list[str] = []
    for clause in clauses:
        clause = clause.strip()
        if re.match(r"^(give|state|restate|ask|offer|read|list)\b", clause, re.I) or re.match(r"^explain (when|how|why|what|where|which)\b", clause, re.I):
            continue
        clause = re.sub(r"^that\s+", "", _LEAD.sub("", clause), flags=re.I)
        if _STATEMENT_VERB.search(clause) and len(clause) > 12:
            clause = second_person(clause)
            statements.append(clause[0].upper() + clause[1:] + ".")
    return " ".join(statements) or None
