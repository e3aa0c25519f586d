"""The tool notation of ``servers.yaml`` → catalogue :class:`ToolSpec` records.

Every argument has one JSON Schema, defined once in ``domains/_shared/arguments.yaml``, so
``customer_id`` means the same in all 280+ tools and the offline agents can fill it by name.
Free-text arguments (message, note ...) are always optional: nothing in the environment supplies
them, so a required one could never be checked for solvability.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillbench.benchmark.generator.model import ArgumentsFile, EffectDef, ToolDef
from skillbench.benchmark.schema import ToolEffect, ToolSpec


def argument_schemas(file: ArgumentsFile) -> dict[str, dict[str, Any]]:
    """Argument name → JSON Schema; a plain description is a string argument."""
    return {name: {"type": "string", "description": value} if isinstance(value, str) else dict(value)
            for name, value in file.arguments.items()}


# -- effects -----------------------------------------------------------------------------------------


def _pairs(spec: str) -> dict[str, str]:
    """``"field=arg other"`` → ``{"field": "arg", "other": "other"}``."""
    pairs: dict[str, str] = {}
    for token in spec.split():
        field_name, _, arg = token.partition("=")
        pairs[field_name] = arg or field_name
    return pairs


def effect(defn: EffectDef) -> ToolEffect:
    """The notation's effect as the mock's record: ``match``/``set`` strings become field → argument maps."""
    returns = defn.returns if defn.returns is not None else ("customer_id full_name" if defn.kind == "verify" else "")
    return ToolEffect(operation=defn.kind, collection=defn.collection, match=_pairs(defn.match), set=_pairs(defn.set),
                      set_const=defn.set_const, id_field=defn.id_field, id_prefix=defn.prefix or "ID",
                      returns=returns.split(), result=defn.result)


def tool_spec(defn: ToolDef, args: Mapping[str, dict[str, Any]]) -> ToolSpec:
    """A tool from ``params`` like ``"invoice_id ?reason"`` (``?`` = optional); reads/writes follow the effect."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for token in defn.params.split():
        arg = token.lstrip("?")
        if arg not in args:  # the loader reports it with file and field first; this guards other callers
            raise KeyError(f"tool {defn.name}: argument {arg!r} has no schema in _shared/arguments.yaml")
        properties[arg] = dict(args[arg])
        if not token.startswith("?"):
            required.append(arg)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    mock = effect(defn.effect)
    collection = [mock.collection] if mock.collection else []
    reads = collection if mock.operation in {"lookup", "get", "verify", "update", "delete"} else []
    writes = collection if mock.operation in {"create", "update", "delete", "action"} else []
    return ToolSpec(name=defn.name, description=defn.description, input_schema=schema, effect=mock, reads=reads, writes=writes)
