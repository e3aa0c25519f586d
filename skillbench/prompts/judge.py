"""The judge prompt: policy, scenario, rule-check results, the transcript and the rubric (JSON reply)."""

from __future__ import annotations

import json

from skillbench.benchmark.schema import Scenario, Skill
from skillbench.core.records import Rollout, RuleCheck
from skillbench.core.rubric import (
    DIMENSIONS,
    HALLUCINATION_GUIDANCE,
    OUTCOME_GUIDANCE,
    OUTPUT_KEYS,
    SCALE_GUIDANCE,
)

JUDGE_PROMPT_VERSION = "judge-v2"  # v2: optional steps are marked, as in the agent prompt



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
