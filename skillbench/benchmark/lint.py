"""``skillbench benchmark lint``: every consistency check of a benchmark folder, one line per problem.

Unlike the loader, which stops at the first structural error, the lint reads every file it can and
reports everything: the catalogue (JSON Schemas, effects), skills (toolkits, steps), scenarios (tools,
path rules, state references, target state, duplicates) and coverage (every path in every industry).
State references are checked by running each scenario's reference conversation
(:mod:`skillbench.benchmark.reference`): every tool argument must come from a caller fact a
step asks for or from a field of a record an earlier tool returned.
"""

from __future__ import annotations

import difflib
import json
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from skillbench.benchmark.gold import (
    describe_action,
    match_gold_actions,
    normalized,
    record_differences,
    state_differences,
)
from skillbench.benchmark.integrity import dangling_references, reference_problems, schema_problem
from skillbench.benchmark.loader import (
    check_typed_state,
    gold_basis,
    known_collections,
    parse_file,
    python_files,
    read_yaml,
    resolve_source,
    yaml_files,
)
from skillbench.benchmark.reference import NEW_VALUE_OWN_NAME, Hints, Trace, holds, run_reference
from skillbench.benchmark.schema import (
    BenchmarkManifest,
    GoldBasis,
    Scenario,
    ScenarioFile,
    Skill,
    State,
    ToolServer,
    ToolSpec,
)
from skillbench.benchmark.state import replay_actions
from skillbench.benchmark.tool_code import code_tool_specs, load_tool_module
from skillbench.core import paths
from skillbench.core.errors import BenchmarkCodeError, BenchmarkDataError, ToolError
from skillbench.core.records import SCENARIO_PATHS

M = TypeVar("M", bound=BaseModel)


# The generator's conventions: sound defaults, but a domain of its own may not follow them. A benchmark
# waives one by name in its manifest (lint_waivers: {rule: reason}); the domain's own checks (schemas,
# references, the reference conversation, gold actions) cannot be waived.
CONVENTIONS: dict[str, str] = {
    "file_layout": "each server, skill and scenario file is named after what it holds (tools/<server>.yaml, skills/<id>.yaml)",
    "verify_step": "every skill has a step of kind 'verify' before any disclosure",
    "two_facts_per_question": "a step asks for at most two facts at once",
    "path_conventions": "each scenario path carries what the generator's paths carry (outcome, Say line, forbidden tools)",
    "every_path_per_industry": "every industry has a scenario of every path",
    "distinct_scenarios": "no two scenarios have the same content under different ids",
    NEW_VALUE_OWN_NAME: (
        "a collected fact named like a field of an earlier result is a choice among its values; a new value has its "
        "own name ('new_cabin'). Waivable for one argument ('new_value_own_name:cabin') or one tool's "
        "('new_value_own_name:desk.change_cabin.cabin') where an API updates a field under its own name"
    ),
}
SCOPED = frozenset({NEW_VALUE_OWN_NAME})  # conventions a waiver may narrow to '<rule>:<argument>' or '<rule>:<tool>.<argument>'


@dataclass(frozen=True)
class Problem:
    where: str
    message: str
    rule: str | None = None  # the convention it breaks (waivable), None for the domain's own checks

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" + (f" [rule {self.rule}]" if self.rule else "")


@dataclass
class LintReport:
    root: Path
    name: str = "?"
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    waivers: dict[str, str] = field(default_factory=dict)  # rule (or 'rule:scope') → reason, from the manifest
    waived: dict[str, int] = field(default_factory=dict)  # waiver → problems it silenced
    typed: dict[str, tuple[type[BaseModel], Path]] = field(default_factory=dict)  # COLLECTIONS of tools/*.py

    def add(self, where: str, message: str, rule: str | None = None, scopes: Iterable[str] = ()) -> None:
        waiver = None if rule is None else next(
            (key for key in (rule, *(f"{rule}:{scope}" for scope in scopes)) if key in self.waivers), None)
        if waiver is not None:
            self.waived[waiver] = self.waived.get(waiver, 0) + 1
            return
        self.problems.append(Problem(where, message, rule))


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _load(model: type[M], path: Path, report: LintReport) -> M | None:
    try:
        return parse_file(model, read_yaml(path), path)
    except BenchmarkDataError as exc:
        report.add(_rel(path, report.root), str(exc).removeprefix(f"{path}: ").removeprefix(f"{path}:").strip())
        return None


