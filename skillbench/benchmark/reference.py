"""The reference conversation: a skill's workflow run step by step against a scenario's state.

It fills every tool argument the way the contract says an agent can: from a caller fact that an
earlier (or the current) step asked for, or from a field of a record an earlier tool returned. It
answers each call with the stateful mock itself (:mod:`skillbench.benchmark.state`), so scenario data
and the runtime environment cannot drift apart. The generator uses it to derive ``target_state``;
``skillbench benchmark lint`` uses it to prove every scenario solvable.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from referencing.exceptions import Unresolvable

from skillbench.benchmark.schema import (
    Skill,
    State,
    StateExpectation,
    StepAlternative,
    ToolSpec,
    WorkflowStep,
)
from skillbench.benchmark.state import EnvironmentState
from skillbench.core.errors import BenchmarkCodeError, ToolError


@dataclass
class Change:
    """One write the reference conversation made."""

    tool: str
    operation: str  # create | update | delete
    collection: str
    match: dict[str, Any]  # fields that identify the record
    written: dict[str, Any] = field(default_factory=dict)  # fields set (update/create)
    before: dict[str, Any] = field(default_factory=dict)  # their previous values (update; absent fields omitted)


@dataclass
class Trace:
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    verified: bool | None = None  # result of the last verify call (None: no verify step ran)
    stopped_at: str | None = None  # tool before which the run stopped on purpose
    state: State = field(default_factory=dict)
    options: dict[str, list[str]] = field(default_factory=dict)  # collected fact → the values offered for it


@dataclass(frozen=True)
class Hints:
    """What tells an agent which of several returned records the caller means.

    A record is chosen when it alone holds a distinguishing value (one the other returned records do
    not share) that the caller's facts name, else that shares most words with what the caller says
    (objective, instructions), else that the success criteria, else the target state, name.
    """

    facts: frozenset[str] = frozenset()
    text: str = ""
    targets: frozenset[str] = frozenset()
    criteria: str = ""

    def choose(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if len(records) < 2:
            return records
        flat = [{str(v) for v in r.values() if not isinstance(v, dict | list)} for r in records]
        shared = set.intersection(*flat)
        distinct = [values - shared for values in flat]
        words = set(_WORD.findall(self.text.lower()))
        criteria = self.criteria.lower()

        def said(d: set[str]) -> int:  # how many of the record's own words the caller used
            return len({w for v in d for w in _WORD.findall(v.lower())} & words)

        tests = (
            lambda d: len(d & self.facts),
            said,
            lambda d: sum(1 for v in d if len(v) >= 3 and v.lower() in criteria),
            lambda d: len(d & self.targets),
        )
        for test in tests:
            scores = [test(d) for d in distinct]
            best = max(scores)
            if best and scores.count(best) == 1:
                return [records[scores.index(best)]]
        return records


_WORD = re.compile(r"[a-z][a-z]{3,}")


class _Known:
    """Values the agent has seen in tool results, by field name, in order of appearance."""

    def __init__(self, hints: Hints | None = None) -> None:
        self.values: dict[str, list[Any]] = {}
        self.hints = hints or Hints()

    def add(self, result: Any) -> None:
        if isinstance(result, Mapping):
            for key, value in result.items():
                if key == "records" and isinstance(value, list):
                    for record in self.hints.choose(value):
                        self.add(record)
                elif key == "record" and isinstance(value, Mapping):
                    self.add(value)
                elif not isinstance(value, Mapping | list):
                    seen = self.values.setdefault(key, [])
                    if value not in seen:
                        seen.append(value)

    def distinct(self, name: str) -> list[Any]:
        return self.values.get(name, [])


_VALIDATORS: dict[int, tuple[ToolSpec, Draft202012Validator]] = {}


def _validator(tool: ToolSpec) -> Draft202012Validator:
    # Keyed by identity (tools are frozen models with dict fields, so not hashable); the tool is kept
    # alongside so its id cannot be reused while cached.
    entry = _VALIDATORS.get(id(tool))
    if entry is None or entry[0] is not tool:
        entry = _VALIDATORS[id(tool)] = (tool, Draft202012Validator(tool.input_schema))
    return entry[1]


def apply_effect(tool: ToolSpec, env: EnvironmentState, args: Mapping[str, Any]) -> tuple[dict[str, Any] | None, Change | None, str | None]:
    """Answer one call with the stateful mock (:mod:`skillbench.benchmark.state`): (result, change, error).

    The mock changes ``env``; the :class:`Change` records what it wrote, for the target state.
    """
    effect = tool.effect
    op = effect.operation
    change: Change | None = None
    try:
        if op in {"create", "update", "delete"}:
            written = {name: args[arg] for name, arg in effect.set.items() if arg in args}
            written.update(copy.deepcopy(effect.set_const))
            if op == "create":
                match = {name: args[arg] for name, arg in effect.set.items() if arg in args}
                change = Change(tool.name, op, effect.collection or "", match, written)
            else:
                record = env.the_one(effect, args)  # before the write: its key and the values it replaces
                match = {name: record.get(name) for name in effect.match}
                if op == "delete":
                    change = Change(tool.name, op, effect.collection or "", match)
                else:
                    before = {name: copy.deepcopy(record[name]) for name in written if name in record}
                    change = Change(tool.name, op, effect.collection or "", match, written, before)
        result = env.apply_tool(tool, args)
    except ToolError as exc:
        return None, None, f"{tool.name}: {exc.message}"
    except BenchmarkCodeError as exc:  # the domain's own code failed on the reference conversation's call
        return None, None, f"{tool.name}: the benchmark's own code failed: {exc}"
    return result, change, None


def run_reference(
    skill: Skill,
    tools: Mapping[str, ToolSpec],
    *,
    user_facts: Mapping[str, Any],
    withheld: Collection[str] = (),
    initial_state: State,
    include: Collection[str] = (),
    skip: Collection[str] = (),
    stop_before: str | None = None,
    until_last_of: Collection[str] | None = None,
    validate: bool = True,
    hints: Hints | None = None,
    requests: Sequence[Mapping[str, Any]] = (),
) -> Trace:
    """Run the skill's steps in order against a copy of ``initial_state``.

    ``include``: tools whose optional steps run too; ``skip``: tools never called (forbidden ones);
    ``stop_before``: stop when this tool is reached (it keeps failing); ``until_last_of``: stop after
    the last step using one of these tools (a conversation that ends early, e.g. on a transfer);
    ``validate``: check each call's arguments against the tool's JSON Schema; ``hints``: how to tell
    which of several returned records the caller means (see :class:`Hints`); ``requests``: the facts of
    each of several requests (a multi-request scenario): the steps run once per request on the same
    state, verification only on the first. A step with alternatives takes the first way whose facts the
    caller has.
    """
    env = EnvironmentState(initial_state)  # a deep copy: the scenario's state never changes
    trace = Trace(state=env.collections)
    steps = [s for s in skill.steps if s.required or set(s.all_tools()) & set(include)]
    if until_last_of is not None:
        last = max((i for i, s in enumerate(steps) if set(s.all_tools()) & set(until_last_of)), default=-1)
        steps = steps[: last + 1]
    passes = [{**user_facts, **facts} for facts in requests] or [dict(user_facts)]
    identity: list[Any] = []  # results of the verify step: they hold for every request of the call
    for number, facts in enumerate(passes):
        known = _Known(hints)
        for result in identity:
            known.add(result)
        asked: set[str] = set()
        listed: list[list[dict[str, Any]]] = []  # records of each lookup so far (the options a caller may pick from)
        for step in steps:
            if number and step.kind == "verify":
                continue  # the caller is verified once per conversation
            way = _choose_way(step, facts, withheld)
            for fact in way.collects:
                offered = _offered(fact, listed)
                if offered is not None:
                    trace.options[fact] = offered
                    if fact in facts and str(facts[fact]) not in offered:
                        trace.problems.append(
                            f"step '{step.id}' asks for {fact!r}, which an earlier lookup offers as a choice among {offered[:4]}, "
                            f"but the caller's value {facts[fact]!r} is not one of them; rename the fact or fix the state"
                        )
                if fact in facts and fact not in withheld:
                    asked.add(fact)
                elif not known.distinct(fact):
                    trace.problems.append(
                        f"step '{step.id}' asks for {fact!r}, which the caller does not have and no earlier tool returns"
                    )
            for name in way.tools:
                if name in skip:
                    continue
                if name == stop_before:
                    trace.stopped_at = name
                    return trace
                tool = tools.get(name)
                if tool is None:
                    trace.problems.append(f"step '{step.id}' uses unknown tool {name!r}")
                    continue
                args = _arguments(tool, step.id, facts, asked, known, trace.problems)
                if args is None:
                    continue
                try:
                    errors = sorted(e.message for e in _validator(tool).iter_errors(args)) if validate else []
                except Unresolvable as exc:  # a broken $ref: the catalogue check names it; the call cannot be checked
                    errors = [f"its schema does not resolve ({exc})"]
                if errors:
                    trace.problems.append(f"{name} (step '{step.id}'): arguments {args} fail its schema: {errors[0]}")
                result, change, error = apply_effect(tool, env, args)
                trace.calls.append((name, args))
                if error:
                    trace.problems.append(f"{error} (step '{step.id}')")
                    continue
                known.add(result)
                if step.kind == "verify":
                    identity.append(result)
                if tool.effect.operation == "lookup" and result and result.get("records"):
                    listed.append(result["records"])
                if change:
                    trace.changes.append(change)
                if tool.effect.operation == "verify" or (step.kind == "verify" and tool.effect.operation == "code"):
                    trace.verified = bool(result and result.get("verified"))
                    if not trace.verified:
                        return trace  # an unverified caller gets nothing further
    return trace


def _choose_way(step: WorkflowStep, facts: Mapping[str, Any], withheld: Collection[str]) -> StepAlternative:
    """The way through a step the caller's facts allow: the first whose collected facts the caller has."""
    ways = step.ways() or [StepAlternative.model_construct(tools=[], collects=step.collects)]
    for way in ways:
        if all(fact in facts and fact not in withheld for fact in way.collects):
            return way
    return ways[0]


