"""Tools as code: a domain's ``tools/<server>.py`` holds Python functions the mock serves as tools.

Where a declarative ``effect`` cannot say it (cancel only while pending, refund = the sum of the
returned items' prices), a tool is a function::

    from skillbench.benchmark.tool_code import Environment, ToolRefused, tool

    @tool(writes=["orders"])
    def cancel_order(env: Environment, order_id: str) -> dict:
        \"\"\"Cancel an order that has not shipped.\"\"\"
        order = env.one("orders", order_id=order_id)
        if order["status"] != "pending":
            raise ToolRefused(f"Order {order_id} is {order['status']}; only pending orders can be cancelled.")
        order["status"] = "cancelled"
        return order

The tool's name is ``<server>.<function name>`` (the file's stem is the server); its description is the
docstring; its JSON Schema is derived from the signature (types, defaults, ``Annotated[..., Field(...)]``
descriptions) unless ``input_schema=`` is given. The function receives the conversation's environment
and the validated arguments, changes the environment in place and returns the result (a dict). Raising
:class:`ToolRefused` returns a failed call (error kind ``precondition``); a call that raises leaves the
environment exactly as it was. The same function answers the MCP server, the reference
conversation, the lint and the gold-action replay, and the module's text is part of the benchmark
version and of every rollout key of its tools, so changing a tool invalidates stored rollouts.

A module may also type the environment: ``COLLECTIONS = {"orders": Order}`` (pydantic models): every
``initial_state`` record of those collections is validated at load (file, record and field named).
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from skillbench.benchmark.schema import ToolEffect, ToolSpec
from skillbench.benchmark.state import EnvironmentState
from skillbench.core.errors import BenchmarkDataError, ToolError

Environment = EnvironmentState
"""What a code tool receives: the conversation's collections, with find/one/insert/next_id helpers."""

TOOL_ATTRIBUTE = "__skillbench_tool__"


class ToolRefused(ToolError):
    """A business rule forbids the call: the agent gets a failed call (kind ``precondition``)."""

    def __init__(self, message: str) -> None:
        super().__init__("precondition", message)


@dataclass(frozen=True)
class CodeTool:
    """A function registered with :func:`tool`, before it is bound to a server."""

    function: Callable[..., Any]
    name: str
    description: str
    input_schema: dict[str, Any]
    reads: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)


def tool(
    name: str | None = None,
    *,
    description: str | None = None,
    input_schema: Mapping[str, Any] | None = None,
    reads: list[str] | None = None,
    writes: list[str] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a function of a ``tools/<server>.py`` module as the tool ``<server>.<name or function name>``."""

    def decorator(function: Callable[..., Any]) -> Callable[..., Any]:
        schema = dict(input_schema) if input_schema is not None else signature_schema(function)
        text = description if description is not None else inspect.getdoc(function) or ""
        setattr(function, TOOL_ATTRIBUTE, CodeTool(
            function=function, name=name or function.__name__, description=text, input_schema=schema,
            reads=list(reads or []), writes=list(writes or []),
        ))
        return function

    return decorator


def signature_schema(function: Callable[..., Any]) -> dict[str, Any]:
    """The JSON Schema (type object) of a tool function's arguments: every parameter after the environment."""
    parameters = list(inspect.signature(function).parameters.values())[1:]
    hints = get_type_hints(function, include_extras=True)
    fields: dict[str, Any] = {}
    for parameter in parameters:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(f"tool {function.__name__}: *args/**kwargs cannot be described; name every argument")
        annotation = hints.get(parameter.name, Any)
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (annotation, default)
    model = create_model(f"{function.__name__}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
    schema = model.model_json_schema()
    return _without_titles(schema)


def _without_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without_titles(v) for k, v in node.items() if k != "title" or not isinstance(v, str)}
    if isinstance(node, list):
        return [_without_titles(item) for item in node]
    return node


@dataclass
class ToolModule:
    """What one ``tools/<server>.py`` declares."""

    path: Path
    text: str
    tools: list[CodeTool]
    collections: dict[str, type[BaseModel]]

    @property
    def version(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]


def load_tool_module(path: Path, text: str) -> ToolModule:
    """Import ``tools/<server>.py`` under a name unique to its content; a failure is a one-line data error."""
    digest = hashlib.sha256(f"{path}\0{text}".encode()).hexdigest()[:12]
    module_name = f"skillbench_domain_tools.{path.stem}_{digest}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise BenchmarkDataError(f"{path}: cannot be imported as a Python module. Fix: name it <server>.py.")
        module = importlib.util.module_from_spec(spec)
        # In sys.modules while it runs (as an import would be): pydantic resolves the annotations of the
        # module's models (Annotated[...] fields under `from __future__ import annotations`) through it.
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # the domain's own code: say where it broke, in one line
            del sys.modules[module_name]
            raise BenchmarkDataError(
                f"{path}: importing it failed ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}). "
                f"Fix: correct the module."
            ) from None
    tools = [value.__dict__[TOOL_ATTRIBUTE] for value in vars(module).values()
             if callable(value) and TOOL_ATTRIBUTE in getattr(value, "__dict__", {})]
    collections = getattr(module, "COLLECTIONS", {}) or {}
    if not isinstance(collections, dict) or not all(
        isinstance(model, type) and issubclass(model, BaseModel) for model in collections.values()
    ):
        raise BenchmarkDataError(f"{path}: COLLECTIONS must map collection names to pydantic models. Fix: correct it.")
    return ToolModule(path=path, text=text, tools=tools, collections=dict(collections))


def code_tool_specs(module: ToolModule) -> list[ToolSpec]:
    """The module's tools as catalogue entries, each bound to its function and stamped with the module's version."""
    server = module.path.stem
    specs: list[ToolSpec] = []
    for code in module.tools:
        name = code.name if "." in code.name else f"{server}.{code.name}"
        try:
            spec = ToolSpec(
                name=name, description=code.description, input_schema=code.input_schema,
                effect=ToolEffect(operation="code"), reads=code.reads, writes=code.writes, code_version=module.version,
            )
        except ValidationError as exc:
            raise BenchmarkDataError(
                f"{module.path}: tool {name}: {exc.errors()[0]['msg']}. Fix: correct the @tool declaration."
            ) from None
        spec._implementation = code.function
        specs.append(spec)
    return specs
