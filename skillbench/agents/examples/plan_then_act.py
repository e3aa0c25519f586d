"""Plan, then act: a planner model drafts a checklist from the skill's policy once per conversation; the agent's
model then acts with that checklist appended to its system prompt."""

from __future__ import annotations

from skillbench.agents.protocol import MAIN_MODEL, AgentReply, AgentState, as_agent_reply
from skillbench.prompts.agent import render_checklist
from skillbench.prompts.agent_programs import parse_plan, render_planner_request


class PlanThenActAgent:
    """``planner``: the name of the model (in ``agent.models``) that drafts the checklist; ``max_items``: the
    longest checklist kept. A planner reply with no checklist leaves the policy as it is."""

    def __init__(self, planner: str = "planner", max_items: int = 12) -> None:
        self.planner = planner
        self.max_items = max_items

    async def _checklist(self, state: AgentState) -> list[str]:
        if "checklist" not in state.memory:
            reply = await state.models.complete(render_planner_request(state.policy), model=self.planner)
            state.memory["checklist"] = parse_plan(reply.content, self.max_items)
        return state.memory["checklist"]

    def model_names(self) -> list[str]:
        """The models it asks for besides its own: checked against agent.models before the run."""
        return [self.planner]

    async def reply(self, state: AgentState) -> AgentReply:
        checklist = await self._checklist(state)
        messages = state.openai_messages()
        if checklist:  # a new system message: the transcript keeps the policy as the skill states it
            messages[0] = {**messages[0], "content": state.policy + render_checklist(checklist)}
        return as_agent_reply(await state.models.complete(messages, tools=state.tools, model=MAIN_MODEL))