# -- catalogue ---------------------------------------------------------------------------------------


def _check_tool(tool: ToolSpec, where: str, report: LintReport) -> None:
    schema = tool.input_schema
    problem = schema_problem(schema)
    if problem:
        report.add(where, f"input_schema {problem}")
        return
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in properties:
            report.add(where, f"required argument {name!r} is not in input_schema.properties")
    effect = tool.effect
    if effect.operation == "code":
        return  # a function of tools/<server>.py: its schema comes from its signature
    for kind, mapping in (("match", effect.match), ("set", effect.set)):
        for record_field, arg in mapping.items():
            if arg not in properties:
                report.add(where, f"effect.{kind} maps {record_field!r} to argument {arg!r}, which the tool does not take")
    if effect.operation != "action" and not effect.collection:
        report.add(where, f"effect {effect.operation!r} needs a collection")
    if effect.operation in {"get", "verify", "update", "delete"} and not effect.match:
        report.add(where, f"effect {effect.operation!r} needs a match (which record)")
    if effect.collection:
        reads = effect.operation in {"lookup", "get", "verify", "update", "delete"}
        writes = effect.operation in {"create", "update", "delete", "action"}
        if reads and effect.collection not in tool.reads:
            report.add(where, f"effect reads {effect.collection!r} but 'reads' does not list it")
        if writes and effect.collection not in tool.writes:
            report.add(where, f"effect writes {effect.collection!r} but 'writes' does not list it")


def _catalogue(root: Path, report: LintReport) -> dict[str, ToolSpec]:
    tools: dict[str, ToolSpec] = {}
    for path in yaml_files(root / "tools"):
        rel = _rel(path, root)
        server = _load(ToolServer, path, report)
        if server is None:
            continue
        if path.stem != server.server:
            report.add(rel, f"server {server.server!r} should be in tools/{server.server}.yaml", rule="file_layout")
        for tool in server.tools:
            where = f"{rel}: tool {tool.name}"
            if tool.server != server.server:
                report.add(where, f"name does not start with the server name '{server.server}.'")
            if tool.name in tools:
                report.add(where, "is defined twice")
                continue
            tools[tool.name] = tool
            _check_tool(tool, where, report)
    for path in python_files(root / "tools"):
        rel = _rel(path, root)
        try:
            module = load_tool_module(path, path.read_text(encoding="utf-8"))
            specs = code_tool_specs(module)
        except BenchmarkDataError as exc:
            report.add(rel, str(exc).removeprefix(f"{path}: "))
            continue
        report.typed.update({name: (model, path) for name, model in module.collections.items()})
        for tool in specs:
            if tool.name in tools:
                report.add(f"{rel}: tool {tool.name}", "is defined twice")
                continue
            tools[tool.name] = tool
            _check_tool(tool, f"{rel}: tool {tool.name}", report)
    return tools


# -- skills ------------------------------------------------------------------------------------------


def _check_skill(skill: Skill, where: str, tools: dict[str, ToolSpec], industries: set[str], report: LintReport) -> None:
    if industries and skill.industry not in industries:
        report.add(where, f"industry {skill.industry!r} is not in benchmark.yaml ({sorted(industries)})")
    for name in skill.tools:
        if name not in tools:
            report.add(where, f"toolkit tool {name!r} is not in the catalogue (tools/)")
    step_ids: set[str] = set()
    has_verify = False
    for step in skill.steps:
        if step.id in step_ids:
            report.add(where, f"step id {step.id!r} is used twice")
        step_ids.add(step.id)
        for name in step.all_tools():
            if name not in skill.tools:
                report.add(where, f"step '{step.id}' uses {name!r}, which is not in the skill's toolkit")
        if step.kind == "verify":
            has_verify = True
            for name in step.all_tools():
                if name in tools and tools[name].effect.operation not in {"verify", "code"}:
                    report.add(where, f"verify step '{step.id}' uses {name!r}, whose effect is not 'verify'")
        if any(len(way.collects) > 2 for way in [*step.ways(), step]):
            report.add(where, f"step '{step.id}' asks for more than two facts at once; the guardrail allows two", rule="two_facts_per_question")
    if not has_verify:
        report.add(where, "no step of kind 'verify': identity must be checked before any disclosure", rule="verify_step")


