"""The agent's system prompt: the skill policy (the paper's parts) and how to end a conversation."""

from __future__ import annotations

from typing import Any

from skillbench.benchmark.schema import Skill

AGENT_PROMPT_VERSION = "agent-v1"

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
        f"{index}. [{step.kind}] {step.instruction}"
        + (f" (tools: {', '.join(step.tools)})" if step.tools else "")
        + (f" (ask for: {', '.join(step.collects)})" if step.collects else "")
        + ("" if step.required else " (only when it applies)")
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
{skill.escalation or "If you cannot complete the request under this policy, transfer the caller to a human."}

# Ending the conversation
- When the request is handled (or refused under policy), confirm with the caller, then call `{END_CONVERSATION}` with outcome "resolved".
- When the request is outside this skill, say so politely and call `{END_CONVERSATION}` with outcome "out_of_scope".
- When a human must take over, call `{TRANSFER_TO_HUMAN}` with the reason.
Use only the tools you are given. Never claim an action that a tool call did not perform."""
