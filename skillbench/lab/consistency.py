"""Whether a transcript and its call log tell the same story (every perturbation must keep them so)."""

from __future__ import annotations

from skillbench.core.records import Rollout
from skillbench.lab.perturb import wire_name


def consistency_problems(rollout: Rollout) -> list[str]:
    """Mismatches between ``messages`` and ``tool_calls``; empty when they agree call for call."""
    problems: list[str] = []
    asked = [(c.id, c.name, c.arguments) for m in rollout.messages if m.role == "assistant" for c in m.tool_calls]
    logged = [(r.call_id, wire_name(r.name), r.arguments) for r in rollout.tool_calls]
    if asked != logged:
        problems.append(f"calls in messages {[a[1] for a in asked]} differ from the call log {[r[1] for r in logged]}")
    results = {m.tool_call_id: m.content for m in rollout.messages if m.role == "tool"}
    for record in rollout.tool_calls:
        if not record.control and results.get(record.call_id) != record.result:
            problems.append(f"{record.name} ({record.call_id}): result message differs from the logged result")
    extra = set(results) - {r.call_id for r in rollout.tool_calls}
    if extra:
        problems.append(f"tool results without a logged call: {sorted(extra)}")
    controls = [r for r in rollout.tool_calls if r.control]
    if rollout.termination != "infra_error" and controls and controls[-1] is not rollout.tool_calls[-1]:
        problems.append("a call follows the control call that ended the conversation")
    return problems