# -- scenarios ---------------------------------------------------------------------------------------


def _say_lines(scenario: Scenario) -> list[str]:
    return [line for line in scenario.user_instructions if line.strip().startswith("Say:")]


def _content_key(scenario: Scenario) -> str:
    data = scenario.model_dump(mode="json", exclude={"id", "title"})
    data["persona"].pop("id", None)
    return json.dumps(data, sort_keys=True)


def _check_paths(scenario: Scenario, where: str, report: LintReport) -> None:
    """The path's rules (:mod:`skillbench.core.paths`): its expected outcome and what it must carry."""
    path, outcome = scenario.path, scenario.expected_outcome
    rule = paths.PATH_RULES[path]
    failures = scenario.tool_failures
    expected = paths.expected_outcome(path, failures)
    if rule.outcome_follows_failures and not failures:
        report.add(where, f"{path} scenario has no tool_failures", rule="path_conventions")
    elif rule.outcome_follows_failures and outcome != expected:
        report.add(where, f"expected_outcome {outcome!r}: with tool_failures {failures} it should be {expected!r} "
                          f"(at most {paths.MAX_RECOVERABLE_FAILURES} retries, then transfer)", rule="path_conventions")
    elif outcome != expected:
        report.add(where, f"expected_outcome {outcome!r} does not fit path {path!r} (expected {expected!r})",
                   rule="path_conventions")
    for tool, count in failures.items():
        if count < 1:
            report.add(where, f"tool_failures[{tool!r}] is {count}; give a count of at least 1")
    if rule.needs_say_line and not _say_lines(scenario):
        report.add(where, f"{path} scenario has no 'Say: \"...\"' line carrying what the caller must say", rule="path_conventions")
    if rule.needs_forbidden_tools and not scenario.forbidden_tools:
        report.add(where, f"{path} scenario names no forbidden tools (those it must not use)", rule="path_conventions")
    if rule.requires_no_tools and scenario.required_tools:
        report.add(where, f"{path} scenario requires tools {scenario.required_tools}; it should require none", rule="path_conventions")
    for name in set(scenario.required_tools) & set(scenario.forbidden_tools):
        report.add(where, f"{name!r} is both required and forbidden")
    for name in scenario.withheld_facts:
        if name in scenario.user_facts:
            report.add(where, f"withheld fact {name!r} is also in user_facts")


def _hints(scenario: Scenario) -> Hints:
    """What identifies the records the caller means: their facts, their words, the target state."""
    targets: set[str] = set()
    for target in scenario.target_state:
        targets |= {str(v) for v in (*target.match.values(), *target.expect.values())}
    facts = [*scenario.user_facts.values(), *(v for r in scenario.requests for v in r.facts.values())]
    return Hints(
        facts=frozenset(str(item) for v in facts for item in (v if isinstance(v, list) else [v])),
        text=" ".join([scenario.objective, *scenario.user_instructions, *(r.goal for r in scenario.requests)]),
        targets=frozenset(targets),
        criteria=" ".join(scenario.success_criteria),
    )


