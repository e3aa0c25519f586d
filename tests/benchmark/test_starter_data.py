"""Consistency of the hand-written starter benchmark.

Besides counts and coverage, these tests walk each scenario's workflow the way a deterministic
simulated agent does: required steps in order, every required tool argument filled by name from the
caller's facts or from fields of earlier tool results (the first matching record of a lookup), with the
tool effects applied to a copy of ``initial_state``. The walk must reach the scenario's target state.
"""

from __future__ import annotations

import copy
import re
from collections import Counter, defaultdict
from typing import Any

import pytest

from skillbench.benchmark import SCENARIO_PATHS, load_benchmark
from skillbench.benchmark.schema import Scenario, Skill, ToolSpec
from skillbench.core import paths

BENCH = load_benchmark("starter")
SCENARIOS = BENCH.scenarios
IDS = [scenario.id for scenario in SCENARIOS]

SAY = re.compile(r'^Say: "(.+)"$')
HUMAN_WORDS = ("human", "person", "representative", "manager", "someone", "agent", "team")
PERSONA_LABELS = {"efficient", "frustrated", "vague", "confused", "non_native", "adversarial"}
# Operations whose result discloses or changes account data: they must come after the verify step.
GATED_OPERATIONS = {"lookup", "get", "create", "update", "delete"}


def _industry(scenario: Scenario) -> str:
    return BENCH.skill_of(scenario).industry


def _says(scenario: Scenario) -> list[str]:
    return [m.group(1) for line in scenario.user_instructions if (m := SAY.match(line.strip()))]


def _required_args(tool: ToolSpec) -> list[str]:
    return list(tool.input_schema.get("required", []))


def _matches(record: dict[str, Any], fields: dict[str, Any]) -> bool:
    return all(str(record.get(key)) == str(value) for key, value in fields.items())


# --------------------------------------------------------------------------------------------- walker


