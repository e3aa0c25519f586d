"""Agents under test: the protocol the turn loop speaks and skillbench's implementations of it.

An agent is ``async reply(state: AgentState) -> AgentReply``; the default, :class:`LLMAgent`, is one model
call per reply. See docs/agents.md.
"""

from skillbench.agents.llm import LLMAgent
from skillbench.agents.program import AGENTS, register_agent
from skillbench.agents.protocol import (
    MAIN_MODEL,
    Agent,
    AgentModels,
    AgentReply,
    AgentState,
    ReadOnly,
    UnknownAgentModel,
    accepted_reply,
    as_agent_reply,
    last_user_text,
    openai_message,
    unusable_reply,
)

__all__ = [
    "AGENTS",
    "MAIN_MODEL",
    "Agent",
    "AgentModels",
    "AgentReply",
    "AgentState",
    "LLMAgent",
    "ReadOnly",
    "UnknownAgentModel",
    "accepted_reply",
    "as_agent_reply",
    "last_user_text",
    "openai_message",
    "register_agent",
    "unusable_reply",
]
