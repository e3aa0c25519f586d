"""Whether a transcript, its call log and its final state tell the same story (every perturbation must keep them so)."""

from __future__ import annotations

from skillbench.benchmark.state import replay
from skillbench.core.errors import ToolError
from skillbench.core.records import Rollout
from skillbench.lab.perturb import Case, wire_name


def consistency_problems(rollout: Rollout, case: Case) -> list[str]:
    """Mismatches between ``messages``, ``tool_calls`` and ``final_state``; empty when they agree call for call
    and the final state is what the logged calls do to ``case``'s initial state."""
    problems: list[str] = []
    # Calls, results and records are matched by the calls' identity (ToolCall.seq), never by the provider's id.
    asked = [(c.seq, c.name, c.arguments) for m in rollout.messages if m.role == "assistant" for c in m.tool_calls]
    logged = [(r.call_seq, wire_name(r.name), r.arguments) for r in rollout.tool_calls]
    if asked != logged:
        problems.append(f"calls in messages {[a[1] for a in asked]} differ from the call log {[r[1] for r in logged]}")
    results = {m.call_seq: m.content for m in rollout.messages if m.role == "tool"}
    for record in rollout.tool_calls:
        if not record.control and results.get(record.call_seq) != record.result:
            problems.append(f"{record.name} (call {record.call_seq}, id {record.call_id}): result message differs from "
                            "the logged result")
    extra = set(results) - {r.call_seq for r in rollout.tool_calls}
    if extra:
        problems.append(f"tool results without a logged call: {sorted(extra, key=str)}")
    controls = [r for r in rollout.tool_calls if r.control]
    if rollout.termination != "infra_error" and controls and controls[-1] is not rollout.tool_calls[-1]:
        problems.append("a call follows the control call that ended the conversation")
    problems += state_problems(rollout, case)
    return problems


def state_problems(rollout: Rollout, case: Case) -> list[str]:
    """The final state against the call log, by the stateful mock's own semantics (``benchmark.state.replay``):
    a removed write must leave no effect behind, an inserted one must have its effect."""
    try:
        expected = replay(case.scenario.initial_state, case.tools, rollout.tool_calls)
    except ToolError as exc:
        return [f"the call log cannot have happened on the scenario's initial state: {exc}"]
    differ = sorted(name for name in {*expected, *rollout.final_state}
                    if expected.get(name, []) != rollout.final_state.get(name, []))
    return [f"final state of {name!r} differs from what the logged calls do to the initial state" for name in differ]