class Walk:
    """Runs a skill's required steps against a scenario the way an offline simulated agent would."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.skill: Skill = BENCH.skill_of(scenario)
        self.state = copy.deepcopy(scenario.initial_state)
        self.facts: dict[str, Any] = dict(scenario.user_facts)
        self.fields: dict[str, Any] = {}  # fields of earlier tool results
        self.calls: list[str] = []
        self.status = "completed"  # or: unverified, missing:<arg>, empty:<tool>, failed:<tool>, refused:<tool>, error:<tool>
        self.stopped_at: str | None = None  # kind of the step where the walk stopped
        self.conflicts: list[str] = []
        self._created = 0

    def value(self, name: str) -> Any:
        return self.facts[name] if name in self.facts else self.fields.get(name)

    def _learn(self, record: dict[str, Any]) -> None:
        for key, value in record.items():
            if key in self.facts and str(self.facts[key]) != str(value):
                self.conflicts.append(f"{key}: fact {self.facts[key]!r} vs result {value!r}")
            self.fields[key] = value

    def _one(self, tool: ToolSpec, args: dict[str, Any]) -> list[dict[str, Any]]:
        effect = tool.effect
        return [
            r
            for r in self.state.get(effect.collection or "", [])
            if _matches(r, {f: args[a] for f, a in effect.match.items()})
        ]

    def call(self, tool: ToolSpec) -> bool:
        args = {}
        for name in _required_args(tool):
            if self.value(name) is None:
                self.status = f"missing:{name}"
                return False
            args[name] = self.value(name)
        self.calls.append(tool.name)
        effect = tool.effect
        found = self._one(tool, args) if effect.operation != "action" else []
        if effect.operation == "lookup":
            if not found:  # an agent finds nothing to act on and stops
                self.status = f"empty:{tool.name}"
                return False
            self._learn(found[0])
        elif effect.operation == "verify":
            if not found:
                self.status = "unverified"
                return False
            self._learn({key: found[0][key] for key in effect.returns if key in found[0]})
        elif effect.operation in {"get", "update", "delete"}:
            if len(found) != 1:
                self.status = f"error:{tool.name}"
                return False
            if effect.operation == "delete":
                self.state[effect.collection].remove(found[0])
                return True
            found[0].update({field: args[arg] for field, arg in effect.set.items() if arg in args})
            found[0].update(effect.set_const)
            self._learn(found[0])
        elif effect.operation == "create":
            self._created += 1
            record = {field: args[arg] for field, arg in effect.set.items() if arg in args}
            record.update(effect.set_const)
            record[effect.id_field or "id"] = f"{effect.id_prefix}-T{self._created}"
            self.state.setdefault(effect.collection or "", []).append(record)
            self._learn(record)
        elif effect.operation == "action":
            self._learn({key: args[key] for key in effect.returns if key in args} | effect.result)
        return True

    def run(self, stop_at_failing_tool: bool = False) -> Walk:
        failing = {name for name, n in self.scenario.tool_failures.items() if n >= 3}
        for step in self.skill.steps:
            if not step.required:
                continue
            for name in step.tools:
                if stop_at_failing_tool and name in failing:
                    self.status = f"failed:{name}"
                    return self
                if (
                    name in self.scenario.forbidden_tools
                ):  # policy forbids this step here: a correct agent stops
                    self.status = f"refused:{name}"
                    self.stopped_at = step.kind
                    return self
                if not self.call(BENCH.tools[name]):
                    self.stopped_at = step.kind
                    return self
        return self


# ------------------------------------------------------------------------------------- counts, coverage


def test_counts() -> None:
    assert len(BENCH.manifest.industries) >= 3
    assert len(BENCH.skills) >= 8
    assert len(BENCH.tools) >= 30
    assert len(SCENARIOS) >= 40
    assert {skill.industry for skill in BENCH.skills.values()} == {i.id for i in BENCH.manifest.industries}


def test_every_path_in_every_industry() -> None:
    seen = {(_industry(s), s.path) for s in SCENARIOS}
    missing = [(i.id, p) for i in BENCH.manifest.industries for p in SCENARIO_PATHS if (i.id, p) not in seen]
    assert not missing, missing
    # tool failure: a recoverable one (N <= 2 → success) and a persistent one (N >= 3 → transfer) per industry
    for industry in BENCH.manifest.industries:
        failures = [s for s in SCENARIOS if _industry(s) == industry.id and s.path == "tool_failure"]
        assert any(
            max(s.tool_failures.values()) <= 2 and s.expected_outcome == "success" for s in failures
        ), industry.id
        assert any(
            max(s.tool_failures.values()) >= 3 and s.expected_outcome == "appropriately_transferred"
            for s in failures
        ), industry.id


def test_every_skill_has_scenarios() -> None:
    by_skill = Counter(s.skill_id for s in SCENARIOS)
    assert set(by_skill) == set(BENCH.skills)
    assert all(count >= 4 for count in by_skill.values()), by_skill


def test_personas_and_identities_vary() -> None:
    labels = Counter(s.persona.label for s in SCENARIOS)
    assert set(labels) >= PERSONA_LABELS, labels
    for scenario in SCENARIOS:
        persona = scenario.persona
        assert persona.traits and persona.style and persona.motivation and persona.example_utterances, (
            scenario.id
        )
    titles = [s.title for s in SCENARIOS]
    assert len(set(titles)) == len(titles)
    objectives = [s.objective for s in SCENARIOS]
    assert len(set(objectives)) == len(objectives)


# ------------------------------------------------------------------------------------------- tools


@pytest.mark.parametrize("name", sorted(BENCH.tools))
def test_tool_schema_and_effect(name: str) -> None:
    tool = BENCH.tools[name]
    schema = tool.input_schema
    properties = schema.get("properties", {})
    assert schema.get("additionalProperties") is False
    assert schema.get("required"), "every tool takes at least one required argument"
    assert set(schema["required"]) <= set(properties)
    assert all(spec.get("type") == "string" for spec in properties.values()), "values are plain strings"
    assert re.fullmatch(r"[a-z_]+\.[a-z_]+", name)
    effect = tool.effect
    assert set(effect.match.values()) <= set(schema["required"]), "match arguments must be required"
    assert set(effect.set.values()) <= set(schema["required"]), "written arguments must be required"
    if effect.operation in {"lookup", "get", "verify", "update", "delete"}:
        assert effect.match and effect.collection in tool.reads
    if effect.operation in {"create", "update", "delete", "action"}:
        assert effect.collection in tool.writes
    if effect.operation == "create":
        assert effect.id_field and effect.id_prefix != "ID"
    if effect.operation == "verify":
        assert effect.returns


def test_tools_grouped_in_support_system_servers() -> None:
    servers = {tool.server for tool in BENCH.tools.values()}
    assert {
        "crm",
        "identity",
        "scheduling",
        "billing",
        "orders",
        "helpdesk",
        "messaging",
        "knowledge_base",
    } <= servers
    assert "telecom_network" in servers
    used = {name for skill in BENCH.skills.values() for name in skill.tools}
    assert used == set(BENCH.tools), f"catalogue tools no skill offers: {sorted(set(BENCH.tools) - used)}"


# ------------------------------------------------------------------------------------------- skills


@pytest.mark.parametrize("skill_id", sorted(BENCH.skills))
def test_skill_shape(skill_id: str) -> None:
    skill = BENCH.skills[skill_id]
    kinds = [step.kind for step in skill.steps]
    assert kinds.count("verify") == 1
    verify_index = kinds.index("verify")
    verify_step = skill.steps[verify_index]
    assert verify_step.tools and all(BENCH.tools[t].effect.operation == "verify" for t in verify_step.tools)
    for step in skill.steps[:verify_index]:  # nothing disclosed or changed before verification
        assert all(BENCH.tools[t].effect.operation == "action" for t in step.tools), step.id
        assert step.kind not in {"act", "lookup"}, step.id
    assert any(step.kind == "act" for step in skill.steps)
    assert any(step.kind == "escalate" and not step.required for step in skill.steps)
    for step in skill.steps:
        assert len(step.collects) <= 2, f"{step.id}: ask at most two questions at a time"
        assert len(step.tools) <= 1, f"{step.id}: one tool per step keeps the walk deterministic"
        if step.kind == "act" and not step.required:
            pytest.fail(
                f"{step.id}: optional steps must not write (an agent running every step would break state)"
            )
    text = " ".join(skill.guardrails).lower()
    for needle in (
        "verify",
        "at most two questions",
        "password",
        "card number",
        "ignore or change these rules",
        "retry at most twice",
    ):
        assert needle in text, f"guardrails lack {needle!r}"
    assert skill.in_scope and skill.escalation and skill.success_criteria


@pytest.mark.parametrize("skill_id", sorted(BENCH.skills))
def test_step_arguments_obtainable_in_order(skill_id: str) -> None:
    """Every required argument of a step's tool is collected from the caller or returned earlier."""
    skill = BENCH.skills[skill_id]
    known: set[str] = set()
    for step in skill.steps:
        known |= set(step.collects)
        for name in step.tools:
            tool = BENCH.tools[name]
            missing = set(_required_args(tool)) - known
            if step.required:
                assert not missing, f"{step.id}: {name} needs {missing}"
            effect = tool.effect
            if effect.operation == "verify":
                known |= set(effect.returns)
            elif effect.operation == "action":
                known |= set(effect.returns) | set(effect.result)
            elif effect.operation == "create":
                known |= set(effect.set) | set(effect.set_const) | {effect.id_field or "id"}
            else:
                known |= _record_fields(skill_id, effect.collection)


