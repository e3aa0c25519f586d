"""Self-check before confirming: before a reply reaches the caller, a checker model compares the actions it
states as done with the tool calls that succeeded; a claim no successful call backs is not sent: the agent
says it could not confirm the action and hands the caller to a human instead."""

from __future__ import annotations

from skillbench.agents.llm import LLMAgent
from skillbench.agents.protocol import AgentReply, AgentState
from skillbench.core.records import ToolCall
from skillbench.prompts.agent import CONTROL_TOOLS, TRANSFER_TO_HUMAN
from skillbench.prompts.agent_programs import CheckRequest, parse_check_verdict, render_check_request

HANDOVER = ("I'm sorry, I could not confirm that this went through on our side. I'm transferring you to a "
            "colleague who can check and complete it.")


class SelfCheckAgent:
    """``checker``: the name of the model (in ``agent.models``) that checks drafts. It is asked about every reply
    to the caller once a tool has been called or when the reply ends the conversation; an unreadable verdict
    lets the draft through (the check is a guard, not a second agent)."""

    def __init__(self, checker: str = "checker") -> None:
        self.checker = checker
        self.act = LLMAgent()

    def model_names(self) -> list[str]:
        """The models it asks for besides its own: checked against agent.models before the run."""
        return [self.checker]

    async def reply(self, state: AgentState) -> AgentReply:
        draft = await self.act.reply(state)
        acting = [call for call in draft.tool_calls if call.name not in CONTROL_TOOLS]
        ends = any(call.name in CONTROL_TOOLS for call in draft.tool_calls)
        if acting or not (draft.content or "").strip() or not (state.tool_calls or ends):
            return draft
        records = [record for record in state.tool_calls if not record.control]
        request = CheckRequest(
            draft=draft.content or "",
            succeeded=[record.name for record in records if not record.is_error],
            failed=[record.name for record in records if record.is_error],
        )
        verdict = parse_check_verdict((await state.models.complete(render_check_request(request), model=self.checker)).content)
        if verdict is None or verdict.backed:
            return draft
        reason = f"self-check: could not confirm {', '.join(verdict.unbacked)} (no successful tool call backs it)"
        return AgentReply(
            content=HANDOVER,
            tool_calls=[ToolCall(id=f"self_check_{state.turn}", name=TRANSFER_TO_HUMAN, arguments={"reason": reason})],
            reasoning=draft.reasoning,
        )