def _check_state(scenario: Scenario, skill: Skill, tools: dict[str, ToolSpec], where: str, report: LintReport,
                 references: dict[str, str] | None = None) -> Trace | None:
    """Check the scenario's state and run its reference conversation; returns the trace (None if not run)."""
    _check_initial_state(scenario, skill, tools, where, report, references)
    rule = paths.PATH_RULES[scenario.path]
    if not rule.runs_reference:
        return None
    failures = paths.unrecoverable_tools(scenario.tool_failures)
    completing = paths.completes_workflow(scenario.path, scenario.expected_outcome)
    kwargs: dict[str, Any] = {"include": set(scenario.required_tools), "skip": set(scenario.forbidden_tools)}
    if failures:
        stop = next((n for s in skill.steps for n in s.all_tools() if n in failures), None)
        kwargs["stop_before"] = stop
    elif not completing:
        kwargs["until_last_of"] = set(scenario.required_tools)
    refusals = [(action.tool, action.arguments, action.refused) for action in scenario.gold_actions or [] if action.refused]
    trace = run_reference(
        skill, tools, user_facts=scenario.user_facts, withheld=scenario.withheld_facts,
        initial_state=scenario.initial_state, hints=_hints(scenario), requests=[r.facts for r in scenario.requests],
        expected_refusals=refusals, **kwargs,
    )
    for problem in trace.problems:
        report.add(where, f"state reference: {problem}")
    for convention in trace.conventions:
        report.add(where, f"state reference: {convention.message}", rule=convention.rule, scopes=convention.scopes)
    reached = {name for name, _ in trace.calls} | ({trace.stopped_at} if trace.stopped_at else set())
    has_verify = any(s.kind == "verify" and s.tools for s in skill.steps)
    if rule.verification_fails and has_verify and trace.verified is not False:
        report.add(where, f"{scenario.path}: the caller's facts pass verification; they must not match the state")
    elif completing and has_verify and trace.verified is False:
        report.add(where, "the caller's facts fail verification, so the request cannot be completed" + _unicode_hint(scenario))
    if trace.verified is not False:
        for name in scenario.required_tools:
            if name not in reached:
                report.add(where, f"required tool {name} is never reached by the workflow with this scenario's facts")
    final = trace.state if completing and not failures else scenario.initial_state
    when = "after the reference conversation" if final is trace.state else "in initial_state (nothing may change)"
    for index, target in enumerate(scenario.target_state):
        if not holds(final, target):
            report.add(where, f"target_state[{index}] ({target.collection} {target.match}) does not hold {when}; "
                              f"the reference conversation wrote: {_writes(trace, tools)}")
    return trace


def _check_initial_state(scenario: Scenario, skill: Skill, tools: dict[str, ToolSpec], where: str, report: LintReport,
                         references: dict[str, str] | None) -> None:
    """References, typed records, the collections required tools read, and the records targets name."""
    state = scenario.initial_state
    for dangling in dangling_references(state, references):
        report.add(where, f"'{dangling}")
    try:
        check_typed_state(scenario, report.typed, "record")
    except BenchmarkDataError as exc:
        report.add(where, str(exc))
    created = {tools[n].effect.collection for n in skill.tools if n in tools and tools[n].effect.operation == "create"}
    for name in scenario.required_tools:
        tool = tools.get(name)
        if tool is None or tool.effect.operation not in {"lookup", "get", "verify", "update", "delete"}:
            continue
        if tool.effect.collection and tool.effect.collection not in state:
            report.add(where, f"required tool {name} reads {tool.effect.collection!r}, which initial_state lacks")
    for index, target in enumerate(scenario.target_state):
        if target.absent:
            continue
        found = holds(state, target.model_copy(update={"expect": {}}))
        if not found and target.collection not in created:
            report.add(where, f"target_state[{index}]: no {target.collection!r} record in initial_state matches {target.match}")


def _unicode_hint(scenario: Scenario) -> str:
    """Where a caller's fact and a value of the state print alike but differ in Unicode normalisation, say so."""
    facts = {**scenario.user_facts, **{k: v for r in scenario.requests for k, v in r.facts.items()}}
    stored = {value for records in scenario.initial_state.values() for record in records for value in record.values()
              if isinstance(value, str)}
    for name, fact in facts.items():
        if not isinstance(fact, str):
            continue
        twin = next((value for value in stored if value != fact and
                     unicodedata.normalize("NFC", value) == unicodedata.normalize("NFC", fact)), None)
        if twin is not None:
            return (f" (the caller's {name} {fact!a} and the state's {twin!a} differ only in Unicode normalisation: "
                    f"write both the same way)")
    return ""