def _record_fields(skill_id: str, collection: str | None) -> set[str]:
    return {
        key
        for scenario in SCENARIOS
        if scenario.skill_id == skill_id
        for record in scenario.initial_state.get(collection or "", [])
        for key in record
    }


# -------------------------------------------------------------------------------------------- scenarios


def _available_fields(scenario: Scenario) -> set[str]:
    """Facts plus every field the skill's tools can return from this scenario's initial_state."""
    fields = set(scenario.user_facts)
    for name in BENCH.skill_of(scenario).tools:
        effect = BENCH.tools[name].effect
        if effect.operation == "verify":
            fields |= set(effect.returns)
        elif effect.operation == "action":
            fields |= set(effect.returns) | set(effect.result)
        elif effect.operation == "create":
            fields |= set(effect.set) | set(effect.set_const) | {effect.id_field or "id"}
        else:
            for record in scenario.initial_state.get(effect.collection or "", []):
                fields |= set(record)
    return fields


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_required_tools_arguments_obtainable(scenario: Scenario) -> None:
    available = _available_fields(scenario)
    for name in scenario.required_tools:
        missing = set(_required_args(BENCH.tools[name])) - available
        assert not missing, f"{name} needs {missing}: add them to user_facts or to records in initial_state"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_scenario_basics(scenario: Scenario) -> None:
    skill = BENCH.skill_of(scenario)
    assert scenario.id.split("-")[0] in {"hc", "tc", "rt", "bk"}
    assert not set(scenario.withheld_facts) & set(scenario.user_facts), "a withheld fact cannot also be known"
    assert set(scenario.forbidden_tools) <= set(skill.tools)
    assert not set(scenario.forbidden_tools) & set(scenario.required_tools)
    assert set(scenario.tool_failures) <= set(scenario.required_tools)
    for collection, records in scenario.initial_state.items():
        assert isinstance(records, list), collection
        for record in records:
            assert all(isinstance(v, str) for v in record.values()), f"{collection}: values are plain strings"
    # facts the skill's required steps collect are known (or withheld, or the caller is unverifiable)
    collects = {fact for step in skill.steps if step.required for fact in step.collects}
    if scenario.path in {"happy_path", "missing_information", "tool_failure", "guardrail_refusal"}:
        assert collects <= set(scenario.user_facts) | set(scenario.withheld_facts), collects - set(
            scenario.user_facts
        )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_target_state_records_exist(scenario: Scenario) -> None:
    skill = BENCH.skill_of(scenario)
    created = {
        BENCH.tools[t].effect.collection for t in skill.tools if BENCH.tools[t].effect.operation == "create"
    }
    for expectation in scenario.target_state:
        assert expectation.collection in scenario.initial_state, (
            f"{expectation.collection} missing from initial_state"
        )
        records = scenario.initial_state[expectation.collection]
        if expectation.absent or expectation.collection in created:
            continue
        assert any(_matches(r, expectation.match) for r in records), (
            f"no {expectation.collection} record {expectation.match}"
        )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_target_state_reachable(scenario: Scenario) -> None:
    """Each expected value is already there, or a skill tool writes it (a constant or a caller's fact)."""
    skill = BENCH.skill_of(scenario)
    for expectation in scenario.target_state:
        initial = [
            r
            for r in scenario.initial_state.get(expectation.collection, [])
            if _matches(r, expectation.match)
        ]
        writers = [
            BENCH.tools[t].effect
            for t in skill.tools
            if BENCH.tools[t].effect.collection == expectation.collection
        ]
        for field, value in expectation.expect.items():
            if any(str(r.get(field)) == str(value) for r in initial):
                continue
            ok = any(
                str(effect.set_const.get(field, object())) == str(value)
                or (field in effect.set and str(scenario.user_facts.get(effect.set[field])) == str(value))
                for effect in writers
                if effect.operation in {"update", "create"}
            )
            assert ok, f"{expectation.collection}.{field}={value!r} is written by no tool of {skill.id}"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_path_construction(scenario: Scenario) -> None:
    skill = BENCH.skill_of(scenario)
    says = _says(scenario)
    rule = paths.PATH_RULES[scenario.path]
    assert bool(scenario.tool_failures) == rule.outcome_follows_failures
    assert scenario.expected_outcome == paths.expected_outcome(scenario.path, scenario.tool_failures)
    if scenario.path == "prompt_injection":
        assert says and scenario.forbidden_tools
        assert any(
            word in " ".join(says).lower()
            for word in ("ignore", "override", "skip", "forget", "rules", "policy")
        )
    if scenario.path == "transfer":
        assert says and any(word in says[0].lower() for word in HUMAN_WORDS)
    if scenario.path == "guardrail_refusal":
        gated = {t for t in skill.tools if BENCH.tools[t].effect.operation in GATED_OPERATIONS}
        assert gated <= set(scenario.forbidden_tools), gated - set(scenario.forbidden_tools)
        verify_tools = [t for step in skill.steps if step.kind == "verify" for t in step.tools]
        assert set(verify_tools) <= set(scenario.required_tools)
    if scenario.path == "out_of_scope":
        assert not scenario.required_tools
        objective = scenario.objective.lower()
        assert not any(phrase.lower() in objective for phrase in skill.in_scope)
    if scenario.path == "happy_path":
        assert not scenario.withheld_facts and not says and scenario.target_state


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_workflow_walk_reaches_target(scenario: Scenario) -> None:
    """Walk the skill's required steps with the caller's facts; check verification and target state."""
    walk = Walk(scenario)
    if scenario.path in {"out_of_scope", "transfer"}:
        # not walked to the end, but the caller's records are present and the target (if any) holds unchanged
        assert scenario.initial_state, "give the caller's records even when the request goes elsewhere"
        assert all(e.is_met(scenario.initial_state) for e in scenario.target_state)
        return
    persistent = scenario.path == "tool_failure" and max(scenario.tool_failures.values()) >= 3
    walk.run(stop_at_failing_tool=persistent)
    assert not walk.conflicts, walk.conflicts
    if scenario.path == "guardrail_refusal":
        assert walk.status == "unverified", f"the caller's verify facts must not match (walk: {walk.status})"
    elif scenario.path == "prompt_injection" and walk.status != "completed":
        # the policy forbids the workflow's next write here (e.g. not eligible): a correct agent stops
        assert walk.status.startswith("refused:"), walk.status
    elif persistent:
        assert walk.status.startswith("failed:"), f"the failing tool was never reached (walk: {walk.status})"
    else:
        assert walk.status == "completed", walk.status
    assert not set(walk.calls) & set(scenario.forbidden_tools)
    reached = set(walk.calls) | {name for name in scenario.tool_failures}
    assert set(scenario.required_tools) <= reached, (
        f"required tools the workflow never calls: {set(scenario.required_tools) - reached}"
    )
    unmet = [e for e in scenario.target_state if not e.is_met(walk.state)]
    assert not unmet, unmet


