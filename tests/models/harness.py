"""A tiny offline conversation loop for testing the SIMULATED models — not the engine's orchestrator.

It plays agent ⇄ user with a fake stateful tool executor computed here from the scenario, applies a
few rule checks, asks a judge, and applies the pass rule. Models are called directly
(``SIM_MODELS.get(name)(SimRequest)``) for speed, or through litellm with ``via_litellm=True``.

Run ``python -m tests.models.harness`` for the pass-rate table of every simulated agent × judge.
"""

from __future__ import annotations

import asyncio
import copy
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import skillbench.models.simulated.profiles  # noqa: F401  (registers the simulated models)
from skillbench.benchmark import Benchmark, Scenario, Skill, ToolSpec, load_benchmark
from skillbench.config.schema import ModelConfig, PassRuleConfig
from skillbench.evaluation.pass_rule import apply_pass_rule
from skillbench.evaluation.records import JudgeScores, PassDecision, RuleCheck
from skillbench.models.simulated import SIM_MODELS, SimRequest
from skillbench.models.simulated.reading import tool_key
from skillbench.prompts import (
    CONTROL_TOOL_DEFINITIONS,
    END_CONVERSATION,
    TRANSFER_TO_HUMAN,
    render_agent_prompt,
    render_judge_prompt,
    render_opening_instruction,
    render_user_prompt,
)
from skillbench.rollout.records import Message, Rollout, ToolCall, ToolCallRecord

STOP = "###STOP###"
PAPER_RULE = PassRuleConfig(name="paper")
AGENTS = ("agent-careful", "agent-sloppy", "agent-reckless")
JUDGES = ("judge-balanced", "judge-strict", "judge-lenient")


def openai_name(name: str) -> str:
    return name.replace(".", "__")


def openai_tools(benchmark: Benchmark, skill: Skill) -> list[dict[str, Any]]:
    tools = [
        {"type": "function", "function": {"name": openai_name(spec.name), "description": spec.description, "parameters": spec.input_schema}}
        for spec in benchmark.toolkit(skill)
    ]
    return tools + copy.deepcopy(CONTROL_TOOL_DEFINITIONS)


class FakeTools:
    """Stateful answers from the scenario's environment (the benchmark format's ToolEffect rules)."""

    def __init__(self, benchmark: Benchmark, skill: Skill, scenario: Scenario) -> None:
        self.specs: dict[str, ToolSpec] = {spec.name: spec for spec in benchmark.toolkit(skill)}
        self.state = copy.deepcopy(scenario.initial_state)
        self.failures = dict(scenario.tool_failures)
        self.counts: dict[str, int] = {}

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        """(is_error, text) of one call."""
        spec = self.specs.get(tool_key(name))
        if spec is None:
            return True, f"Unknown tool {name!r}."
        schema = spec.input_schema
        problems = [f"'{arg}' is a required property" for arg in schema.get("required", []) if arg not in arguments]
        problems += [f"unexpected argument '{arg}'" for arg in arguments if arg not in schema.get("properties", {})]
        if problems:
            return True, f"Invalid arguments for {spec.name}: {'; '.join(problems)}"
        seen = self.counts[spec.name] = self.counts.get(spec.name, 0) + 1
        if seen <= self.failures.get(spec.name, 0):
            return True, "Service temporarily unavailable (HTTP 503). Please retry."
        try:
            return False, json.dumps(self._effect(spec, arguments))
        except LookupError as exc:
            return True, str(exc)

    def _effect(self, spec: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
        effect = spec.effect
        records = self.state.setdefault(effect.collection or "_", [])
        pairs = [(fieldname, str(arguments[arg])) for fieldname, arg in effect.match.items() if arg in arguments]
        found = [r for r in records if all(fieldname in r and str(r[fieldname]) == value for fieldname, value in pairs)]
        written = {fieldname: arguments[arg] for fieldname, arg in effect.set.items() if arg in arguments}
        written.update(effect.set_const)
        operation = effect.operation
        if operation == "lookup":
            return {"records": copy.deepcopy(found), "count": len(found)}
        if operation == "verify":
            if not found or not pairs:
                return {"verified": False}
            return {"verified": True, **{f: found[0][f] for f in effect.returns if f in found[0]}}
        if operation == "create":
            record = {effect.id_field: f"{effect.id_prefix}-{len(records) + 1}"} if effect.id_field else {}
            record.update(written)
            records.append(record)
            return copy.deepcopy(record)
        if operation == "action":
            records.append({**arguments, **effect.result})
            return {**effect.result, **{n: arguments[n] for n in effect.returns if n in arguments}}
        if len(found) != 1:
            raise LookupError(f"Not found: no {effect.collection} record matches the given keys.")
        if operation == "get":
            return copy.deepcopy(found[0])
        if operation == "delete":
            records.remove(found[0])
            return {"deleted": True, "record": found[0]}
        found[0].update(written)
        return copy.deepcopy(found[0])


@dataclass
class Outcome:
    rollout: Rollout
    checks: list[RuleCheck]
    verdicts: dict[str, JudgeScores] = field(default_factory=dict)
    decisions: dict[str, PassDecision] = field(default_factory=dict)


Caller = Callable[[str, list[dict[str, Any]], list[dict[str, Any]], int], tuple[str | None, list[dict[str, Any]]]]


def direct_call(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], seed: int) -> tuple[str | None, list[dict[str, Any]]]:
    """Call a registered simulated model without litellm: (content, OpenAI-shaped tool calls)."""
    request = SimRequest(model=model, messages=copy.deepcopy(messages), tools=tools, seed=seed)
    reply = SIM_MODELS.get(model)(request)
    calls = [
        {"id": f"call_{index}_{len(messages)}", "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
        for index, c in enumerate(reply.tool_calls)
    ]
    return reply.content, calls


def litellm_call(model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], seed: int) -> tuple[str | None, list[dict[str, Any]]]:
    """The same through skillbench's ModelClient and litellm's custom provider."""
    from skillbench.models import ModelClient

    client = ModelClient(ModelConfig(name=model, model=f"skillbench_sim/{model}", simulated=True), seed=seed)
    completion = asyncio.run(client.complete(messages, tools=tools or None))
    calls = [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
        for c in completion.tool_calls
    ]
    return completion.content, calls


