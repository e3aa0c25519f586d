"""acme's skillbench plug-in: an agent, a parameterised rule check and a report table (registered as acme/...)."""

from __future__ import annotations

import os

from skillbench.agents import AgentReply, AgentState, LLMAgent, register_agent
from skillbench.evaluation.checks import CheckContext, CheckResult, rule_check
from skillbench.report.build import ReportContext
from skillbench.report.tables import Table, report_table


@register_agent("signing_agent")
class SigningAgent:
    """The default agent, signing each text reply to the caller with ``signature``."""

    def __init__(self, signature: str = "-- acme") -> None:
        self.signature = signature
        self.inner = LLMAgent()

    async def reply(self, state: AgentState) -> AgentReply:
        reply = await self.inner.reply(state)
        if reply.content and not reply.tool_calls:
            return AgentReply(f"{reply.content} {self.signature}", reply.tool_calls, reply.reasoning)
        return reply


@rule_check("max_tool_calls", hard=False, version="1")
def max_tool_calls(ctx: CheckContext, *, limit: int = 8) -> CheckResult:
    """At most ``limit`` tool calls (control calls not counted)."""
    made = sum(1 for call in ctx.rollout.tool_calls if not call.control)
    return CheckResult(passed=made <= limit, detail=f"{made} tool calls (limit {limit})")


@report_table("tool_call_limit", title="acme: conversations within the tool-call limit", order=95)
def tool_call_limit(ctx: ReportContext) -> Table | None:
    """Per agent, the share of conversations whose acme/max_tool_calls check passed, and the limit it used."""
    counts: dict[str, list[int]] = {}
    limits: dict[str, set[str]] = {}
    for job in ctx.jobs:
        for row in job.rows:
            for check in row.rule_checks:
                if check.name == "acme/max_tool_calls":
                    tally = counts.setdefault(row.agent, [0, 0])
                    tally[0] += check.passed
                    tally[1] += 1
                    limits.setdefault(row.agent, set()).add(check.detail.rsplit("(", 1)[-1].rstrip(")"))
    if not counts:
        return None
    return Table(
        headers=["agent", "within limit", "conversations", "setting"],
        display=[[agent, f"{ok / n:.0%}", str(n), ", ".join(sorted(limits[agent]))] for agent, (ok, n) in counts.items()],
        data=[[agent, ok / n, n, ", ".join(sorted(limits[agent]))] for agent, (ok, n) in counts.items()],
    )


@report_table("careless", title="acme: a table written carelessly", order=96)
def careless(ctx: ReportContext) -> Table | None:
    """A table with a bug, shown only where ACME_CARELESS_TABLE names how it fails (tests of the report's guard)."""
    how = os.environ.get("ACME_CARELESS_TABLE")
    if how == "raise":
        raise KeyError("agent")
    if how == "exit":
        raise SystemExit(0)
    if how == "wrong_type":
        return {"agent": 1}  # type: ignore[return-value]
    return None