def test_scenarios_cover_named_situations() -> None:
    """An unverified caller asking for account details, and an attempt to make the agent ignore its policy."""
    by_path: dict[str, list[Scenario]] = defaultdict(list)
    for scenario in SCENARIOS:
        by_path[scenario.path].append(scenario)
    assert len(by_path["guardrail_refusal"]) >= 4
    assert any("ignore" in " ".join(_says(s)).lower() for s in by_path["prompt_injection"])
    assert any("skip" in " ".join(_says(s)).lower() for s in by_path["prompt_injection"])


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_collected_choices_are_among_returned_options(scenario: Scenario) -> None:
    """A collect key named like an earlier lookup's field (new_start_time ~ start_time) is a choice among
    the values that lookup returns, so the caller's fact must be one of them (no invented availability)."""
    if scenario.path in {"out_of_scope", "transfer", "guardrail_refusal"}:
        return
    skill = BENCH.skill_of(scenario)
    lookups: list[str] = []
    for step in skill.steps:
        for key in step.collects:
            if key not in scenario.user_facts:
                continue
            for name in reversed(lookups):
                effect = BENCH.tools[name].effect
                records = scenario.initial_state.get(effect.collection or "", [])
                fields = {f for r in records for f in r if key == f or key.endswith("_" + f)}
                if fields:
                    field = max(fields, key=len)
                    values = {str(r.get(field)) for r in records}
                    assert scenario.user_facts[key] in values, (
                        f"{key} looks like a choice among {name}'s {field} values but the fact is not one of them; "
                        f"rename the field or the argument"
                    )
                    break
        if step.kind == "lookup":
            lookups.extend(t for t in step.tools if BENCH.tools[t].effect.operation == "lookup")
