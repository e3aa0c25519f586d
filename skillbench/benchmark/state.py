"""The environment a scenario's mock tools act on, and the stateful semantics of every ``ToolEffect``.

The state is a dict of collections (``customers``, ``appointments`` ...) holding records (dicts).
Operations are deterministic and do no I/O: reads return copies, writes change the state in place,
so a lookup after an update sees the change. A failed operation raises :class:`ToolError`.

Matching (``effect.match``: record field → argument): a record matches when, for every argument
present in the call, ``str(record[field]) == str(argument)``. Arguments absent from the call are not
matched on, except by ``verify``, which needs all of them (a missing fact never verifies anyone).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from skillbench.benchmark.schema import Scenario, State, ToolEffect, ToolSpec
from skillbench.core.errors import BenchmarkCodeError, ToolError
from skillbench.core.guest import GuestRaised, GuestTimeout, call_async, call_sync
from skillbench.core.records import ToolCallRecord

Arguments = Mapping[str, Any]
CODE_TOOL_LIMIT_S = 30.0  # a code tool call's limit outside a run (loading, lint, replay); runs use mock.code_tool_limit_s


def clone(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars); several times faster than copy.deepcopy."""
    if isinstance(value, dict):
        return {key: clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clone(item) for item in value]
    return value