def _writes(trace: Trace, tools: dict[str, ToolSpec]) -> str:
    """The reference conversation's write calls, as a reader checks them against a target."""
    writes = [f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})" for name, args in trace.calls
              if name in tools and tools[name].effect.operation not in {"lookup", "get", "verify"} and not _reads_only(tools[name])]
    return "; ".join(writes) or "nothing"


def _reads_only(tool: ToolSpec) -> bool:
    return tool.effect.operation == "code" and not tool.writes


def _check_gold(scenario: Scenario, skill: Skill, tools: dict[str, ToolSpec], where: str, report: LintReport,
                manifest: BenchmarkManifest | None, trace: Trace | None) -> None:
    """Replay the gold actions; where the reference conversation ends elsewhere, name the call that diverges."""
    if scenario.gold_actions is None or manifest is None:
        return
    for index, action in enumerate(scenario.gold_actions):
        if action.tool not in skill.tools:
            report.add(where, f"gold_actions[{index}]: {action.tool!r} is not in skill {skill.id!r}'s toolkit")
            return
    try:
        basis = gold_basis(scenario, tools, manifest, "gold")
    except BenchmarkDataError as exc:
        report.add(where, str(exc).removeprefix("gold.gold_actions': "))
        return
    if trace is None or trace.stopped_at or trace.verified is False:
        return  # the reference conversation does not run to the end: nothing to compare
    differences = state_differences(trace.state, basis.expected_state, basis.volatile, comparison=basis.comparison)
    if not differences:
        return
    writes = [(name, args) for name, args in trace.calls
              if name in tools and tools[name].effect.operation not in {"lookup", "get", "verify"} and not _reads_only(tools[name])]
    matched = match_gold_actions(scenario.gold_actions, writes, basis.comparison)
    used = {hit for hit in matched if hit is not None}
    extra = [f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})" for i, (name, args) in enumerate(writes) if i not in used]
    missing = [describe_action(a) for a, hit in zip(scenario.gold_actions, matched, strict=True) if hit is None]
    if not extra and not missing and (unstable := _unstable_fields(scenario, tools, basis, trace.state)):
        fields = ", ".join(f"{collection}.{name}" for collection, names in unstable.items() for name in names)
        declare = "{" + ", ".join(f"{collection}: [{', '.join(names)}]" for collection, names in unstable.items()) + "}"
        report.add(where, f"{', '.join(dict.fromkeys(a.tool for a in scenario.gold_actions))} is not deterministic: the "
                          f"same calls leave different {fields} ({'; '.join(differences[:2])}). Fix: declare "
                          f"'volatile_fields: {declare}' in benchmark.yaml (the whole-state verdict then ignores it), or "
                          f"make the tool deterministic (a fixed clock, like toolshed's TODAY)")
        return
    named = (f"the reference conversation calls {extra[0]}, which no gold action matches" if extra
             else f"the reference conversation never performs gold action {missing[0]}" if missing
             else "the same calls leave different states")
    report.add(where, f"gold actions and the reference conversation diverge: {named} ({'; '.join(differences[:2])})")


def _unstable_fields(scenario: Scenario, tools: dict[str, ToolSpec], basis: GoldBasis, reached: State) -> dict[str, list[str]]:
    """Fields the same calls set differently from one run to the next (a clock, a random id): where the reference
    conversation's state differs from the gold one, and a second replay of the gold actions differs too."""
    actions = scenario.gold_actions or []
    try:
        again = replay_actions(scenario.initial_state, tools, [(a.tool, a.arguments) for a in actions],
                               refused=[a.refused for a in actions])
    except (ToolError, BenchmarkCodeError):
        return {}  # it failed this time: not a question of a volatile field
    seen = _differing_fields(reached, basis)
    if not seen or not _differing_fields(again, basis):
        return {}
    return seen


