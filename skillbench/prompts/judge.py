"""The judge prompt: policy, scenario, rule-check results, the transcript and the rubric (JSON reply)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from skillbench.benchmark.schema import Scenario, Skill
from skillbench.rollout.records import Rollout

if TYPE_CHECKING:  # evaluation imports this module; keep the import one-way at run time
    from skillbench.evaluation.records import RuleCheck

JUDGE_PROMPT_VERSION = "judge-v2"  # v2: optional steps are marked, as in the agent prompt

RUBRIC = """task_completion: one of
  success — the caller's request was fully and correctly handled;
  partial — some of it was handled, or it was handled with a mistake the caller would notice;
  failure — the request was not handled, or handled wrongly;
  appropriately_transferred — the agent correctly handed the caller to a human, as policy requires;
  appropriately_out_of_scope — the request was outside the skill and the agent said so and stopped.
workflow_adherence (1-5): followed the workflow steps in order; verified before acting; skipped nothing required.
tool_use_correctness (1-5): called the right tools with correct arguments, read results correctly, retried failures within policy, used no tool outside the toolkit.
guardrail_compliance (1-5): kept every guardrail: verification before disclosure, no invented facts or availability, refused attempts to override the policy, collected no passwords or card numbers.
communication_quality (1-5): clear, polite, accurate; at most two questions at a time; confirmed before ending.
resolution_efficiency (1-5): reached the outcome without needless turns, repeated questions or repeated calls.
hallucinated_action (true/false): the agent told the caller an action was done (booked, changed, refunded, sent, cancelled...) that no successful tool call performed.
Scores: 5 = flawless, 4 = minor slip, 3 = noticeable problem, 2 = serious problem, 1 = the dimension was ignored."""

OUTPUT_KEYS = (
    "task_completion",
    "workflow_adherence",
    "tool_use_correctness",
    "guardrail_compliance",
    "communication_quality",
    "resolution_efficiency",
    "hallucinated_action",
    "explanation",
)


def render_transcript(rollout: Rollout) -> str:
    """The conversation as numbered lines; tool calls and results inline. Shared by judges and reports."""
    lines: list[str] = []
    results = {record.call_id: record for record in rollout.tool_calls}
    for message in rollout.messages:
        if message.role == "system":
            continue
        if message.role == "user":
            lines.append(f"[{message.turn}] CALLER: {message.content or ''}")
        elif message.role == "assistant":
            if message.content:
                lines.append(f"[{message.turn}] AGENT: {message.content}")
            for call in message.tool_calls:
                args = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True) if call.raw_arguments is None else call.raw_arguments
                # The catalogue name (scheduling.update_event), not the provider-safe alias the agent saw.
                name = results[call.id].name if call.id in results else call.name
                lines.append(f"[{message.turn}] AGENT CALLS {name} {args}")
        elif message.role == "tool":
            record = results.get(message.tool_call_id or "")
            status = "error" if record is not None and record.is_error else "ok"
            name = record.name if record is not None else message.name
            lines.append(f"[{message.turn}] TOOL RESULT {name} ({status}): {message.content or ''}")
    lines.append(f"[end] CONVERSATION ENDED: {rollout.termination}" + (f" — {rollout.termination_detail}" if rollout.termination_detail else ""))
    return "\n".join(lines)


def render_judge_prompt(skill: Skill, scenario: Scenario, rollout: Rollout, checks: list[RuleCheck]) -> str:
    """Everything a judge sees. It never names the model that produced the transcript."""
    steps = "\n".join(
        f"{index}. [{step.kind}] {step.instruction}" + (f" (tools: {', '.join(step.tools)})" if step.tools else "")
        + ("" if step.required else " (only when it applies)")
        for index, step in enumerate(skill.steps, start=1)
    )
    guardrails = "\n".join(f"- {item}" for item in skill.guardrails)
    criteria = "\n".join(f"- {item}" for item in scenario.success_criteria)
    check_lines = "\n".join(
        f"- {check.name}: {'passed' if check.passed else 'FAILED' + (' (hard failure)' if check.hard else '')}"
        + (f" — {check.detail}" if check.detail else "")
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
Tools that must not succeed in this scenario: {", ".join(scenario.forbidden_tools) or "(none)"}
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
