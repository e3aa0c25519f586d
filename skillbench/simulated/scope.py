"""Does a caller's request fall inside a skill? A word-level reading of the in-scope list (SIMULATED agents).

Requests name an action ('move', 'cancel', 'refund') and an object ('appointment', 'fee'). A request
is in scope when it shares a specific action with the skill (its in-scope phrases, name or capability)
or shares object words with an in-scope phrase; a specific action the skill does not know counts against.
"""

from __future__ import annotations

from skillbench.simulated.reading import content_stems, stem
from skillbench.simulated.vocabulary import vocabulary

# Specific actions, grouped by meaning (stems). A request naming one of these must match the skill's.
_ACTION_GROUPS: tuple[frozenset[str], ...] = tuple(
    frozenset(stem(word) for word in group.split()) for group in vocabulary()["scope_action_groups"]
)
_SPECIFIC = frozenset().union(*_ACTION_GROUPS)
# Object words too common to tell skills apart.
_WEAK = frozenset(stem(word) for word in vocabulary()["scope_weak_words"])


def _groups(word: str) -> set[frozenset[str]]:
    return {group for group in _ACTION_GROUPS if word in group}


def scope_score(request: str, in_scope: list[str], capability: str = "", skill_name: str = "") -> float:
    """How well ``request`` fits the skill: >= 1 in scope, below 1 out of scope."""
    words = [word for word in content_stems(request) if word not in _WEAK]
    if not words:
        return 1.0  # nothing to judge by (a greeting): assume the caller is in the right place
    phrase_words = {word for phrase in in_scope for word in content_stems(phrase)}
    name_words = set(content_stems(skill_name))
    skill_groups = {group for word in phrase_words | name_words | set(content_stems(capability)) for group in _groups(word)}
    score = 0.0
    for word in dict.fromkeys(words):
        if word in _SPECIFIC:
            score += 2.0 if _groups(word) & skill_groups else -2.0
        elif word in phrase_words:
            score += 1.0
        elif word in name_words:
            score += 0.5  # domain words of the name ('phone', 'bill') say little about the request itself
    return score


def in_scope(request: str, in_scope_phrases: list[str], capability: str = "", skill_name: str = "") -> bool:
    return scope_score(request, in_scope_phrases, capability, skill_name) >= 1.0
