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

from skillbench.benchmark.gold import arguments_match
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


# The lint convention a domain may waive where its API updates a field under its own name ('cabin', not
# 'new_cabin'): a collected fact named like a field of an earlier result is the new value, not a choice.
NEW_VALUE_OWN_NAME = "new_value_own_name"


@dataclass(frozen=True)
class Convention:
    """A problem under a waivable lint convention, with the scopes a waiver may name (``<rule>:<scope>``)."""

    rule: str
    message: str
    scopes: tuple[str, ...] = ()  # e.g. ('cabin', 'desk.change_cabin.cabin'): the argument, or one tool's


def _scopes(fact: str, tools: Sequence[ToolSpec]) -> tuple[str, ...]:
    """The waiver scopes of a collected fact: its name, and each toolkit tool's argument of that name."""
    return (fact, *(f"{tool.name}.{fact}" for tool in tools if fact in tool.input_schema.get("properties", {})))


@dataclass
class Trace:
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    conventions: list[Convention] = field(default_factory=list)  # problems a benchmark may waive (lint_waivers)
    verified: bool | None = None  # result of the last verify call (None: no verify step ran)
    stopped_at: str | None = None  # tool before which the run stopped on purpose
    state: State = field(default_factory=dict)
    options: dict[str, list[str]] = field(default_factory=dict)  # collected fact → the values offered for it
    refused: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # calls refused as a gold action expects


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
        self.latest: dict[str, Any] = {}  # field → the value the latest result gave it (what a way's 'when' reads)
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
                    self.latest[key] = value
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


def apply_effect(tool: ToolSpec, env: EnvironmentState, args: Mapping[str, Any]) -> tuple[dict[str, Any] | None, Change | None, ToolError | None]:
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
        return None, None, exc
    except BenchmarkCodeError as exc:  # the domain's own code failed on the reference conversation's call
        return None, None, ToolError("benchmark", f"the benchmark's own code failed: {exc}")
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
    expected_refusals: Sequence[tuple[str, Mapping[str, Any], str]] = (),
) -> Trace:
    """Run the skill's steps in order against a copy of ``initial_state``.

    ``include``: tools whose optional steps run too; ``skip``: tools never called (forbidden ones);
    ``stop_before``: stop when this tool is reached (it keeps failing); ``until_last_of``: stop after
    the last step using one of these tools (a conversation that ends early, e.g. on a transfer);
    ``validate``: check each call's arguments against the tool's JSON Schema; ``hints``: how to tell
    which of several returned records the caller means (see :class:`Hints`); ``requests``: the facts of
    each of several requests (a multi-request scenario): the steps run once per request on the same
    state, verification only on the first; ``expected_refusals``: (tool, arguments, error kind) of gold
    actions expected to be refused: such a refusal is recorded in ``Trace.refused``, not as a problem.
    A step with alternatives takes, among the ways whose ``when`` holds for the record the request is
    about, the first whose facts the caller has; a step no way applies to is skipped (the record's state
    rules it out).
    """
    run = _Run(tools, EnvironmentState(initial_state), skip=skip, stop_before=stop_before, validate=validate,
               withheld=withheld, expected_refusals=expected_refusals)  # a deep copy: the scenario's state never changes
    steps = [s for s in skill.steps if s.required or set(s.all_tools()) & set(include)]
    if until_last_of is not None:
        last = max((i for i, s in enumerate(steps) if set(s.all_tools()) & set(until_last_of)), default=-1)
        steps = steps[: last + 1]
    passes = [{**user_facts, **facts} for facts in requests] or [dict(user_facts)]
    for number, facts in enumerate(passes):
        if not run.request(skill, [s for s in steps if not (number and s.kind == "verify")], facts, hints):
            break  # stopped on purpose, or an unverified caller gets nothing further
    return run.trace