def _offered(fact: str, listed: list[list[dict[str, Any]]]) -> list[str] | None:
    """Values a collected fact is chosen from under the shared-name convention, if any.

    ``new_start_time`` is picked among the ``start_time`` values of the latest lookup whose records
    carry that field (a field named like the fact, or like its last words).
    """
    for records in reversed(listed):
        names = [name for name in records[0] if name == fact or fact.endswith("_" + name)]
        if names:
            name = max(names, key=len)
            return [str(r[name]) for r in records if name in r]
    return None


def _arguments(
    tool: ToolSpec,
    step_id: str,
    facts: Mapping[str, Any],
    asked: set[str],
    known: _Known,
    problems: list[str],
) -> dict[str, Any] | None:
    schema = tool.input_schema
    properties: dict[str, Any] = schema.get("properties", {})
    args: dict[str, Any] = {}
    missing = False
    for name in properties:
        required = name in schema.get("required", [])
        values = known.distinct(name)
        if name in asked:
            args[name] = facts[name]
            if any(str(v) != str(facts[name]) for v in values):
                # An agent filling by name would see two sources that disagree (e.g. old and new value).
                problems.append(
                    f"{tool.name} (step '{step_id}'): argument {name!r} is both the caller's fact and a field of earlier "
                    f"results with other values {values[:3]}; give the new value its own name (e.g. 'new_{name}')"
                )
            continue
        if len(values) == 1:
            args[name] = values[0]
        elif len(values) > 1:
            if required:
                problems.append(
                    f"{tool.name} (step '{step_id}'): argument {name!r} is ambiguous: earlier results give {values[:4]}"
                )
                args[name] = values[0]
        elif not required:
            continue
        elif name in facts:
            problems.append(f"{tool.name} (step '{step_id}'): argument {name!r} is a caller fact no step up to here asks for")
            args[name] = facts[name]
        elif "enum" in properties[name] or "const" in properties[name] or "default" in properties[name]:
            spec = properties[name]
            args[name] = spec.get("const", spec.get("default", (spec.get("enum") or [None])[0]))
        else:
            problems.append(
                f"{tool.name} (step '{step_id}'): required argument {name!r} is neither a caller fact nor a field "
                f"returned by an earlier tool"
            )
            missing = True
    return None if missing else args


