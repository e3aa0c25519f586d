"""The SIMULATED models behind the example agent programs: a planner (a checklist from the policy's workflow
steps) and a checker (are the draft's claimed actions backed by successful tool calls?)."""

from __future__ import annotations

from skillbench.prompts.agent import parse_agent_prompt
from skillbench.prompts.agent_programs import CheckVerdict, parse_check_request
from skillbench.simulated.base import SIM_MODELS, SimReply, SimRequest
from skillbench.simulated.phrasing import HANDLED, claim_group, claimed_actions, participle, tool_verb


def _last_user(request: SimRequest) -> str:
    return next((str(m.get("content") or "") for m in reversed(request.messages) if m.get("role") == "user"), "")


@SIM_MODELS.register("planner")
def planner(request: SimRequest) -> SimReply:
    """SIMULATED planner: one checklist item per workflow step of the policy, then the closing confirmation."""
    policy = parse_agent_prompt(_last_user(request))
    items = [
        f"{step.instruction}" + (f" (tools: {', '.join(step.tools)})" if step.tools else "")
        + ("" if step.required else " (only if it applies)")
        for step in policy.steps
    ]
    items.append("Restate what was done and ask whether there is anything else, before ending.")
    return SimReply(content="\n".join(f"- {item}" for item in items))


@SIM_MODELS.register("checker")
def checker(request: SimRequest) -> SimReply:
    """SIMULATED checker: a claimed action is backed when a successful call's verb is in its claim group."""
    shown = parse_check_request(_last_user(request))
    done_groups = [claim_group(participle(tool_verb(name))) for name in shown.succeeded]
    unbacked = []
    for word in claimed_actions(shown.draft):
        if word == HANDLED:
            backed = bool(shown.succeeded)
        else:
            group = claim_group(word)
            backed = group is not None and group in done_groups
        if not backed:
            unbacked.append(word)
    return SimReply(content=CheckVerdict(backed=not unbacked, unbacked=unbacked).model_dump_json())
