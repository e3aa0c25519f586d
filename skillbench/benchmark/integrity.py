"""Data integrity a benchmark must have before anything runs: valid, resolvable tool schemas and an
environment whose records point only at records that exist.

The loader stops at the first problem (one line: file, record, field, fix); the lint reports them all.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema import SchemaError
from jsonschema.validators import validator_for
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """What is wrong with a tool's ``input_schema`` (invalid for its draft, or a ``$ref`` that resolves to
    nothing), else None. Checked at load, so a broken reference never surfaces as a failed call at run time."""
    cls = validator_for(schema)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(part) for part in exc.path)
        return f"is not a valid JSON Schema ({exc.message}{f' at {where}' if where else ''})"
    resource = Resource.from_contents(dict(schema), default_specification=DRAFT202012)
    resolver = Registry().with_resource("urn:skillbench:tool", resource).resolver(base_uri="urn:skillbench:tool")
    for where, ref in _refs(schema, ""):
        try:
            resolver.lookup(ref)
        except Unresolvable:
            return f"$ref {ref!r} at {where or '/'} resolves to nothing (define it under $defs, or fix the pointer)"
    return None


def _refs(node: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield where, value
            else:
                yield from _refs(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _refs(item, f"{where}/{index}")


def singular(collection: str) -> str:
    """``customers`` → ``customer``, ``policies`` → ``policy``, ``addresses`` → ``address``."""
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("xes", "x"), ("ses", "s"), ("s", "")):
        if collection.endswith(suffix) and len(collection) > len(suffix):
            return collection[: -len(suffix)] + replacement
    return collection


def collection_key(collection: str) -> str:
    """The id field of a collection's records by convention: ``orders`` → ``order_id``."""
    return f"{singular(collection)}_id"


