"""Each prompt parser reads back what its renderer wrote, for every skill and scenario of both benchmarks,
and the rendered text stays byte-identical (it is hashed into the artifact keys)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.benchmark.schema import Scenario, Skill
from skillbench.core.records import Rollout, RuleCheck
from skillbench.prompts.agent import (
    AGENT_HEADINGS,
    DEFAULT_ESCALATION,
    AgentPromptView,
    parse_agent_prompt,
    render_agent_prompt,
)
from skillbench.prompts.format import HEADING, OPTIONAL_MARK, StepView
from skillbench.prompts.judge import (
    JUDGE_HEADINGS,
    JUDGE_LABELS,
    CheckLine,
    JudgePromptView,
    TranscriptLine,
    parse_judge_prompt,
    parse_transcript,
    render_judge_prompt,
    render_transcript,
)
from skillbench.prompts.tool_result import (
    parse_tool_call_message,
    render_tool_block,
    render_tool_result_messages,
)
from skillbench.prompts.user import USER_HEADINGS, UserPromptView, parse_user_prompt, render_user_prompt
from tests.support.nonempty import nonempty
from tests.support.prompt_samples import (
    BENCHMARKS,
    STOP,
    digests,
    sample_checks,
    sample_rollout,
    skills_and_scenarios,
)

DIGESTS = Path(__file__).with_name("rendered_digests.json")


def _steps(skill: Skill, collects: bool) -> list[StepView]:
    return [
        StepView(index=index, kind=step.kind, instruction=step.instruction, tools=list(step.tools),
                 collects=list(step.collects) if collects else [], required=step.required)
        for index, step in enumerate(skill.steps, start=1)
    ]


def expected_agent_view(skill: Skill) -> AgentPromptView:
    return AgentPromptView(
        company=skill.company, skill=skill.name, capability=skill.capability, in_scope=list(skill.in_scope),
        workflow=skill.workflow, steps=_steps(skill, collects=True), success_criteria=list(skill.success_criteria),
        guardrails=list(skill.guardrails), escalation=skill.escalation or DEFAULT_ESCALATION,
    )


def expected_user_view(scenario: Scenario, skill: Skill) -> UserPromptView:
    persona = scenario.persona
    return UserPromptView(
        company=skill.company, label=persona.label, traits=list(persona.traits), style=persona.style,
        motivation=persona.motivation, examples=list(persona.example_utterances), objective=scenario.objective,
        facts=dict(scenario.user_facts), withheld=list(scenario.withheld_facts), behaviour=list(scenario.user_instructions),
        stop_marker=STOP,
    )


def expected_transcript(rollout: Rollout) -> list[TranscriptLine]:
    """The transcript's lines straight from the rollout (no rendering involved)."""
    records = {record.call_id: record for record in rollout.tool_calls}
    lines: list[TranscriptLine] = []
    for message in rollout.messages:
        if message.role == "user":
            lines.append(TranscriptLine(turn=message.turn, kind="caller", text=message.content or ""))
        elif message.role == "assistant":
            if message.content:
                lines.append(TranscriptLine(turn=message.turn, kind="agent", text=message.content))
            for call in message.tool_calls:
                arguments = call.raw_arguments if call.raw_arguments is not None else json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
                lines.append(TranscriptLine(turn=message.turn, kind="call", name=records[call.id].name, arguments=arguments))
        elif message.role == "tool":
            record = records[message.tool_call_id or ""]
            lines.append(TranscriptLine(turn=message.turn, kind="result", name=record.name,
                                        status="error" if record.is_error else "ok", text=message.content or ""))
    lines.append(TranscriptLine(kind="end", text=rollout.termination, detail=rollout.termination_detail))
    return lines


