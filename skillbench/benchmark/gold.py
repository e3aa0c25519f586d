"""Gold actions and the whole-state verdict: what a final state and a call log are compared with.

A scenario's ``gold_actions`` replayed on its ``initial_state`` (by the loader, through the same tool
implementations the mock serves) give the expected end state. :func:`state_differences` compares a
final state with it in full: every collection, every record, every field, except the fields the
manifest declares volatile (generated ids, timestamps). :func:`match_gold_actions` says which gold
actions a call log performed with matching arguments.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from skillbench.benchmark.integrity import collection_key
from skillbench.benchmark.schema import GoldAction, State


def normalized(value: Any) -> Any:
    """A value as the verdict compares it: scalars as strings (like the mock's matching), lists of scalars
    as sorted multisets (item order carries no meaning), mappings field by field."""
    if isinstance(value, Mapping):
        return {str(key): normalized(item) for key, item in value.items()}
    if isinstance(value, list):
        items = [normalized(item) for item in value]
        if all(isinstance(item, str) for item in items):
            return sorted(items)
        return items
    return None if value is None else str(value)


def _volatile(volatile: Mapping[str, Sequence[str]], collection: str) -> set[str]:
    return set(volatile.get("*", ())) | set(volatile.get(collection, ()))


def _canonical(record: Mapping[str, Any], ignored: set[str]) -> str:
    return json.dumps({k: normalized(v) for k, v in record.items() if k not in ignored}, sort_keys=True)


def state_differences(actual: State, expected: State, volatile: Mapping[str, Sequence[str]] | None = None,
                      limit: int = 5) -> list[str]:
    """How ``actual`` differs from ``expected``, one phrase per difference (at most ``limit``); [] when equal.

    Records compare as a multiset per collection (order carries no meaning). A record that differs is
    paired with the expected record of the same key (``orders`` → ``order_id``) to name the field.
    """
    volatile = volatile or {}
    found: list[str] = []
    for collection in sorted(set(actual) | set(expected)):
        ignored = _volatile(volatile, collection)
        have = list(actual.get(collection, []))
        want = list(expected.get(collection, []))
        remaining = [_canonical(r, ignored) for r in want]
        extra: list[dict[str, Any]] = []
        for record in have:
            text = _canonical(record, ignored)
            if text in remaining:
                remaining.remove(text)
            else:
                extra.append(record)
        missing: list[dict[str, Any]] = []
        for record in want:
            text = _canonical(record, ignored)
            if text in remaining:
                remaining.remove(text)
                missing.append(record)
        key = collection_key(collection)
        for record in extra:
            partner = next((m for m in missing if key in record and str(m.get(key)) == str(record.get(key))), None)
            if partner is not None:
                missing.remove(partner)
                fields = sorted(
                    name for name in set(record) | set(partner)
                    if name not in ignored and normalized(record.get(name)) != normalized(partner.get(name))
                )
                changes = ", ".join(f"{name} is {record.get(name)!r}, expected {partner.get(name)!r}" for name in fields)
                found.append(f"{collection} {key}={record[key]}: {changes}")
            else:
                found.append(f"{collection}: unexpected record {_short(record, key)}")
        for record in missing:
            found.append(f"{collection}: missing record {_short(record, key)}")
    return found[:limit] + ([f"... and {len(found) - limit} more"] if len(found) > limit else [])


def _short(record: Mapping[str, Any], key: str) -> str:
    if key in record:
        return f"{key}={record[key]}"
    return json.dumps(dict(list(record.items())[:4]), ensure_ascii=False, default=str)


def arguments_match(gold: Mapping[str, Any], called: Mapping[str, Any]) -> bool:
    """Whether a call's arguments bind what the gold action's do (arguments the gold action omits are free)."""
    return all(name in called and normalized(called[name]) == normalized(value) for name, value in gold.items())


def match_gold_actions(gold: Sequence[GoldAction], calls: Iterable[tuple[str, Mapping[str, Any]]]) -> list[int | None]:
    """For each gold action, the index of the successful call that performed it (each call used once), or None."""
    pool = list(enumerate(calls))
    matched: list[int | None] = []
    for action in gold:
        hit = next((index for index, (name, args) in pool if name == action.tool and arguments_match(action.arguments, args)), None)
        if hit is not None:
            pool = [(index, call) for index, call in pool if index != hit]
        matched.append(hit)
    return matched


def describe_action(action: GoldAction) -> str:
    args = ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in action.arguments.items())
    return f"{action.tool}({args})" + (f" [refused: {action.refused}]" if action.refused else "")
