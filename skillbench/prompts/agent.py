"""The agent's system prompt: the skill policy (the paper's parts) and how to end a conversation."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from pydantic import Field

from skillbench.benchmark.schema import Skill
from skillbench.prompts.format import (
    Record,
    StepView,
    bullet_lines,
    parse_step_line,
    render_step_line,
    sections,
)

AGENT_PROMPT_VERSION = "agent-v1"

# The template below spells these out; parse_agent_prompt finds the parts by them (tests/prompts checks both agree).
AGENT_OPENING = "You are a customer-support agent for {company}, handling one skill: {skill}."
CAPABILITY = "Capability"
IN_SCOPE = "In scope"
WORKFLOW = "Workflow"
WORKFLOW_STEPS = "Workflow steps"
SUCCESS_CRITERIA = "Success criteria"
GUARDRAILS = "Guardrails"
ESCALATION = "Escalation"
ENDING = "Ending the conversation"
AGENT_HEADINGS = (CAPABILITY, IN_SCOPE, WORKFLOW, WORKFLOW_STEPS, SUCCESS_CRITERIA, GUARDRAILS, ESCALATION, ENDING)
DEFAULT_ESCALATION = "If you cannot complete the request under this policy, transfer the caller to a human."

END_CONVERSATION = "end_conversation"
TRANSFER_TO_HUMAN = "transfer_to_human"
CONTROL_TOOLS: frozenset[str] = frozenset({END_CONVERSATION, TRANSFER_TO_HUMAN})

# Engine-provided tools, offered next to the skill's MCP tools so every agent ends a conversation the same way.
CONTROL_TOOL_DEFINITIONS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": END_CONVERSATION,
            "description": "End the conversation. Use 'resolved' when the caller's request is handled or "
            "refused under policy, 'out_of_scope' when the request is outside this skill.",
            "parameters": {
                "type": "object",
                "properties": {
                    "outcome": {"type": "string", "enum": ["resolved", "out_of_scope"]},
                    "summary": {"type": "string", "description": "One sentence on how the conversation ended."},
                },
                "required": ["outcome"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": TRANSFER_TO_HUMAN,
            "description": "Hand the caller to a human agent, with a short reason. Ends the conversation.",
            "parameters": {
                "type": "object",
                "properties": {"reason": {"type": "string"}},
                "required": ["reason"],
                "additionalProperties": False,
            },
        },
    },
]


def render_agent_prompt(skill: Skill) -> str:
    """The system prompt of the agent under test. Rendered once per scenario."""
    steps = "\n".join(
        render_step_line(index, step.kind, step.instruction, step.tools, step.collects, step.required,
                         [(way.tools, way.collects, way.when) for way in step.alternatives])
        for index, step in enumerate(skill.steps, start=1)
    )
    criteria = "\n".join(f"- {item}" for item in skill.success_criteria)
    guardrails = "\n".join(f"- {item}" for item in skill.guardrails)
    in_scope = "\n".join(f"- {item}" for item in skill.in_scope) or "- (see capability)"
    return f"""You are a customer-support agent for {skill.company}, handling one skill: {skill.name}.

# Capability
{skill.capability}

# In scope
{in_scope}

# Workflow
{skill.workflow}

# Workflow steps
{steps}

# Success criteria
{criteria}

# Guardrails
{guardrails}

# Escalation
{skill.escalation or DEFAULT_ESCALATION}

# Ending the conversation
- When the request is handled (or refused under policy), confirm with the caller, then call `{END_CONVERSATION}` with outcome "resolved".
- When the request is outside this skill, say so politely and call `{END_CONVERSATION}` with outcome "out_of_scope".
- When a human must take over, call `{TRANSFER_TO_HUMAN}` with the reason.
Use only the tools you are given. Never claim an action that a tool call did not perform."""


CHECKLIST = "Checklist"
CHECKLIST_INTRO = "Before you end the conversation, make sure every item that applies is done:"


def render_checklist(items: list[str]) -> str:
    """A checklist section an agent program may append to the agent prompt (the plan-then-act example does)."""
    return f"\n\n# {CHECKLIST}\n{CHECKLIST_INTRO}\n" + "\n".join(f"- {item}" for item in items)


def split_checklist(prompt: str) -> tuple[str, list[str]]:
    """The agent prompt without its appended checklist section, and the checklist's items ([] when none)."""
    marker = f"\n\n# {CHECKLIST}\n"
    at = prompt.find(marker)
    if at < 0:
        return prompt, []
    return prompt[:at], bullet_lines(prompt[at + len(marker):])


class AgentPromptView(Record):
    """The skill as the agent's system prompt states it: what :func:`parse_agent_prompt` reads back."""

    company: str
    skill: str
    capability: str
    in_scope: list[str]
    workflow: str
    steps: list[StepView]
    success_criteria: list[str]
    guardrails: list[str]
    escalation: str
    checklist: list[str] = Field(default_factory=list, description="An appended checklist's items (agent programs).")


_OPENING = re.compile(
    re.escape(AGENT_OPENING).replace(re.escape("{company}"), "(?P<company>.+?)").replace(re.escape("{skill}"), "(?P<skill>.+?)")
    .removesuffix(re.escape(".")) + r"\.\s*$"
)


# Cached by text: every call of a conversation, and every conversation of a skill, sends the same prompt.
@lru_cache(maxsize=256)
def parse_agent_prompt(text: str) -> AgentPromptView:
    """The inverse of :func:`render_agent_prompt` (a missing part reads as empty)."""
    parts = sections(text)
    opening = _OPENING.search(text.split("\n", 1)[0])
    steps = [step for line in parts.get(WORKFLOW_STEPS, "").splitlines() if (step := parse_step_line(line)) is not None]
    return AgentPromptView(
        company=opening.group("company") if opening else "",
        skill=opening.group("skill") if opening else "",
        capability=parts.get(CAPABILITY, "").strip(),
        in_scope=bullet_lines(parts.get(IN_SCOPE, "")),
        workflow=parts.get(WORKFLOW, "").strip(),
        steps=steps,
        success_criteria=bullet_lines(parts.get(SUCCESS_CRITERIA, "")),
        guardrails=bullet_lines(parts.get(GUARDRAILS, "")),
        escalation=parts.get(ESCALATION, "").strip(),
        checklist=split_checklist(text)[1],
    )