class EnvironmentState:
    """The mutable collections of one conversation's environment."""

    __slots__ = ("collections",)

    def __init__(self, collections: Mapping[str, list[dict[str, Any]]] | None = None) -> None:
        # Deep copy: the scenario (and a caller's dict) must never change under a conversation.
        self.collections: State = clone(dict(collections or {}))

    @classmethod
    def from_scenario(cls, scenario: Scenario) -> EnvironmentState:
        return cls(scenario.initial_state)

    def snapshot(self) -> State:
        """A deep copy of every collection (e.g. the final state of a rollout)."""
        return clone(self.collections)

    def view(self, names: Iterable[str] | None = None) -> State:
        """The named collections (all when ``names`` is empty), not copied: for rendering only."""
        wanted = [name for name in names or () if name in self.collections]
        if not wanted:
            return self.collections
        return {name: self.collections[name] for name in wanted}

    def apply(self, effect: ToolEffect, arguments: Arguments, *, new_id: str | None = None) -> dict[str, Any]:
        """Run ``effect`` with ``arguments``; returns the tool's result. ``new_id`` fixes a created id."""
        return OPERATIONS[effect.operation](self, effect, arguments, new_id)

    def apply_tool(self, tool: ToolSpec, arguments: Arguments, *, new_id: str | None = None,
                   limit_s: float = CODE_TOOL_LIMIT_S) -> dict[str, Any]:
        """Answer one call of ``tool``: its Python function (a code tool) or its declarative effect.

        A code tool runs on a worker thread under ``limit_s`` (:mod:`skillbench.core.guest`): a refusal
        (:class:`ToolError`) is the call's result; anything else it raises, or running past the limit, is the
        benchmark's own fault (:class:`BenchmarkCodeError`), never the agent's."""
        if tool.effect.operation != "code":
            return self.apply(tool.effect, arguments, new_id=new_id)
        call = self._code_call(tool, arguments)
        try:
            result = call_sync(self._run_code, *call, limit_s=limit_s, passthrough=(ToolError,))
        except (GuestRaised, GuestTimeout) as exc:
            raise _code_fault(tool, exc) from None
        return _as_result(result)

    async def apply_tool_async(self, tool: ToolSpec, arguments: Arguments, *, limit_s: float = CODE_TOOL_LIMIT_S
                               ) -> dict[str, Any]:
        """:meth:`apply_tool` for the mock's event loop: a code tool's thread never blocks other conversations."""
        if tool.effect.operation != "code":
            return self.apply(tool.effect, arguments)
        call = self._code_call(tool, arguments)
        try:
            result = await call_async(self._run_code, *call, limit_s=limit_s, passthrough=(ToolError,))
        except (GuestRaised, GuestTimeout) as exc:
            raise _code_fault(tool, exc) from None
        return _as_result(result)

    def _code_call(self, tool: ToolSpec, arguments: Arguments) -> tuple[Callable[..., Any], inspect.BoundArguments]:
        function = tool.implementation
        if function is None:
            raise ToolError("infra", f"the code tool {tool.name} has no implementation loaded")
        try:
            return function, inspect.signature(function).bind(self, **arguments)
        except TypeError as exc:
            raise ToolError("validation", f"Invalid arguments for {tool.name}: {exc}") from None

    def _run_code(self, function: Callable[..., Any], bound: inspect.BoundArguments) -> Any:
        before = clone(self.collections)  # a refused or failed call leaves the state as it was
        try:
            return function(*bound.args, **bound.kwargs)
        except BaseException:
            self.collections.clear()
            self.collections.update(before)
            raise

    # -- helpers for code tools (skillbench.benchmark.tool_code) -------------------------------

    def table(self, collection: str) -> list[dict[str, Any]]:
        """The records of ``collection`` (created empty if absent), to read or change in place."""
        return self.collections.setdefault(collection, [])

    def find(self, collection: str, **fields: Any) -> list[dict[str, Any]]:
        """Records of ``collection`` whose fields equal ``fields`` (compared as strings, like ``match``)."""
        return [r for r in self.collections.get(collection, []) if all(k in r and field_matches(r[k], v) for k, v in fields.items())]

    def one(self, collection: str, **fields: Any) -> dict[str, Any]:
        """The single record matching ``fields``, else a ``not_found`` tool error naming the key."""
        found = self.find(collection, **fields)
        if len(found) == 1:
            return found[0]
        keys = ", ".join(f"{k}={v!r}" for k, v in fields.items()) or "(no key given)"
        if not found:
            raise ToolError("not_found", f"Not found: no {collection} record matches {keys}.")
        raise ToolError("not_found", f"Ambiguous: {len(found)} {collection} records match {keys}; give a more specific key.")

    def insert(self, collection: str, record: dict[str, Any]) -> dict[str, Any]:
        """Append ``record`` to ``collection``; returns it."""
        self.table(collection).append(record)
        return record

    def next_id(self, collection: str, id_field: str, prefix: str) -> str:
        """``<prefix>-<n>``: n one past the collection's size, skipping ids already taken (as ``create`` does)."""
        return _fresh_id(self.collections.get(collection, []), id_field, prefix)

    # -- helpers shared by the operations ------------------------------------------------------

    def records(self, effect: ToolEffect, *, create: bool = False) -> list[dict[str, Any]]:
        if effect.collection is None:
            raise ToolError("infra", f"the mock of this tool has no collection for operation {effect.operation!r}")
        if create:
            return self.collections.setdefault(effect.collection, [])
        return self.collections.get(effect.collection, [])

    def matching(self, effect: ToolEffect, arguments: Arguments) -> list[dict[str, Any]]:
        pairs = [(field, arguments[arg]) for field, arg in effect.match.items() if arg in arguments]
        return [record for record in self.records(effect) if all(field in record and field_matches(record[field], value)
                                                                 for field, value in pairs)]

    def the_one(self, effect: ToolEffect, arguments: Arguments) -> dict[str, Any]:
        """The single matching record, or a not-found error (none, or more than one)."""
        found = self.matching(effect, arguments)
        if len(found) == 1:
            return found[0]
        keys = _describe_keys(effect, arguments)
        if not found:
            raise ToolError("not_found", f"Not found: no {effect.collection} record matches {keys}.")
        raise ToolError(
            "not_found", f"Ambiguous: {len(found)} {effect.collection} records match {keys}; give a more specific key."
        )


def _as_result(result: Any) -> dict[str, Any]:
    if isinstance(result, BaseModel):
        result = result.model_dump(mode="json")
    return result if isinstance(result, dict) else {"result": result}