LIST_STEP = "[]"  # a path step ending in [] walks into each item of a list ('orders.items[].product_id')
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class FieldPath:
    """A field of a collection's records, possibly nested: ``orders.buyer_id``, ``orders.shipping.country``
    (a mapping), ``orders.items[].product_id`` (each mapping of the list ``items``)."""

    collection: str
    steps: tuple[str, ...]  # field names; one ending in [] walks into each item of that list

    @classmethod
    def parse(cls, text: str) -> FieldPath:
        """``'<collection>.<field>[.<field>...]'``; a ValueError says what is wrong with it."""
        collection, *steps = text.split(".")
        if not steps:
            raise ValueError(f"{text!r} is not '<collection>.<field>'")
        for step in (collection, *steps):
            if not _NAME.match(step.removesuffix(LIST_STEP)):
                raise ValueError(f"{text!r} has an empty or malformed part {step!r}")
        if steps[-1].endswith(LIST_STEP):
            raise ValueError(f"{text!r} ends in '[]': name the field of the list's items ('...{steps[-1]}.<field>')")
        return cls(collection, tuple(steps))

    @property
    def field(self) -> str:
        """The path inside a record, as written: ``items[].product_id``."""
        return ".".join(self.steps)

    def __str__(self) -> str:
        return f"{self.collection}.{self.field}"

    def values(self, record: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
        """Each value at this path in ``record``, with its location (``items.1.product_id``); a list at the
        last step yields each of its items. A record without the field (or of another shape) yields nothing."""
        yield from _walk(record, self.steps, "")


def _walk(node: Any, steps: tuple[str, ...], where: str) -> Iterator[tuple[str, Any]]:
    if not isinstance(node, Mapping):
        return
    name = steps[0].removesuffix(LIST_STEP)
    if name not in node or node[name] is None:
        return
    value, here = node[name], f"{where}{name}"
    if len(steps) == 1:
        items = enumerate(value) if isinstance(value, list) else [(None, value)]
        for index, item in items:
            yield (here if index is None else f"{here}.{index}"), item
    elif steps[0].endswith(LIST_STEP):
        for index, item in enumerate(value if isinstance(value, list) else []):
            yield from _walk(item, steps[1:], f"{here}.{index}.")
    else:
        yield from _walk(value, steps[1:], f"{here}.")


@dataclass(frozen=True)
class DanglingReference:
    collection: str
    index: int  # position of the record in its collection
    field: str  # where in the record: 'buyer_id', 'items.1.product_id'
    value: Any
    target: str  # the collection that should hold a record with that id
    target_field: str  # the field of that record holding it: 'user_id', 'variants[].item_id'

    def __str__(self) -> str:
        return (
            f"initial_state.{self.collection}.{self.index}.{self.field}' is {self.value!r}, but no "
            f"{self.target} record has {self.target_field} {self.value!r}"
        )


def dangling_references(state: Mapping[str, list[dict[str, Any]]], declared: Mapping[str, str] | None = None) -> list[DanglingReference]:
    """Records pointing at a record another collection of the same state does not hold.

    A reference is a field named like another collection's key (``customer_id`` in ``orders`` points at
    ``customers``, whose records all carry ``customer_id``), or one the manifest declares
    (``references: {orders.buyer_id: customers.customer_id, orders.items[].product_id: products.product_id}``;
    :func:`reference_problems` checks the declaration itself). A collection absent from the state is not
    checked: a scenario may model only the collections its tools touch.
    """
    references: list[tuple[FieldPath, FieldPath]] = []
    declared_fields: set[tuple[str, str]] = set()
    for source, target in (declared or {}).items():
        try:
            pair = FieldPath.parse(source), FieldPath.parse(target)
        except ValueError:
            continue  # reference_problems names it
        declared_fields.add((pair[0].collection, pair[0].steps[0]))
        references.append(pair)
    for collection, records in state.items():
        key = collection_key(collection)
        if records and all(isinstance(r, dict) and key in r for r in records):
            references += [(FieldPath(other, (key,)), FieldPath(collection, (key,))) for other in state
                           if other != collection and (other, key) not in declared_fields]
    ids: dict[FieldPath, set[str]] = {}
    found: list[DanglingReference] = []
    for source, target in references:
        if target.collection not in state or source.collection == target.collection:
            continue
        known = ids.get(target)
        if known is None:
            known = ids[target] = {str(value) for r in state[target.collection] for _, value in target.values(r)}
        for index, record in enumerate(state.get(source.collection, [])):
            found += [DanglingReference(source.collection, index, where, value, target.collection, target.field)
                      for where, value in source.values(record) if str(value) not in known]
    order = {name: position for position, name in enumerate(state)}  # in the state's order, record by record
    return sorted(found, key=lambda d: (order[d.collection], d.index))


def reference_problems(declared: Mapping[str, str], states: Iterable[Mapping[str, list[dict[str, Any]]]],
                       collections: Iterable[str] = ()) -> list[tuple[str, str]]:
    """What is wrong with a manifest's ``references``, as (entry, problem with its fix): a malformed path, a
    collection no scenario state and no tool has, a field no record of it has, or a path that does not walk
    the records' shape (a list of records reached without '[]'). A misspelt entry would otherwise switch
    its check off without a word; each problem names the nearest known name."""
    records: dict[str, list[Any]] = {name: [] for name in collections}
    for state in states:
        for name, items in state.items():
            records.setdefault(name, []).extend(items)
    problems: list[tuple[str, str]] = []
    for source, target in declared.items():
        for text in (source, target):
            problem = _path_problem(text, records)
            if problem:
                problems.append((source, problem))
                break
    return problems


def _path_problem(text: str, records: Mapping[str, list[Any]]) -> str | None:
    try:
        path = FieldPath.parse(text)
    except ValueError as exc:
        return f"{exc}. Fix: write '<collection>.<field>', with '[]' after a list of records ('orders.items[].product_id')"
    if path.collection not in records:
        return f"{path.collection!r} in {text!r} is no collection of any scenario's initial_state or tool. Fix: " + _nearest(
            path.collection, records, "collection")
    nodes: list[Any] = list(records[path.collection])
    for depth, step in enumerate(path.steps):
        name = step.removesuffix(LIST_STEP)
        mappings = [node for node in nodes if isinstance(node, Mapping)]
        fields = {key for node in mappings for key in node}
        if not mappings:
            return None  # no record to check the path against (a collection only tools name)
        if name not in fields:
            holder = f"{path.collection} record" + (f"'s {'.'.join(path.steps[:depth])}" if depth else "")
            return f"no {holder} has a field {name!r} (in {text!r}). Fix: " + _nearest(name, fields, "field")
        values = [node[name] for node in mappings if node.get(name) is not None]
        lists = [value for value in values if isinstance(value, list)]
        last = depth == len(path.steps) - 1
        if not last and lists and not step.endswith(LIST_STEP) and any(isinstance(i, Mapping) for v in lists for i in v):
            fixed = ".".join([*path.steps[:depth], name + LIST_STEP, *path.steps[depth + 1:]])
            return f"{name!r} holds a list of records, so {text!r} reaches no field. Fix: write '{path.collection}.{fixed}'"
        if step.endswith(LIST_STEP) and values and not lists:
            fixed = ".".join([*path.steps[:depth], name, *path.steps[depth + 1:]])
            return f"{name!r} is not a list, so '[]' in {text!r} walks nothing. Fix: write '{path.collection}.{fixed}'"
        nodes = [item for value in values for item in (value if isinstance(value, list) else [value])]
    return None


def _nearest(name: str, known: Iterable[str], kind: str) -> str:
    names = sorted(set(known))
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return (f"did you mean {close[0]!r}?" if close else f"use one of: {', '.join(names[:12])}") + f" (a {kind} of the data)"