def _differing_fields(actual: State, basis: GoldBasis) -> dict[str, list[str]]:
    """Collection → the fields whose values differ between ``actual`` and the gold state (records paired by key,
    else in order: a created record whose id itself changes)."""
    differences = record_differences(actual, basis.expected_state, basis.volatile, basis.comparison)
    fields: dict[str, set[str]] = defaultdict(set)
    for difference in differences:
        fields[difference.collection] |= {name for name, _, _ in difference.fields}
    for collection in {d.collection for d in differences}:
        extra = [d.record for d in differences if d.collection == collection and d.kind == "unexpected"]
        missing = [d.record for d in differences if d.collection == collection and d.kind == "missing"]
        for have, want in zip(extra, missing, strict=False):
            fields[collection] |= {name for name in set(have) | set(want)
                                   if normalized(have.get(name), basis.comparison) != normalized(want.get(name), basis.comparison)}
    return {collection: sorted(names) for collection, names in sorted(fields.items()) if names}


def _check_waivers(manifest: BenchmarkManifest, tools: dict[str, ToolSpec], report: LintReport) -> None:
    report.waivers = dict(manifest.lint_waivers)
    for waiver, reason in manifest.lint_waivers.items():
        rule, _, scope = waiver.partition(":")
        if rule not in CONVENTIONS:
            report.add("benchmark.yaml", f"lint_waivers: {rule!r} is not a convention rule; waivable: {', '.join(CONVENTIONS)}")
        elif scope and rule not in SCOPED:
            report.add("benchmark.yaml", f"lint_waivers: {waiver!r}: {rule} applies to the whole benchmark; "
                                         f"waive it as {rule!r} (scoped waivers: {', '.join(sorted(SCOPED))})")
        elif scope and (problem := _scope_problem(scope, tools)):
            report.add("benchmark.yaml", f"lint_waivers: {waiver!r}: {problem}")
        elif not reason.strip():
            report.add("benchmark.yaml", f"lint_waivers: {waiver!r} gives no reason; say why it does not apply")


def _scope_problem(scope: str, tools: dict[str, ToolSpec]) -> str | None:
    """What a waiver's '<argument>' or '<tool>.<argument>' names that the catalogue does not have, with the nearest."""
    tool_name, _, argument = scope.rpartition(".")
    if tool_name and tool_name not in tools:
        close = difflib.get_close_matches(tool_name, tools, n=1)
        return f"no tool {tool_name!r} in the catalogue" + (f"; did you mean {close[0]!r}?" if close else "")
    arguments = (set(tools[tool_name].input_schema.get("properties", {})) if tool_name
                 else {name for tool in tools.values() for name in tool.input_schema.get("properties", {})})
    if argument not in arguments:
        close = difflib.get_close_matches(argument, arguments, n=1)
        owner = tool_name or "any tool"
        return f"{owner} takes no argument {argument!r}" + (f"; did you mean {close[0]!r}?" if close else "")
    return None


def _checked_references(manifest: BenchmarkManifest | None, files: list[tuple[Path, ScenarioFile, Skill]],
                        tools: dict[str, ToolSpec], report: LintReport) -> dict[str, str]:
    """The manifest's references after reporting the ones that name nothing (those are left out of the
    scenarios' dangling-reference checks, which they would only flood)."""
    if manifest is None:
        return {}
    states = [scenario.initial_state for _, file, _ in files for scenario in file.scenarios]
    problems = reference_problems(manifest.references, states, known_collections(tools.values(), report.typed))
    for entry, problem in problems:
        report.add("benchmark.yaml", f"references.{entry}: {problem}")
    wrong = {entry for entry, _ in problems}
    return {source: target for source, target in manifest.references.items() if source not in wrong}


def _scenario_files(root: Path, skills: dict[str, Skill], report: LintReport) -> list[tuple[Path, ScenarioFile, Skill]]:
    files: list[tuple[Path, ScenarioFile, Skill]] = []
    for path in yaml_files(root / "scenarios"):
        rel = _rel(path, root)
        scenario_file = _load(ScenarioFile, path, report)
        if scenario_file is None:
            continue
        skill = skills.get(scenario_file.skill_id)
        if skill is None:
            report.add(rel, f"skill_id {scenario_file.skill_id!r} has no file in skills/")
            continue
        if path.stem != skill.id:
            report.add(rel, f"scenarios of {skill.id!r} should be in scenarios/{skill.id}.yaml", rule="file_layout")
        files.append((path, scenario_file, skill))
    return files


