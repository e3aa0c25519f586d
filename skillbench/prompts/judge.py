"""The judge prompt: policy, scenario, rule-check results, the transcript and the rubric (JSON reply)."""

from __future__ import annotations

import json
import re
from typing import Literal

from skillbench.benchmark.schema import Scenario, Skill
from skillbench.core.records import Rollout, RuleCheck
from skillbench.core.rubric import (
    DIMENSIONS,
    HALLUCINATION_GUIDANCE,
    OUTCOME_GUIDANCE,
    OUTPUT_KEYS,
    SCALE_GUIDANCE,
)
from skillbench.prompts.format import (
    LIST_SEPARATOR,
    NONE_ITEM,
    Record,
    StepView,
    bullet_lines,
    labelled,
    list_after,
    parse_step_line,
    render_step_line,
    sections,
)

JUDGE_PROMPT_VERSION = "judge-v2"  # v2: optional steps are marked, as in the agent prompt

# The template below spells these out; parse_judge_prompt finds the parts by them (tests/prompts checks both agree).
POLICY_SECTION = "Skill policy given to the agent"
SCENARIO_SECTION = "Scenario"
CHECKS_SECTION = "Deterministic rule checks"
TRANSCRIPT_SECTION = "Transcript"
RUBRIC_SECTION = "Rubric"
OUTPUT_SECTION = "Output"
JUDGE_HEADINGS = (POLICY_SECTION, SCENARIO_SECTION, CHECKS_SECTION, TRANSCRIPT_SECTION, RUBRIC_SECTION, OUTPUT_SECTION)
SKILL_LABEL = "Skill"
CAPABILITY_LABEL = "Capability"
TOOLKIT_LABEL = "Toolkit"
STEPS_LABEL = "Workflow steps"
GUARDRAILS_LABEL = "Guardrails"
OBJECTIVE_LABEL = "Caller's objective"
PATH_LABEL = "Path tested"
EXPECTED_LABEL = "Expected outcome"
FORBIDDEN_LABEL = "Tools that must not succeed in this scenario"
CRITERIA_LABEL = "Success criteria"
JUDGE_LABELS = (SKILL_LABEL, CAPABILITY_LABEL, TOOLKIT_LABEL, STEPS_LABEL, GUARDRAILS_LABEL, OBJECTIVE_LABEL, PATH_LABEL,
                EXPECTED_LABEL, FORBIDDEN_LABEL, CRITERIA_LABEL)

# Rule-check lines: '- name: passed' or '- name: FAILED (hard failure) — detail'.
CHECK_PASSED = "passed"
CHECK_FAILED = "FAILED"
HARD_MARK = " (hard failure)"
DETAIL_SEPARATOR = " — "

# Transcript lines: '[turn] <kind><body>'; the last is '[end] CONVERSATION ENDED: <termination>[ — detail]'.
CALLER_LINE = "CALLER: "
AGENT_LINE = "AGENT: "
CALL_LINE = "AGENT CALLS "
RESULT_LINE = "TOOL RESULT "
END_TURN = "end"
END_LINE = "CONVERSATION ENDED: "



def render_rubric() -> str:
    """The rubric section of the judge prompt, rendered from :mod:`skillbench.core.rubric`."""
    outcomes = ";\n".join(f"  {name} — {text}" for name, text in OUTCOME_GUIDANCE.items())
    scores = "\n".join(f"{d.name} ({d.low}-{d.high}): {d.guidance}" for d in DIMENSIONS)
    return (
        f"task_completion: one of\n{outcomes}.\n{scores}\n"
        f"hallucinated_action (true/false): {HALLUCINATION_GUIDANCE}\nScores: {SCALE_GUIDANCE}"
    )


RUBRIC = render_rubric()