def _code_fault(tool: ToolSpec, exc: GuestRaised | GuestTimeout) -> BenchmarkCodeError:
    """A code tool's own failure, named by tool, exception and place (its traceback kept)."""
    if isinstance(exc, GuestTimeout):
        return BenchmarkCodeError(f"code tool {tool.name} {exc} (mock.code_tool_limit_s)")
    return BenchmarkCodeError(f"code tool {tool.name} raised {exc.fault.line()}", traceback=exc.fault.traceback)


def field_matches(stored: Any, given: Any) -> bool:
    """Whether a record's field matches a call's value: scalars compare as strings; a list field matches a
    scalar it holds (orders whose item_ids include 'T-104') or a list of the same items in any order."""
    if isinstance(stored, list):
        if isinstance(given, list):
            return sorted(map(str, stored)) == sorted(map(str, given))
        return str(given) in map(str, stored)
    if isinstance(given, list):
        return False
    return str(stored) == str(given)


def _describe_keys(effect: ToolEffect, arguments: Arguments) -> str:
    given = [f"{arg}={arguments[arg]!r}" for arg in effect.match.values() if arg in arguments]
    return ", ".join(given) or "(no key given)"


def _written_fields(effect: ToolEffect, arguments: Arguments) -> dict[str, Any]:
    fields = {field: arguments[arg] for field, arg in effect.set.items() if arg in arguments}
    fields.update(clone(effect.set_const))
    return fields


def _lookup(state: EnvironmentState, effect: ToolEffect, arguments: Arguments, _new_id: str | None) -> dict[str, Any]:
    found = clone(state.matching(effect, arguments))
    return {"records": found, "count": len(found)}


def _get(state: EnvironmentState, effect: ToolEffect, arguments: Arguments, _new_id: str | None) -> dict[str, Any]:
    return clone(state.the_one(effect, arguments))


def _verify(state: EnvironmentState, effect: ToolEffect, arguments: Arguments, _new_id: str | None) -> dict[str, Any]:
    if not effect.match or any(arg not in arguments for arg in effect.match.values()):
        return {"verified": False}
    found = state.matching(effect, arguments)
    if not found:
        return {"verified": False}
    record = found[0]
    return {"verified": True, **{field: clone(record[field]) for field in effect.returns if field in record}}


def _fresh_id(records: list[dict[str, Any]], id_field: str, prefix: str) -> str:
    # <prefix>-<n> with n one past the collection size, skipping ids the scenario already uses.
    taken = {str(record.get(id_field)) for record in records}
    number = len(records) + 1
    while f"{prefix}-{number}" in taken:
        number += 1
    return f"{prefix}-{number}"


def _create(state: EnvironmentState, effect: ToolEffect, arguments: Arguments, new_id: str | None) -> dict[str, Any]:
    records = state.records(effect, create=True)
    record: dict[str, Any] = {}
    if effect.id_field:
        record[effect.id_field] = new_id or _fresh_id(records, effect.id_field, effect.id_prefix)
    record.update(_written_fields(effect, arguments))
    records.append(record)
    return clone(record)


def _update(state: EnvironmentState, effect: ToolEffect, arguments: Arguments, _new_id: str | None) -> dict[str, Any]:
    record = state.the_one(effect, arguments)
    record.update(_written_fields(effect, arguments))
    return clone(record)


def _delete(state: EnvironmentState, effect: ToolEffect, arguments: Arguments, _new_id: str | None) -> dict[str, Any]:
    record = state.the_one(effect, arguments)
    records = state.records(effect)
    del records[next(index for index, item in enumerate(records) if item is record)]
    return {"deleted": True, "record": record}


def _action(state: EnvironmentState, effect: ToolEffect, arguments: Arguments, _new_id: str | None) -> dict[str, Any]:
    result = clone(effect.result)
    if effect.collection is not None:
        state.records(effect, create=True).append({**clone(dict(arguments)), **clone(effect.result)})
    result.update({name: clone(arguments[name]) for name in effect.returns if name in arguments})
    return result


