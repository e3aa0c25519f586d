"""Gold actions and the whole-state verdict: what a final state and a call log are compared with.

A scenario's ``gold_actions`` replayed on its ``initial_state`` (by the loader, through the same tool
implementations the mock serves) give the expected end state. :func:`state_differences` compares a
final state with it in full: every collection, every record, every field, except the fields the
manifest declares volatile (generated ids, timestamps). :func:`match_gold_actions` says which gold
actions a call log performed with matching arguments.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from skillbench.benchmark.integrity import collection_key
from skillbench.benchmark.schema import GoldAction, State, StateComparison

_DEFAULT = StateComparison()


def normalized(value: Any, comparison: StateComparison = _DEFAULT) -> Any:
    """A value as the verdict compares it. By default: scalars as strings (like the mock's matching), lists of
    scalars as sorted multisets (item order carries no meaning), mappings field by field, lists of mappings in
    order. ``comparison`` changes the rule (:class:`StateComparison`: JSON types, ordered lists, Unicode)."""
    if isinstance(value, Mapping):
        return {str(key): normalized(item, comparison) for key, item in value.items()}
    if isinstance(value, list):
        items = [normalized(item, comparison) for item in value]
        if comparison.lists == "unordered" and all(isinstance(item, str) for item in items):
            return sorted(items)
        return items
    if value is None:
        return None
    if comparison.scalars == "json":
        return _typed(value, comparison)
    return _text(str(value), comparison)


def _text(text: str, comparison: StateComparison) -> str:
    return text if comparison.unicode == "exact" else unicodedata.normalize(comparison.unicode, text)


def _typed(value: Any, comparison: StateComparison) -> str:
    """A scalar as JSON types it, tagged with its type: strings apart from numbers, numbers apart from booleans,
    100 equal to 100.0 (and, with ``decimals``, to 100.0000001)."""
    if isinstance(value, bool):
        return f"bool:{value}"
    if isinstance(value, int | float):
        number = float(value) if comparison.decimals is None else round(float(value), comparison.decimals)
        return f"number:{number + 0.0!r}"  # + 0.0: -0.0 reads as 0.0
    return f"string:{_text(str(value), comparison)}"


def _volatile(volatile: Mapping[str, Sequence[str]], collection: str) -> set[str]:
    return set(volatile.get("*", ())) | set(volatile.get(collection, ()))


def _canonical(record: Mapping[str, Any], ignored: set[str], comparison: StateComparison) -> str:
    return json.dumps({k: normalized(v, comparison) for k, v in record.items() if k not in ignored}, sort_keys=True)


@dataclass(frozen=True)
class RecordDifference:
    """A record of one state that the other lacks, or a record of both whose fields differ."""

    collection: str
    key: str  # the collection's key field ('orders' → 'order_id')
    record: Mapping[str, Any]  # the actual record (the expected one when missing)
    kind: Literal["changed", "unexpected", "missing"]
    fields: tuple[tuple[str, Any, Any], ...] = ()  # changed: (field, actual value, expected value)

    def __str__(self) -> str:
        if self.kind == "changed":
            return f"{self.collection} {self.key}={self.record[self.key]}: " + ", ".join(
                _field_change(name, have, want) for name, have, want in self.fields)
        return f"{self.collection}: {self.kind} record {_short(self.record, self.key)}"


def _field_change(name: str, have: Any, want: Any) -> str:
    if isinstance(have, str) and isinstance(want, str) and unicodedata.normalize("NFC", have) == unicodedata.normalize("NFC", want):
        # The two print alike: say what differs and show the code points.
        return (f"{name} differs only in Unicode normalisation: {have!a} ({_form(have)}), expected {want!a} "
                f"({_form(want)}); normalise the data or set comparison: {{unicode: NFC}} in benchmark.yaml")
    return f"{name} is {have!r}, expected {want!r}"


def _form(text: str) -> str:
    return next((form for form in ("NFC", "NFD") if unicodedata.is_normalized(form, text)), "mixed")


def record_differences(actual: State, expected: State, volatile: Mapping[str, Sequence[str]] | None = None,
                       comparison: StateComparison = _DEFAULT) -> list[RecordDifference]:
    """Every record ``actual`` and ``expected`` do not share, by collection. Records compare as a multiset per
    collection (order carries no meaning); a record that differs is paired with the expected record of the same key
    (``orders`` → ``order_id``) to name the fields."""
    volatile = volatile or {}
    found: list[RecordDifference] = []
    for collection in sorted(set(actual) | set(expected)):
        ignored = _volatile(volatile, collection)
        have = list(actual.get(collection, []))
        want = list(expected.get(collection, []))
        remaining = [_canonical(r, ignored, comparison) for r in want]
        extra: list[dict[str, Any]] = []
        for record in have:
            text = _canonical(record, ignored, comparison)
            if text in remaining:
                remaining.remove(text)
            else:
                extra.append(record)
        missing: list[dict[str, Any]] = []
        for record in want:
            text = _canonical(record, ignored, comparison)
            if text in remaining:
                remaining.remove(text)
                missing.append(record)
        key = collection_key(collection)
        for record in extra:
            partner = next((m for m in missing if key in record and str(m.get(key)) == str(record.get(key))), None)
            if partner is None:
                found.append(RecordDifference(collection, key, record, "unexpected"))
                continue
            missing.remove(partner)
            fields = tuple(
                (name, record.get(name), partner.get(name)) for name in sorted(set(record) | set(partner))
                if name not in ignored and normalized(record.get(name), comparison) != normalized(partner.get(name), comparison)
            )
            found.append(RecordDifference(collection, key, record, "changed", fields))
        found += [RecordDifference(collection, key, record, "missing") for record in missing]
    return found


def state_differences(actual: State, expected: State, volatile: Mapping[str, Sequence[str]] | None = None,
                      limit: int = 5, comparison: StateComparison = _DEFAULT) -> list[str]:
    """How ``actual`` differs from ``expected``, one phrase per difference (at most ``limit``); [] when equal."""
    found = [str(difference) for difference in record_differences(actual, expected, volatile, comparison)]
    return found[:limit] + ([f"... and {len(found) - limit} more"] if len(found) > limit else [])


def _short(record: Mapping[str, Any], key: str) -> str:
    if key in record:
        return f"{key}={record[key]}"
    return json.dumps(dict(list(record.items())[:4]), ensure_ascii=False, default=str)


def arguments_match(gold: Mapping[str, Any], called: Mapping[str, Any], comparison: StateComparison = _DEFAULT) -> bool:
    """Whether a call's arguments bind what the gold action's do (arguments the gold action omits are free)."""
    return all(name in called and normalized(called[name], comparison) == normalized(value, comparison)
               for name, value in gold.items())


def match_gold_actions(gold: Sequence[GoldAction], calls: Iterable[tuple[str, Mapping[str, Any]]],
                       comparison: StateComparison = _DEFAULT) -> list[int | None]:
    """For each gold action, the index of the successful call that performed it (each call used once), or None."""
    pool = list(enumerate(calls))
    matched: list[int | None] = []
    for action in gold:
        hit = next((index for index, (name, args) in pool
                    if name == action.tool and arguments_match(action.arguments, args, comparison)), None)
        if hit is not None:
            pool = [(index, call) for index, call in pool if index != hit]
        matched.append(hit)
    return matched


def describe_action(action: GoldAction) -> str:
    args = ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in action.arguments.items())
    return f"{action.tool}({args})" + (f" [refused: {action.refused}]" if action.refused else "")
