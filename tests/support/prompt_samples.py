"""Every prompt the benchmarks render, for round-trip and byte-identity tests of :mod:`skillbench.prompts`.

A judge prompt needs a transcript: :func:`sample_rollout` builds one per scenario from its own data
(opening, a call of each skill tool with an ok or error result, a reply, the ending), so every line
format of the transcript appears.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator

from skillbench.benchmark import load_benchmark
from skillbench.benchmark.schema import Scenario, Skill
from skillbench.core.records import Message, Rollout, RuleCheck, ToolCall, ToolCallRecord

BENCHMARKS = ("starter", "full")
STOP = "###STOP###"


def skills_and_scenarios(name: str) -> Iterator[tuple[Skill, Scenario]]:
    benchmark = load_benchmark(name)
    for scenario in benchmark.scenarios:
        yield benchmark.skills[scenario.skill_id], scenario


def sample_checks(scenario: Scenario) -> list[RuleCheck]:
    return [
        RuleCheck(name="verified_first", passed=True, hard=True),
        RuleCheck(name="no_forbidden_tool", passed=not scenario.forbidden_tools, hard=True, detail="a detail — with a dash"),
        RuleCheck(name="retries", passed=False, hard=False),
    ]


def sample_rollout(skill: Skill, scenario: Scenario) -> Rollout:
    messages = [Message(role="system", content="(agent prompt)"), Message(role="user", content=scenario.objective, turn=0)]
    records: list[ToolCallRecord] = []
    for index, name in enumerate(skill.tools, start=1):
        call = ToolCall(id=f"c{index}", name=name.replace(".", "__", 1), arguments=dict(list(scenario.user_facts.items())[:2]),
                        raw_arguments="{not json" if index == 3 else None)
        text = f"Sure, one moment.\nChecking {name}." if index == 1 else None
        messages.append(Message(role="assistant", content=text, tool_calls=[call], turn=index))
        is_error = index % 2 == 0
        result = json.dumps({"error": "timeout"}) if is_error else json.dumps({"records": [], "count": 0})
        messages.append(Message(role="tool", content=result, tool_call_id=call.id, name=call.name, turn=index))
        records.append(ToolCallRecord(turn=index, call_id=call.id, name=name, arguments=call.arguments, offered=True,
                                      is_error=is_error, result=result))
    messages.append(Message(role="assistant", content="All set. Is there anything else?", turn=len(skill.tools) + 1))
    return Rollout(key="k", scenario_id=scenario.id, skill_id=skill.id, agent="a", messages=messages, tool_calls=records,
                   termination="transferred" if scenario.path == "transfer" else "resolved",
                   termination_detail="caller asked" if scenario.path == "transfer" else "")


def rendered_prompts(name: str) -> Iterator[tuple[str, str]]:
    """(label, text) of every agent, user and judge prompt of a benchmark (agent prompts once per skill)."""
    from skillbench.prompts import render_agent_prompt, render_judge_prompt, render_user_prompt

    seen: set[str] = set()
    for skill, scenario in skills_and_scenarios(name):
        if skill.id not in seen:
            seen.add(skill.id)
            yield f"agent/{skill.id}", render_agent_prompt(skill)
        yield f"user/{scenario.id}", render_user_prompt(scenario, skill, STOP)
        yield f"judge/{scenario.id}", render_judge_prompt(skill, scenario, sample_rollout(skill, scenario), sample_checks(scenario))


def digests(name: str) -> dict[str, str]:
    return {label: hashlib.sha256(text.encode()).hexdigest()[:16] for label, text in rendered_prompts(name)}


if __name__ == "__main__":  # python -m tests.support.prompt_samples > tests/prompts/rendered_digests.json
    print(json.dumps({name: digests(name) for name in BENCHMARKS}, indent=0, sort_keys=True))
