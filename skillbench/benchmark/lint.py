"""``skillbench benchmark lint``: every consistency check of a benchmark folder, one line per problem.

Unlike the loader, which stops at the first structural error, the lint reads every file it can and
reports everything: the catalogue (JSON Schemas, effects), skills (toolkits, steps), scenarios (tools,
path rules, state references, target state, duplicates) and coverage (every path in every industry).
State references are checked by running each scenario's reference conversation
(:mod:`skillbench.benchmark.reference`): every tool argument must come from a caller fact a
step asks for or from a field of a record an earlier tool returned.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from skillbench.benchmark.integrity import dangling_references, schema_problem
from skillbench.benchmark.loader import parse_file, read_yaml, resolve_source, yaml_files
from skillbench.benchmark.reference import Hints, holds, run_reference
from skillbench.benchmark.schema import (
    BenchmarkManifest,
    Scenario,
    ScenarioFile,
    Skill,
    ToolServer,
    ToolSpec,
)
from skillbench.core import paths
from skillbench.core.errors import BenchmarkDataError
from skillbench.core.records import SCENARIO_PATHS

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Problem:
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class LintReport:
    root: Path
    name: str = "?"
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, where: str, message: str) -> None:
        self.problems.append(Problem(where, message))


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
            report.add(rel, f"server {server.server!r} should be in tools/{server.server}.yaml")
        for tool in server.tools:
            where = f"{rel}: tool {tool.name}"
            if tool.server != server.server:
                report.add(where, f"name does not start with the server name '{server.server}.'")
            if tool.name in tools:
                report.add(where, "is defined twice")
                continue
            tools[tool.name] = tool
            _check_tool(tool, where, report)
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
        for name in step.tools:
            if name not in skill.tools:
                report.add(where, f"step '{step.id}' uses {name!r}, which is not in the skill's toolkit")
        if step.kind == "verify":
            has_verify = True
            for name in step.tools:
                if name in tools and tools[name].effect.operation != "verify":
                    report.add(where, f"verify step '{step.id}' uses {name!r}, whose effect is not 'verify'")
        if len(step.collects) > 2:
            report.add(where, f"step '{step.id}' asks for {len(step.collects)} facts at once; the guardrail allows two")
    if not has_verify:
        report.add(where, "no step of kind 'verify': identity must be checked before any disclosure")


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
        report.add(where, f"{path} scenario has no tool_failures")
    elif rule.outcome_follows_failures and outcome != expected:
        report.add(where, f"expected_outcome {outcome!r}: with tool_failures {failures} it should be {expected!r} "
                          f"(at most {paths.MAX_RECOVERABLE_FAILURES} retries, then transfer)")
    elif outcome != expected:
        report.add(where, f"expected_outcome {outcome!r} does not fit path {path!r} (expected {expected!r})")
    for tool, count in failures.items():
        if count < 1:
            report.add(where, f"tool_failures[{tool!r}] is {count}; give a count of at least 1")
    if rule.needs_say_line and not _say_lines(scenario):
        report.add(where, f"{path} scenario has no 'Say: \"...\"' line carrying what the caller must say")
    if rule.needs_forbidden_tools and not scenario.forbidden_tools:
        report.add(where, f"{path} scenario names no forbidden tools (those it must not use)")
    if rule.requires_no_tools and scenario.required_tools:
        report.add(where, f"{path} scenario requires tools {scenario.required_tools}; it should require none")
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
    return Hints(
        facts=frozenset(str(v) for v in scenario.user_facts.values()),
        text=" ".join([scenario.objective, *scenario.user_instructions]),
        targets=frozenset(targets),
        criteria=" ".join(scenario.success_criteria),
    )


def _check_state(scenario: Scenario, skill: Skill, tools: dict[str, ToolSpec], where: str, report: LintReport,
                 references: dict[str, str] | None = None) -> None:
    state = scenario.initial_state
    for dangling in dangling_references(state, references):
        report.add(where, f"'{dangling}")
    created = {tools[n].effect.collection for n in skill.tools if n in tools and tools[n].effect.operation == "create"}
    for name in scenario.required_tools:
        tool = tools.get(name)
        if tool is None or tool.effect.operation not in {"lookup", "get", "verify", "update", "delete"}:
            continue
        if tool.effect.collection and tool.effect.collection not in state:
            report.add(where, f"required tool {name} reads {tool.effect.collection!r}, which initial_state lacks")
    for index, target in enumerate(scenario.target_state):
        label = f"target_state[{index}]"
        if target.absent:
            continue
        found = holds(state, target.model_copy(update={"expect": {}}))
        if not found and target.collection not in created:
            report.add(where, f"{label}: no {target.collection!r} record in initial_state matches {target.match}")

    rule = paths.PATH_RULES[scenario.path]
    if not rule.runs_reference:
        return
    failures = paths.unrecoverable_tools(scenario.tool_failures)
    completing = paths.completes_workflow(scenario.path, scenario.expected_outcome)
    kwargs: dict[str, Any] = {"include": set(scenario.required_tools), "skip": set(scenario.forbidden_tools)}
    if failures:
        stop = next((n for s in skill.steps for n in s.tools if n in failures), None)
        kwargs["stop_before"] = stop
    elif not completing:
        kwargs["until_last_of"] = set(scenario.required_tools)
    trace = run_reference(
        skill, tools, user_facts=scenario.user_facts, withheld=scenario.withheld_facts,
        initial_state=state, hints=_hints(scenario), **kwargs,
    )
    for problem in trace.problems:
        report.add(where, f"state reference: {problem}")
    reached = {name for name, _ in trace.calls} | ({trace.stopped_at} if trace.stopped_at else set())
    has_verify = any(s.kind == "verify" and s.tools for s in skill.steps)
    if rule.verification_fails and has_verify and trace.verified is not False:
        report.add(where, f"{scenario.path}: the caller's facts pass verification; they must not match the state")
    elif completing and has_verify and trace.verified is False:
        report.add(where, "the caller's facts fail verification, so the request cannot be completed")
    if trace.verified is not False:
        for name in scenario.required_tools:
            if name not in reached:
                report.add(where, f"required tool {name} is never reached by the workflow with this scenario's facts")
    final = trace.state if completing and not failures else state
    when = "after the reference conversation" if final is trace.state else "in initial_state (nothing may change)"
    for index, target in enumerate(scenario.target_state):
        if not holds(final, target):
            report.add(where, f"target_state[{index}] ({target.collection} {target.match}) does not hold {when}")


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
    skills: dict[str, Skill] = {}
    for path in yaml_files(root / "skills"):
        rel = _rel(path, root)
        skill = _load(Skill, path, report)
        if skill is None:
            continue
        if path.stem != skill.id:
            report.add(rel, f"skill {skill.id!r} should be in skills/{skill.id}.yaml")
        if skill.id in skills:
            report.add(rel, f"skill {skill.id!r} is defined twice")
            continue
        skills[skill.id] = skill
        _check_skill(skill, rel, tools, industries, report)

    seen_ids: set[str] = set()
    content: dict[str, str] = {}
    coverage: dict[str, set[str]] = defaultdict(set)
    scenarios = 0
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
            report.add(rel, f"scenarios of {skill.id!r} should be in scenarios/{skill.id}.yaml")
        for scenario in scenario_file.scenarios:
            scenarios += 1
            where = f"{rel}: scenario {scenario.id}"
            if scenario.skill_id != skill.id:
                report.add(where, f"skill_id {scenario.skill_id!r} differs from the file's {skill.id!r}")
                continue
            if scenario.id in seen_ids:
                report.add(where, "id is used twice")
            seen_ids.add(scenario.id)
            key = _content_key(scenario)
            if key in content:
                report.add(where, f"duplicate of scenario {content[key]} (same content under another id)")
            else:
                content[key] = scenario.id
            _check_tools(scenario, skill, tools, where, report)
            _check_paths(scenario, where, report)
            _check_state(scenario, skill, tools, where, report, manifest.references if manifest else None)
            coverage[skill.industry].add(scenario.path)
    if scenarios == 0:
        report.add("scenarios/", "no scenarios found")
    for industry in sorted(industries or coverage):
        missing = [p for p in SCENARIO_PATHS if p not in coverage.get(industry, set())]
        if missing:
            report.add("benchmark.yaml", f"industry {industry!r} has no scenario for path(s) {', '.join(missing)}")
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
    yield f"lint {report.name} ({counts}): {verdict}"
