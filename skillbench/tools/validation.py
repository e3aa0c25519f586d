"""Argument checks against each tool's JSON Schema, with the error text a real API would return."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from jsonschema import SchemaError
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for

from skillbench.benchmark.schema import ToolSpec
from skillbench.core.errors import BenchmarkDataError, ToolError
from skillbench.tools.toolkit import SpecCache


def _compile(spec: ToolSpec) -> Validator:
    cls = validator_for(spec.input_schema)
    try:
        cls.check_schema(spec.input_schema)
    except SchemaError as exc:
        raise BenchmarkDataError(
            f"tool {spec.name}: field 'input_schema' is not a valid JSON Schema ({exc.message}). "
            f"Fix: correct the schema in tools/{spec.server}.yaml."
        ) from None
    return cls(spec.input_schema)


compiled_validator: SpecCache[Validator] = SpecCache(_compile)
"""The validator of a spec's input schema, compiled (and schema-checked) once per spec."""


def _where(path: Iterable[Any]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


class ArgumentValidator:
    """Checks call arguments for a set of tools; validators are built once, at construction."""

    def __init__(self, tools: Iterable[ToolSpec]) -> None:
        self._validators: dict[str, Validator] = {spec.name: compiled_validator(spec) for spec in tools}

    def check(self, name: str, arguments: Mapping[str, Any]) -> None:
        """Raise a ``validation`` :class:`ToolError` naming every problem; return None when valid."""
        validator = self._validators[name]
        problems: list[str] = []
        for error in validator.iter_errors(arguments):
            where = _where(error.absolute_path)
            problem = f"{where}: {error.message}" if where else error.message
            if problem not in problems:
                problems.append(problem)
        if problems:
            raise ToolError("validation", f"Invalid arguments for {name}: {'; '.join(problems)}")