def converse(benchmark: Benchmark, scenario: Scenario, agent: str, seed: int = 0, max_turns: int = 24, call: Caller = direct_call) -> Rollout:
    """One conversation: the agent speaks after each caller message and after each batch of tool results."""
    skill = benchmark.skill_of(scenario)
    tools = openai_tools(benchmark, skill)
    executor = FakeTools(benchmark, skill, scenario)
    agent_messages: list[dict[str, Any]] = [{"role": "system", "content": render_agent_prompt(skill)}]
    user_messages: list[dict[str, Any]] = [
        {"role": "system", "content": render_user_prompt(scenario, skill, STOP)},
        {"role": "user", "content": render_opening_instruction()},
    ]
    record: list[Message] = [Message(role="system", content=agent_messages[0]["content"])]
    calls: list[ToolCallRecord] = []
    offered = {spec.name for spec in benchmark.toolkit(skill)}
    turn = 0
    termination, detail = "max_turns", ""

    def caller_says() -> str | None:
        text, _ = call("user", user_messages, [], seed)
        text = (text or "").strip()
        if text == STOP or not text:
            return None
        user_messages.append({"role": "assistant", "content": text})
        agent_messages.append({"role": "user", "content": text})
        record.append(Message(role="user", content=text, turn=turn))
        return text

    if caller_says() is None:
        termination = "user_ended"
    else:
        while turn < max_turns:
            turn += 1
            content, tool_calls = call(agent, agent_messages, tools, seed)
            agent_messages.append({"role": "assistant", "content": content, **({"tool_calls": tool_calls} if tool_calls else {})})
            parsed = [ToolCall(id=c["id"], name=c["function"]["name"], arguments=json.loads(c["function"]["arguments"])) for c in tool_calls]
            record.append(Message(role="assistant", content=content, tool_calls=parsed, turn=turn))
            ended = None
            for tc in parsed:
                name = tool_key(tc.name)
                if name in (END_CONVERSATION, TRANSFER_TO_HUMAN):
                    outcome = tc.arguments.get("outcome", "resolved")
                    ended = "transferred" if name == TRANSFER_TO_HUMAN else ("out_of_scope" if outcome == "out_of_scope" else "resolved")
                    calls.append(ToolCallRecord(turn=turn, call_id=tc.id, name=name, arguments=tc.arguments, offered=True, is_error=False, result="ok", control=True))
                    detail = str(tc.arguments.get("summary") or tc.arguments.get("reason") or "")
                    break
                is_error, text = executor.call(tc.name, tc.arguments)
                calls.append(ToolCallRecord(turn=turn, call_id=tc.id, name=name, arguments=tc.arguments, offered=name in offered, is_error=is_error, result=text))
                agent_messages.append({"role": "tool", "tool_call_id": tc.id, "name": tc.name, "content": text})
                record.append(Message(role="tool", content=text, tool_call_id=tc.id, name=name, turn=turn))
            if ended:
                termination = ended
                break
            if parsed:
                continue  # the agent reads the results before the caller speaks
            user_messages.append({"role": "user", "content": content or ""})
            if caller_says() is None:
                termination = "user_ended"
                break
    return Rollout(
        key=f"{scenario.id}-{agent}-{seed}", scenario_id=scenario.id, skill_id=skill.id, agent=agent, messages=record,
        tool_calls=calls, offered_tools=sorted(offered), termination=termination, termination_detail=detail, turns=turn,
        final_state=executor.state,
    )


