"""A tiny offline conversation loop for testing the SIMULATED models — not the engine's orchestrator.

It plays agent ⇄ user against the scenario's stateful mock tools (the tools package's state,
validation and failure injection, called directly rather than over MCP), applies the engine's rule
checks, asks a judge, and applies the pass rule. Models are called directly
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

import skillbench.simulated.profiles  # noqa: F401  (registers the simulated models)
from skillbench.benchmark import Benchmark, Scenario, Skill, ToolSpec, load_benchmark
from skillbench.benchmark.state import EnvironmentState
from skillbench.config.schema import MockConfig, ModelConfig, PassRuleConfig
from skillbench.core.errors import ToolError
from skillbench.core.records import Message, Rollout, RuleCheck, ToolCall, ToolCallRecord
from skillbench.core.rubric import JudgeScores
from skillbench.evaluation.pass_rule import apply_pass_rule
from skillbench.evaluation.records import PassDecision
from skillbench.evaluation.rules import run_rule_checks
from skillbench.prompts import (
    CONTROL_TOOL_DEFINITIONS,
    END_CONVERSATION,
    TRANSFER_TO_HUMAN,
    render_agent_prompt,
    render_judge_prompt,
    render_opening_instruction,
    render_user_prompt,
)
from skillbench.simulated import SIM_MODELS, SimRequest
from skillbench.simulated.reading import tool_key
from skillbench.tools import ArgumentValidator
from skillbench.tools.failures import FailureInjector
from skillbench.tools.toolkit import mcp_tool, openai_tool

STOP = "###STOP###"
PAPER_RULE = PassRuleConfig(name="paper")
AGENTS = ("agent-careful", "agent-sloppy", "agent-reckless")
JUDGES = ("judge-balanced", "judge-strict", "judge-lenient")


def openai_tools(benchmark: Benchmark, skill: Skill) -> list[dict[str, Any]]:
    """The tools the engine offers an agent: the skill's toolkit (OpenAI-safe names), then the control tools."""
    return [openai_tool(mcp_tool(spec)) for spec in benchmark.toolkit(skill)] + copy.deepcopy(CONTROL_TOOL_DEFINITIONS)


class FakeTools:
    """The scenario's stateful mocks, synchronously: validation, the scenario's own failures, then the state.

    The same pieces as :class:`~skillbench.tools.server.MockToolServer` (default mock config), minus MCP.
    """

    def __init__(self, benchmark: Benchmark, skill: Skill, scenario: Scenario, seed: int = 0) -> None:
        self.specs: dict[str, ToolSpec] = {spec.name: spec for spec in benchmark.toolkit(skill)}
        self.validator = ArgumentValidator(self.specs.values())
        self.failures = FailureInjector(MockConfig(name="harness"), scenario, seed)
        self.environment = EnvironmentState.from_scenario(scenario)
        self.index = 0

    @property
    def state(self) -> dict[str, list[dict[str, Any]]]:
        return self.environment.snapshot()

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        """(is_error, text) of one call."""
        spec = self.specs.get(tool_key(name))
        if spec is None:
            return True, f"Unknown tool {name!r}."
        self.index += 1
        try:
            self.validator.check(spec.name, arguments)
            if self.failures.decide(spec.name, self.index - 1) is not None:
                return True, self.failures.message
            return False, json.dumps(self.environment.apply(spec.effect, arguments))
        except ToolError as error:
            return True, error.message


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
    executor = FakeTools(benchmark, skill, scenario, seed)
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


def judge(benchmark: Benchmark, scenario: Scenario, rollout: Rollout, checks: list[RuleCheck], judge_model: str, seed: int = 0,
          call: Caller = direct_call) -> JudgeScores:
    prompt = render_judge_prompt(benchmark.skill_of(scenario), scenario, rollout, checks)
    content, _ = call(judge_model, [{"role": "user", "content": prompt}], [], seed)
    return JudgeScores.model_validate_json(content or "")


def evaluate(benchmark: Benchmark, scenario: Scenario, agent: str, judges: tuple[str, ...] = JUDGES, seed: int = 0) -> Outcome:
    rollout = converse(benchmark, scenario, agent, seed)
    checks = run_rule_checks(rollout, scenario, benchmark.skill_of(scenario))
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