def expected_judge_view(skill: Skill, scenario: Scenario, rollout: Rollout, checks: list[RuleCheck]) -> JudgePromptView:
    return JudgePromptView(
        skill=skill.name, company=skill.company, capability=skill.capability, toolkit=list(skill.tools),
        steps=_steps(skill, collects=False), guardrails=list(skill.guardrails), objective=scenario.objective,
        path=scenario.path, expected_outcome=scenario.expected_outcome, forbidden_tools=list(scenario.forbidden_tools),
        success_criteria=list(scenario.success_criteria),
        # The prompt marks hardness on failed checks only.
        checks=[CheckLine(name=c.name, passed=c.passed, hard=c.hard and not c.passed, detail=c.detail) for c in checks],
        transcript=expected_transcript(rollout),
    )


def _missing_headings(text: str, headings: tuple[str, ...]) -> list[str]:
    lines = set(text.splitlines())
    return [heading for heading in headings if HEADING + heading not in lines]


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_agent_prompt_round_trip(benchmark: str) -> None:
    skills = {skill.id: skill for skill, _ in skills_and_scenarios(benchmark)}
    for skill in nonempty(skills.values(), "skills"):
        text = render_agent_prompt(skill)
        missing = _missing_headings(text, AGENT_HEADINGS)
        assert not missing, f"agent prompt of {skill.id} has no heading {missing} (prompts/agent.py template vs its constants)"
        assert parse_agent_prompt(text) == expected_agent_view(skill), skill.id
    assert any(OPTIONAL_MARK in render_agent_prompt(skill) for skill in skills.values())


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_user_prompt_round_trip(benchmark: str) -> None:
    for skill, scenario in nonempty(skills_and_scenarios(benchmark), "skills and scenarios"):
        text = render_user_prompt(scenario, skill, STOP)
        missing = [heading for heading in USER_HEADINGS if not any(line.startswith(HEADING + heading) for line in text.splitlines())]
        assert not missing, f"user prompt of {scenario.id} has no heading {missing} (prompts/user.py template vs its constants)"
        assert parse_user_prompt(text) == expected_user_view(scenario, skill), scenario.id


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_judge_prompt_round_trip(benchmark: str) -> None:
    for skill, scenario in skills_and_scenarios(benchmark):
        rollout, checks = sample_rollout(skill, scenario), sample_checks(scenario)
        text = render_judge_prompt(skill, scenario, rollout, checks)
        missing = _missing_headings(text, JUDGE_HEADINGS)
        missing += [label for label in JUDGE_LABELS if not any(line.startswith(label + ":") for line in text.splitlines())]
        assert not missing, f"judge prompt of {scenario.id} has no {missing} (prompts/judge.py template vs its constants)"
        assert parse_judge_prompt(text) == expected_judge_view(skill, scenario, rollout, checks), scenario.id
        assert parse_transcript(render_transcript(rollout)) == expected_transcript(rollout)


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_tool_result_prompt_round_trip(benchmark: str) -> None:
    from skillbench.benchmark import load_benchmark

    data = load_benchmark(benchmark)
    state = {"appointments": [{"id": "A-1", "note": "ünïcode, \"quoted\""}]}
    for tool in nonempty(data.tools.values(), "tools"):
        [_, user] = render_tool_result_messages(render_tool_block(tool), {"customer_id": "C-1"}, state)
        call = parse_tool_call_message(user["content"])
        assert call["tool"]["name"] == tool.name and call["tool"]["input_schema"] == tool.input_schema
        assert call["arguments"] == {"customer_id": "C-1"} and call["state"] == state


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_rendered_prompts_are_byte_identical_to_the_recorded_ones(benchmark: str) -> None:
    # Recorded with `python -m tests.support.prompt_samples`; a change here changes every key.
    recorded = json.loads(DIGESTS.read_text())[benchmark]
    now = digests(benchmark)
    changed = sorted(label for label in recorded.keys() | now.keys() if recorded.get(label) != now.get(label))
    assert not changed, f"{len(changed)} rendered prompts changed, e.g. {changed[:5]}"