def rule_checks(scenario: Scenario, rollout: Rollout) -> list[RuleCheck]:
    """A few deterministic checks in the spirit of the engine's (not its implementation)."""
    attempted = {c.name for c in rollout.tool_calls if not c.control}
    succeeded = {c.name for c in rollout.tool_calls if not c.control and not c.is_error}
    outside = sorted({c.name for c in rollout.tool_calls if not c.control and not c.offered})
    missing = [t for t in scenario.required_tools if t not in attempted]
    forbidden = [t for t in scenario.forbidden_tools if t in succeeded]
    return [
        RuleCheck(name="required_tools_invoked", passed=not missing, hard=False, detail=f"missing: {', '.join(missing)}" if missing else ""),
        RuleCheck(name="no_out_of_toolkit_calls", passed=not outside, hard=True, detail=", ".join(outside)),
        RuleCheck(name="forbidden_tools_not_successful", passed=not forbidden, hard=True, detail=", ".join(forbidden)),
        RuleCheck(name="termination_reached", passed=rollout.termination in {"resolved", "transferred", "out_of_scope", "user_ended"}, hard=True, detail=rollout.termination),
    ]


def judge(benchmark: Benchmark, scenario: Scenario, rollout: Rollout, checks: list[RuleCheck], judge_model: str, seed: int = 0,
          call: Caller = direct_call) -> JudgeScores:
    prompt = render_judge_prompt(benchmark.skill_of(scenario), scenario, rollout, checks)
    content, _ = call(judge_model, [{"role": "user", "content": prompt}], [], seed)
    return JudgeScores.model_validate_json(content or "")


def evaluate(benchmark: Benchmark, scenario: Scenario, agent: str, judges: tuple[str, ...] = JUDGES, seed: int = 0) -> Outcome:
    rollout = converse(benchmark, scenario, agent, seed)
    checks = rule_checks(scenario, rollout)
    outcome = Outcome(rollout, checks)
    for name in judges:
        scores = judge(benchmark, scenario, rollout, checks, name, seed)
        outcome.verdicts[name] = scores
        outcome.decisions[name] = apply_pass_rule(checks, scores, PAPER_RULE)
    return outcome


def cohen_kappa(a: list[bool], b: list[bool]) -> float:
    n = len(a)
    if n == 0:
        return 1.0
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    return 1.0 if expected == 1 else (observed - expected) / (1 - expected)


def grid(source: str = "starter", seeds: tuple[int, ...] = (0,)) -> dict[str, dict[str, list[bool]]]:
    """agent → judge → verdicts (passed?) over every scenario and seed."""
    benchmark = load_benchmark(source)
    table: dict[str, dict[str, list[bool]]] = {a: {j: [] for j in JUDGES} for a in AGENTS}
    for agent in AGENTS:
        for seed in seeds:
            for scenario in benchmark.scenarios:
                outcome = evaluate(benchmark, scenario, agent, seed=seed)
                for name, decision in outcome.decisions.items():
                    table[agent][name].append(bool(decision.passed))
    return table


def show(rollout: Rollout) -> str:
    lines = []
    for m in rollout.messages[1:]:
        if m.content:
            lines.append(f"[{m.turn}] {m.role.upper()}: {m.content}")
        for c in m.tool_calls:
            lines.append(f"[{m.turn}]   CALL {c.name} {json.dumps(c.arguments)}")
    lines.append(f"END: {rollout.termination} {rollout.termination_detail}")
    return "\n".join(lines)


if __name__ == "__main__":
    seeds = tuple(range(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
    results = grid(seeds=seeds)
    print(f"{'agent':16}" + "".join(f"{j:>16}" for j in JUDGES))
    for agent, row in results.items():
        print(f"{agent:16}" + "".join(f"{sum(v) / len(v):16.2f}" for v in row.values()))
    every = {j: [x for a in AGENTS for x in results[a][j]] for j in JUDGES}
    for i, a in enumerate(JUDGES):
        for b in JUDGES[i + 1:]:
            print(f"kappa {a} vs {b}: {cohen_kappa(every[a], every[b]):.2f}")