def render_transcript(rollout: Rollout) -> str:
    """The conversation as numbered lines; tool calls and results inline. Shared by judges and reports."""
    lines: list[str] = []
    results = {record.call_id: record for record in rollout.tool_calls}
    for message in rollout.messages:
        if message.role == "system":
            continue
        if message.role == "user":
            lines.append(f"[{message.turn}] {CALLER_LINE}{message.content or ''}")
        elif message.role == "assistant":
            if message.content:
                lines.append(f"[{message.turn}] {AGENT_LINE}{message.content}")
            for call in message.tool_calls:
                args = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True) if call.raw_arguments is None else call.raw_arguments
                # The catalogue name (scheduling.update_event), not the provider-safe alias the agent saw.
                name = results[call.id].name if call.id in results else call.name
                lines.append(f"[{message.turn}] {CALL_LINE}{name} {args}")
        elif message.role == "tool":
            record = results.get(message.tool_call_id or "")
            status = "error" if record is not None and record.is_error else "ok"
            name = record.name if record is not None else message.name
            lines.append(f"[{message.turn}] {RESULT_LINE}{name} ({status}): {message.content or ''}")
    detail = f"{DETAIL_SEPARATOR}{rollout.termination_detail}" if rollout.termination_detail else ""
    lines.append(f"[{END_TURN}] {END_LINE}{rollout.termination}{detail}")
    return "\n".join(lines)


def render_judge_prompt(skill: Skill, scenario: Scenario, rollout: Rollout, checks: list[RuleCheck]) -> str:
    """Everything a judge sees. It never names the model that produced the transcript."""
    steps = "\n".join(
        render_step_line(index, step.kind, step.instruction, step.tools, required=step.required)
        for index, step in enumerate(skill.steps, start=1)
    )
    guardrails = "\n".join(f"- {item}" for item in skill.guardrails)
    criteria = "\n".join(f"- {item}" for item in scenario.success_criteria)
    check_lines = "\n".join(
        f"- {check.name}: {CHECK_PASSED if check.passed else CHECK_FAILED + (HARD_MARK if check.hard else '')}"
        + (f"{DETAIL_SEPARATOR}{check.detail}" if check.detail else "")
        for check in checks
    )
    return f"""You are an expert evaluator of customer-support conversations. Grade the AGENT (not the caller).

# Skill policy given to the agent
Skill: {skill.name} ({skill.company})
Capability: {skill.capability}
Toolkit: {", ".join(skill.tools)}
Workflow steps:
{steps}
Guardrails:
{guardrails}

# Scenario
Caller's objective: {scenario.objective}
Path tested: {scenario.path}
Expected outcome: {scenario.expected_outcome}
Tools that must not succeed in this scenario: {LIST_SEPARATOR.join(scenario.forbidden_tools) or NONE_ITEM}
Success criteria:
{criteria}

# Deterministic rule checks
{check_lines}

# Transcript
{render_transcript(rollout)}

# Rubric
{RUBRIC}

# Output
Reply with one JSON object and nothing else, with exactly these keys: {", ".join(OUTPUT_KEYS)}."""


class TranscriptLine(Record):
    """One line of :func:`render_transcript` (a message may span several text lines)."""

    turn: int | None = None  # None for the closing '[end]' line
    kind: Literal["caller", "agent", "call", "result", "end", "other"]
    text: str = ""  # caller/agent: the message; result: the tool's reply; end: the termination
    name: str = ""  # call/result: the tool
    arguments: str = ""  # call: the arguments as rendered (JSON, or the raw text the agent sent)
    status: Literal["ok", "error"] | None = None  # result
    detail: str = ""  # end: the termination detail


class CheckLine(Record):
    name: str
    passed: bool
    hard: bool  # stated for failed checks only
    detail: str = ""


class JudgePromptView(Record):
    """Everything :func:`render_judge_prompt` states, as :func:`parse_judge_prompt` reads it back."""

    skill: str
    company: str
    capability: str
    toolkit: list[str]
    steps: list[StepView]
    guardrails: list[str]
    objective: str
    path: str
    expected_outcome: str
    forbidden_tools: list[str]
    success_criteria: list[str]
    checks: list[CheckLine]
    transcript: list[TranscriptLine]