Operation = Callable[[EnvironmentState, ToolEffect, Arguments, str | None], dict[str, Any]]

# ToolEffect.operation → its implementation (dispatch by data, never by if/else on names).
OPERATIONS: dict[str, Operation] = {
    "lookup": _lookup,
    "get": _get,
    "verify": _verify,
    "create": _create,
    "update": _update,
    "delete": _delete,
    "action": _action,
}


def replay(initial_state: Mapping[str, list[dict[str, Any]]], tools: Mapping[str, ToolSpec],
           calls: Iterable[ToolCallRecord]) -> State:
    """The state a call log leaves: each successful call applied in order to ``initial_state``, as the stateful
    mock applied it (a created record keeps the id its logged result reports). Failed and control calls change
    nothing. Raises :class:`ToolError` naming the call when a logged success cannot happen on that state (no
    record to update, a tool outside ``tools``): the log then does not describe this environment."""
    state = EnvironmentState(initial_state)
    for call in calls:
        if call.control or call.is_error:
            continue
        spec = tools.get(call.name)
        if spec is None:
            raise ToolError("infra", f"{call.name} ({call.call_id}) is not a tool of this toolkit: its effect is unknown")
        try:
            state.apply_tool(spec, call.arguments, new_id=_logged_id(spec.effect, call.result))
        except BenchmarkCodeError as exc:
            raise ToolError("benchmark", f"{call.name} ({call.call_id}): {exc}") from None
        except ToolError as exc:
            raise ToolError(exc.kind, f"{call.name} ({call.call_id}) succeeded in the log, but on this state: {exc}") from None
    return state.snapshot()


def created_id(effect: ToolEffect, result: Mapping[str, Any]) -> str | None:
    """The id a tool's result reports for the record its call creates (the llm mock chooses its own), else None."""
    value = result.get(effect.id_field) if effect.id_field else None
    return value if isinstance(value, str) else None


def _logged_id(effect: ToolEffect, result: str) -> str | None:
    """:func:`created_id` of a create call's logged result text."""
    if effect.operation != "create" or not effect.id_field:
        return None
    try:
        data = json.loads(result)
    except ValueError:
        return None
    return created_id(effect, data) if isinstance(data, dict) else None


def replay_actions(initial_state: Mapping[str, list[dict[str, Any]]], tools: Mapping[str, ToolSpec],
                   actions: Iterable[tuple[str, Mapping[str, Any]]], refused: Sequence[str | None] = ()) -> State:
    """The state ``actions`` ((tool, arguments) in order) leave on ``initial_state``, through the same tool
    implementations the mock serves. ``refused``: per action, the error kind it is expected to be refused with
    (None or absent: it must succeed); such a refusal changes nothing. Raises :class:`ToolError` naming the action
    (1-based) that cannot happen, or that was expected to be refused and was not (or was refused another way)."""
    state = EnvironmentState(initial_state)
    for number, (name, arguments) in enumerate(actions, start=1):
        spec = tools.get(name)
        expected = refused[number - 1] if number <= len(refused) else None
        if spec is None:
            raise ToolError("unknown_tool", f"action {number}: {name} is not a tool of the catalogue")
        try:
            state.apply_tool(spec, dict(arguments))
        except ToolError as exc:
            if exc.kind == expected:
                continue
            also = f" (expected to be refused as {expected}, not {exc.kind})" if expected else ""
            raise ToolError(exc.kind, f"action {number} ({name}): {exc.message}{also}") from None
        except BenchmarkCodeError as exc:
            raise BenchmarkCodeError(f"action {number} ({name}): {exc}", traceback=exc.traceback) from None
        if expected:
            raise ToolError("precondition", f"action {number} ({name}) is expected to be refused ({expected}) but succeeds")
    return state.snapshot()
