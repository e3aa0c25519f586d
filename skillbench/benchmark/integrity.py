"""Data integrity a benchmark must have before anything runs: valid, resolvable tool schemas and an
environment whose records point only at records that exist.

The loader stops at the first problem (one line: file, record, field, fix); the lint reports them all.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
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


@dataclass(frozen=True)
class DanglingReference:
    collection: str
    index: int  # position of the record in its collection
    field: str
    value: Any
    target: str  # the collection that should hold a record with that id

    def __str__(self) -> str:
        return (
            f"initial_state.{self.collection}.{self.index}.{self.field}' is {self.value!r}, but no "
            f"{self.target} record has {self.field} {self.value!r}"
        )


def dangling_references(state: Mapping[str, list[dict[str, Any]]], declared: Mapping[str, str] | None = None) -> list[DanglingReference]:
    """Records pointing at a record another collection of the same state does not hold.

    A reference is a field named like another collection's key (``customer_id`` in ``orders`` points at
    ``customers``, whose records all carry ``customer_id``), or one the manifest declares
    (``references: {orders.buyer_id: customers.customer_id}``). A collection absent from the state is
    not checked: a scenario may model only the collections its tools touch.
    """
    targets: dict[tuple[str | None, str], tuple[str, str]] = {}  # (collection or None, field) → (target, key)
    for collection, records in state.items():
        key = collection_key(collection)
        if records and all(isinstance(r, dict) and key in r for r in records):
            targets[(None, key)] = (collection, key)
    for source, target in (declared or {}).items():
        source_collection, _, source_field = source.partition(".")
        target_collection, _, target_field = target.partition(".")
        if target_collection in state:
            targets[(source_collection, source_field)] = (target_collection, target_field)
    if not targets:
        return []
    ids: dict[tuple[str, str], set[str]] = {}
    found: list[DanglingReference] = []
    for collection, records in state.items():
        for index, record in enumerate(records):
            for name, value in record.items():
                target = targets.get((collection, name)) or targets.get((None, name))
                if target is None or target[0] == collection or value is None:
                    continue
                known = ids.get(target)
                if known is None:
                    known = ids[target] = {str(r.get(target[1])) for r in state[target[0]] if isinstance(r, dict)}
                values = value if isinstance(value, list) else [value]
                for item in values:
                    if str(item) not in known:
                        found.append(DanglingReference(collection, index, name, item, target[0]))
    return found