# -- target state -------------------------------------------------------------------------------------


def completed_targets(changes: Sequence[Change]) -> list[StateExpectation]:
    """What a completed conversation leaves behind: the writes, as record conditions."""
    out: list[StateExpectation] = []
    for change in changes:
        if change.operation == "delete":
            out.append(StateExpectation(collection=change.collection, match=change.match, absent=True))
        elif change.operation == "create":
            expect = {k: v for k, v in change.written.items() if k not in change.match}
            out.append(StateExpectation(collection=change.collection, match=change.match, expect=expect))
        else:
            out.append(StateExpectation(collection=change.collection, match=change.match, expect=change.written))
    return merge_targets(out)


def untouched_targets(changes: Sequence[Change], initial_state: State | None = None) -> list[StateExpectation]:
    """The same records as they were: what a refused, failed or transferred conversation must leave."""
    out: list[StateExpectation] = []
    for change in changes:
        if change.operation == "create":
            # Nothing created for the record it would hang off (its *_id links), whatever the details;
            # the full match when records with those links already exist (e.g. a second account).
            links = {k: v for k, v in change.match.items() if k.endswith("_id")} or change.match
            target = StateExpectation(collection=change.collection, match=links, absent=True)
            if initial_state is not None and not holds(initial_state, target):
                target = StateExpectation(collection=change.collection, match=change.match, absent=True)
            out.append(target)
        elif change.operation == "delete":
            out.append(StateExpectation(collection=change.collection, match=change.match))
        elif change.before:
            out.append(StateExpectation(collection=change.collection, match=change.match, expect=change.before))
    return merge_targets(out)


def merge_targets(items: list[StateExpectation]) -> list[StateExpectation]:
    merged: dict[tuple[str, str, bool], StateExpectation] = {}
    for item in items:
        key = (item.collection, repr(sorted(item.match.items())), item.absent)
        if key in merged:
            first = merged[key]
            item = StateExpectation(
                collection=first.collection, match=first.match, expect={**first.expect, **item.expect}, absent=first.absent
            )
        merged[key] = item
    return list(merged.values())


def holds(state: State, expectation: StateExpectation) -> bool:
    """Whether ``state`` meets one target condition."""
    return expectation.is_met(state)