_TRANSCRIPT_ENTRY = re.compile(rf"^\[(?P<turn>\d+|{END_TURN})\] (?P<body>.*)$")
_RESULT = re.compile(rf"{re.escape(RESULT_LINE)}(?P<name>\S+) \((?P<status>ok|error)\): ?(?P<text>.*)", re.S)
_CHECK = re.compile(
    rf"^(?P<name>[^:]+):\s*(?P<status>{CHECK_PASSED}|{CHECK_FAILED})(?P<hard>{re.escape(HARD_MARK)})?"
    rf"(?:{DETAIL_SEPARATOR}(?P<detail>.*))?$"
)
_SKILL_LINE = re.compile(r"^(?P<skill>.*) \((?P<company>[^()]*)\)$")


def _transcript_line(turn: str, body: str) -> TranscriptLine:
    number = int(turn) if turn.isdigit() else None
    if body.startswith(END_LINE):
        termination, _, detail = body[len(END_LINE):].partition(DETAIL_SEPARATOR)
        return TranscriptLine(turn=number, kind="end", text=termination.strip(), detail=detail)
    if body.startswith(CALLER_LINE):
        return TranscriptLine(turn=number, kind="caller", text=body[len(CALLER_LINE):])
    if body.startswith(CALL_LINE):
        name, _, arguments = body[len(CALL_LINE):].partition(" ")
        return TranscriptLine(turn=number, kind="call", name=name, arguments=arguments)
    if body.startswith(AGENT_LINE):
        return TranscriptLine(turn=number, kind="agent", text=body[len(AGENT_LINE):])
    found = _RESULT.match(body)
    if found:
        return TranscriptLine(turn=number, kind="result", name=found["name"], status=found["status"], text=found["text"])
    return TranscriptLine(turn=number, kind="other", text=body)


def parse_transcript(block: str) -> list[TranscriptLine]:
    """The inverse of :func:`render_transcript`: one record per numbered line, in order."""
    raw: list[tuple[str, str]] = []
    for line in block.splitlines():
        found = _TRANSCRIPT_ENTRY.match(line)
        if found:
            raw.append((found["turn"], found["body"]))
        elif raw:  # a message that spans lines
            raw[-1] = (raw[-1][0], raw[-1][1] + "\n" + line)
    return [_transcript_line(turn, body) for turn, body in raw]


def _names(text: str) -> list[str]:
    return [] if text in {"", NONE_ITEM} else [name.strip() for name in text.split(",") if name.strip()]


def parse_judge_prompt(text: str) -> JudgePromptView:
    """The inverse of :func:`render_judge_prompt` (a missing part reads as empty)."""
    parts = sections(text)
    policy = parts.get(POLICY_SECTION, "")
    scenario = parts.get(SCENARIO_SECTION, "")
    skill_line = _SKILL_LINE.match(labelled(policy, SKILL_LABEL))
    checks = [
        CheckLine(name=found["name"], passed=found["status"] == CHECK_PASSED, hard=bool(found["hard"]), detail=found["detail"] or "")
        for line in bullet_lines(parts.get(CHECKS_SECTION, ""))
        if (found := _CHECK.match(line))
    ]
    return JudgePromptView(
        skill=skill_line["skill"] if skill_line else labelled(policy, SKILL_LABEL),
        company=skill_line["company"] if skill_line else "",
        capability=labelled(policy, CAPABILITY_LABEL),
        toolkit=_names(labelled(policy, TOOLKIT_LABEL)),
        steps=[step for line in list_after(policy, STEPS_LABEL) if (step := parse_step_line(line)) is not None],
        guardrails=list_after(policy, GUARDRAILS_LABEL),
        objective=labelled(scenario, OBJECTIVE_LABEL),
        path=labelled(scenario, PATH_LABEL),
        expected_outcome=labelled(scenario, EXPECTED_LABEL),
        forbidden_tools=_names(labelled(scenario, FORBIDDEN_LABEL)),
        success_criteria=list_after(scenario, CRITERIA_LABEL),
        checks=checks,
        transcript=parse_transcript(parts.get(TRANSCRIPT_SECTION, "")),
    )
