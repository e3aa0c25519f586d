"""skillbench's default agent: the configured model, given the policy and the tools, one call per reply."""

from __future__ import annotations

from skillbench.agents.protocol import AgentReply, AgentState, as_agent_reply


class LLMAgent:
    """Sends the conversation (system prompt = the skill's policy) and the tools to ``agent.model`` and
    takes its reply as the agent's turn. This is what ``agent=<model config>`` has always evaluated."""

    async def reply(self, state: AgentState) -> AgentReply:
        completion = await state.models.complete(state.openai_messages(), tools=state.tools)
        return as_agent_reply(completion)