@dataclass
class _Run:
    """One reference conversation: the environment it acts on, what it may do, and its trace."""

    tools: Mapping[str, ToolSpec]
    env: EnvironmentState
    skip: Collection[str]
    stop_before: str | None
    validate: bool
    withheld: Collection[str]
    expected_refusals: Sequence[tuple[str, Mapping[str, Any], str]]
    trace: Trace = field(default_factory=Trace)
    identity: list[Any] = field(default_factory=list)  # results of the verify step: they hold for every request

    def __post_init__(self) -> None:
        self.trace.state = self.env.collections

    def request(self, skill: Skill, steps: list[WorkflowStep], facts: dict[str, Any], hints: Hints | None) -> bool:
        """The steps for one request (verification only in the first); False when the conversation ends."""
        known = _Known(hints)
        for result in self.identity:
            known.add(result)
        asked: set[str] = set()
        listed: list[list[dict[str, Any]]] = []  # records of each lookup so far (the options a caller may pick from)
        for step in steps:
            way = _choose_way(step, facts, self.withheld, known, self.trace.problems)
            if way is None:
                continue  # no way applies to the record's state: the agent must not take this step
            for fact in way.collects:
                self.collect(skill, step, fact, facts, known, listed, asked)
            for name in way.tools:
                if name in self.skip:
                    continue
                if name == self.stop_before:
                    self.trace.stopped_at = name
                    return False
                if not self.call(name, step, facts, asked, known, listed):
                    return False
        return True

    def collect(self, skill: Skill, step: WorkflowStep, fact: str, facts: Mapping[str, Any], known: _Known,
                listed: list[list[dict[str, Any]]], asked: set[str]) -> None:
        offered = _offered(fact, listed)
        if offered is not None:
            self.trace.options[fact] = offered
            if fact in facts and str(facts[fact]) not in offered:
                self.trace.conventions.append(Convention(
                    NEW_VALUE_OWN_NAME,
                    f"step '{step.id}' asks for {fact!r}, which an earlier lookup offers as a choice among {offered[:4]}, "
                    f"but the caller's value {facts[fact]!r} is not one of them; rename the fact or fix the state",
                    _scopes(fact, [self.tools[n] for n in skill.tools if n in self.tools]),
                ))
        if fact in facts and fact not in self.withheld:
            asked.add(fact)
        elif not known.distinct(fact):
            self.trace.problems.append(
                f"step '{step.id}' asks for {fact!r}, which the caller does not have and no earlier tool returns"
            )

    def call(self, name: str, step: WorkflowStep, facts: Mapping[str, Any], asked: set[str], known: _Known,
             listed: list[list[dict[str, Any]]]) -> bool:
        """One call of the step's tool; False when the caller turns out unverified (the conversation ends)."""
        trace, tool = self.trace, self.tools.get(name)
        if tool is None:
            trace.problems.append(f"step '{step.id}' uses unknown tool {name!r}")
            return True
        args = _arguments(tool, step.id, facts, asked, known, trace)
        if args is None:
            return True
        try:
            errors = sorted(e.message for e in _validator(tool).iter_errors(args)) if self.validate else []
        except Unresolvable as exc:  # a broken $ref: the catalogue check names it; the call cannot be checked
            errors = [f"its schema does not resolve ({exc})"]
        if errors:
            trace.problems.append(f"{name} (step '{step.id}'): arguments {args} fail its schema: {errors[0]}")
        result, change, error = apply_effect(tool, self.env, args)
        trace.calls.append((name, args))
        if error:
            if _expected_refusal(name, args, error, self.expected_refusals):
                trace.refused.append((name, args))
            else:
                trace.problems.append(f"{name}: {error.message} (step '{step.id}')")
            return True
        known.add(result)
        if step.kind == "verify":
            self.identity.append(result)
        if tool.effect.operation == "lookup" and result and result.get("records"):
            listed.append(result["records"])
        if change:
            trace.changes.append(change)
        if tool.effect.operation == "verify" or (step.kind == "verify" and tool.effect.operation == "code"):
            trace.verified = bool(result and result.get("verified"))
            return trace.verified  # an unverified caller gets nothing further
        return True


def _expected_refusal(name: str, args: Mapping[str, Any], error: ToolError,
                      expected: Sequence[tuple[str, Mapping[str, Any], str]]) -> bool:
    return any(tool == name and kind == error.kind and arguments_match(arguments, args) for tool, arguments, kind in expected)


def _choose_way(step: WorkflowStep, facts: Mapping[str, Any], withheld: Collection[str], known: _Known,
                problems: list[str]) -> StepAlternative | None:
    """The way through a step: among the ways whose ``when`` holds for the record the request is about, the first
    whose collected facts the caller has (else the first of them); None when no way applies."""
    ways = step.ways() or [StepAlternative.model_construct(tools=[], collects=step.collects, when={})]
    applicable = [way for way in ways if _applies(way, step, known, problems)]
    for way in applicable:
        if all(fact in facts and fact not in withheld for fact in way.collects):
            return way
    return applicable[0] if applicable else None


def _applies(way: StepAlternative, step: WorkflowStep, known: _Known, problems: list[str]) -> bool:
    """Whether a way's ``when`` holds: each field's latest returned value is one of the values it names."""
    for name, accepted in way.when.items():
        if name not in known.latest:
            problems.append(
                f"step '{step.id}': the way with tools {way.tools} applies when {name!r} is {accepted!r}, but no earlier "
                f"tool returns a field {name!r}; name a field of an earlier result"
            )
            return False
        if str(known.latest[name]) not in {str(value) for value in (accepted if isinstance(accepted, list) else [accepted])}:
            return False
    return True


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
    trace: Trace,
) -> dict[str, Any] | None:
    problems = trace.problems
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
                trace.conventions.append(Convention(
                    NEW_VALUE_OWN_NAME,
                    f"{tool.name} (step '{step_id}'): argument {name!r} is both the caller's fact and a field of earlier "
                    f"results with other values {values[:3]}; give the new value its own name (e.g. 'new_{name}'), or, "
                    f"where the API updates the field under its own name, waive it in benchmark.yaml: lint_waivers: "
                    f"{{'{NEW_VALUE_OWN_NAME}:{tool.name}.{name}': <why>}}",
                    (name, f"{tool.name}.{name}"),
                ))
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