def lint_benchmark(source: str | Path) -> LintReport:
    """Check a benchmark folder (a packaged name or a path); never raises for data problems."""
    root = resolve_source(str(source))
    report = LintReport(root=root)
    manifest_path = root / "benchmark.yaml"
    manifest = None
    if manifest_path.is_file():
        manifest = _load(BenchmarkManifest, manifest_path, report)
    else:
        report.add("benchmark.yaml", "is missing; add a manifest with name and industries")
    industries = {i.id for i in manifest.industries} if manifest else set()
    report.name = manifest.name if manifest else root.name
    tools = _catalogue(root, report)
    if manifest is not None:
        _check_waivers(manifest, tools, report)
    skills: dict[str, Skill] = {}
    for path in yaml_files(root / "skills"):
        rel = _rel(path, root)
        skill = _load(Skill, path, report)
        if skill is None:
            continue
        if path.stem != skill.id:
            report.add(rel, f"skill {skill.id!r} should be in skills/{skill.id}.yaml", rule="file_layout")
        if skill.id in skills:
            report.add(rel, f"skill {skill.id!r} is defined twice")
            continue
        skills[skill.id] = skill
        _check_skill(skill, rel, tools, industries, report)

    files = _scenario_files(root, skills, report)
    references = _checked_references(manifest, files, tools, report)
    seen_ids: set[str] = set()
    content: dict[str, str] = {}
    coverage: dict[str, set[str]] = defaultdict(set)
    for path, scenario_file, skill in files:
        for scenario in scenario_file.scenarios:
            where = f"{_rel(path, root)}: scenario {scenario.id}"
            if scenario.skill_id != skill.id:
                report.add(where, f"skill_id {scenario.skill_id!r} differs from the file's {skill.id!r}")
                continue
            if scenario.id in seen_ids:
                report.add(where, "id is used twice")
            seen_ids.add(scenario.id)
            key = _content_key(scenario)
            if key in content:
                report.add(where, f"duplicate of scenario {content[key]} (same content under another id)", rule="distinct_scenarios")
            else:
                content[key] = scenario.id
            _check_tools(scenario, skill, tools, where, report)
            _check_paths(scenario, where, report)
            trace = _check_state(scenario, skill, tools, where, report, references)
            _check_gold(scenario, skill, tools, where, report, manifest, trace)
            coverage[skill.industry].add(scenario.path)
    scenarios = sum(len(file.scenarios) for _, file, _ in files)
    if scenarios == 0:
        report.add("scenarios/", "no scenarios found")
    for industry in sorted(industries or coverage):
        missing = [p for p in SCENARIO_PATHS if p not in coverage.get(industry, set())]
        if missing:
            report.add("benchmark.yaml", f"industry {industry!r} has no scenario for path(s) {', '.join(missing)}", rule="every_path_per_industry")
    report.counts = {"tools": len(tools), "skills": len(skills), "scenarios": scenarios, "industries": len(industries)}
    return report


def _check_tools(scenario: Scenario, skill: Skill, tools: dict[str, ToolSpec], where: str, report: LintReport) -> None:
    for label, names in (("required_tools", scenario.required_tools), ("forbidden_tools", scenario.forbidden_tools),
                         ("tool_failures", list(scenario.tool_failures))):
        for name in names:
            if name not in tools:
                report.add(where, f"{label}: {name!r} is not in the catalogue (tools/)")
            elif label != "forbidden_tools" and name not in skill.tools:
                report.add(where, f"{label}: {name!r} is not in skill {skill.id!r}'s toolkit")


def format_report(report: LintReport) -> Iterable[str]:
    yield from (str(problem) for problem in report.problems)
    counts = ", ".join(f"{n} {k}" for k, n in report.counts.items())
    verdict = "no problems" if not report.problems else f"{len(report.problems)} problem(s)"
    if report.waived or report.waivers:
        waived = ", ".join(f"{rule} ×{report.waived.get(rule, 0)}" for rule in report.waivers)
        verdict += f"; waived by benchmark.yaml: {waived}"
    yield f"lint {report.name} ({counts}): {verdict}"
