"""The agent protocol: what the turn loop gives an agent each time it is its turn, and what it gives back.

An agent is any object with ``async reply(state) -> AgentReply``. The turn loop (``skillbench.rollout``)
owns the conversation: it appends the agent's reply, runs the tool calls it asks for on the scenario's MCP
session (the same session the rule checks and the final state read), appends their results and asks
again, until the agent answers the caller without a tool call. An agent may call any number of models per
reply, always through :class:`AgentModels`, so every call keeps skillbench's retries, outcome classes,
usage, cost, budget and rollout caching.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from skillbench.benchmark.schema import Skill
from skillbench.core.errors import InfrastructureError, ModelOutputError
from skillbench.core.records import Message, ToolCall, ToolCallRecord, Usage
from skillbench.models.client import Completion, ModelClient
from skillbench.models.text_tool_calls import tool_call_as_text

MAIN_MODEL = "agent"
"""The name of the agent config's own model (``agent.model``) among the models a program may call."""


@dataclass(frozen=True)
class AgentReply:
    """The agent's next message: text for the caller and/or tool calls (run by the turn loop, in order)."""

    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    reasoning: str | None = None
    cut: str | None = None  # "cut at max_tokens (N)" when the model's reply hit its token cap (a model error)


class AgentModels:
    """The models an agent may call, by name: ``agent`` (the config's own model) plus the program's
    ``agent.models``. Each call goes through :class:`~skillbench.models.ModelClient` and is added to the
    rollout's ``agent`` usage, answered or not.

    Raises what the client raises: :class:`InfrastructureError` (the endpoint failed: the conversation is
    retried, never scored) and :class:`ModelOutputError` (the model's own unusable output: scored as the
    agent's failure unless the program handles it).
    """

    def __init__(self, clients: Mapping[str, ModelClient], spend: Callable[[Usage], None]) -> None:
        self._clients = dict(clients)
        self._spend = spend

    @property
    def names(self) -> list[str]:
        return list(self._clients)

    def client(self, model: str = MAIN_MODEL) -> ModelClient:
        try:
            return self._clients[model]
        except KeyError:
            raise KeyError(f"agent program asked for model {model!r}; configured: {', '.join(self._clients)}") from None

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        model: str = MAIN_MODEL,
        response_format: dict[str, Any] | None = None,
    ) -> Completion:
        """One chat completion from ``model`` (OpenAI message and tool format, as litellm takes them)."""
        client = self.client(model)
        try:
            reply = await client.complete(messages, tools=tools, response_format=response_format)
        except (InfrastructureError, ModelOutputError) as exc:
            self._spend(exc.usage or Usage())
            raise
        except Exception as exc:  # the client is skillbench's own code: its failure is never the agent's
            raise InfrastructureError(f"internal error in the model client: {type(exc).__name__}: {exc}") from exc
        self._spend(reply.usage)
        return reply


def openai_message(message: Message) -> dict[str, Any]:
    """A transcript message in the OpenAI chat format litellm sends (tool-call ids kept as they came)."""
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        data["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.raw_arguments if call.raw_arguments is not None
                    else json.dumps(call.arguments, ensure_ascii=False),
                },
            }
            for call in message.tool_calls
        ]
    if message.role == "tool":
        data["tool_call_id"] = message.tool_call_id
        data["name"] = message.name
    return data


@dataclass
class AgentState:
    """One conversation as the agent sees it. The turn loop appends to ``messages``; the agent reads it.

    ``memory`` is the agent's own per-conversation notes (a plan, a count): a new conversation starts empty.
    """

    skill: Skill = field(metadata={"description": "The skill whose policy the agent follows (structured)."})
    policy: str = field(metadata={"description": "The skill's policy as the agent's system prompt (messages[0])."})
    tools: list[dict[str, Any]] = field(
        metadata={"description": "OpenAI tool definitions: the scenario's MCP tools, then the control tools."}
    )
    messages: list[Message] = field(metadata={"description": "The conversation so far, system prompt first."})
    models: AgentModels = field(metadata={"description": "The models the agent may call."})
    tool_calls: list[ToolCallRecord] = field(
        default_factory=list,
        metadata={"description": "Every tool call so far as the MCP session recorded it (is_error, error_kind, result)."},
    )
    turn: int = field(default=0, metadata={"description": "The current agent turn (1-based)."})
    memory: dict[str, Any] = field(default_factory=dict)
    _converted: list[dict[str, Any]] = field(default_factory=list, repr=False)

    def openai_messages(self) -> list[dict[str, Any]]:
        """``messages`` in the OpenAI chat format; converted once each (the transcript only grows).
        The list is the agent's own copy: changing it changes nothing in the transcript."""
        for message in self.messages[len(self._converted):]:
            self._converted.append(openai_message(message))
        return list(self._converted)


@runtime_checkable
class Agent(Protocol):
    """An agent under test. One instance serves every conversation of a job, concurrently: keep
    per-conversation state in ``state.memory``, not on ``self``.

    ``reply`` raises :class:`ModelOutputError` when the agent has no usable reply (the conversation ends
    as ``model_error``, scored as a fail) and :class:`InfrastructureError` when something it depends on is
    down (the conversation is retried, never scored). Any other exception is the agent's own failure
    (``model_error``).
    """

    async def reply(self, state: AgentState) -> AgentReply: ...


def unusable_reply(reply: Completion) -> str | None:
    """Why a model reply cannot be an agent's turn (no choices; no text after <think> removal and no tool
    calls), else None."""
    if reply.problem is not None:
        return reply.problem
    if not reply.tool_calls and not (reply.content or "").strip():
        return f"the reply was {reply.cut_note()} before any text" if reply.cut else "the reply had neither text nor tool calls"
    return None


def as_agent_reply(reply: Completion) -> AgentReply:
    """A model reply as the agent's turn; :class:`ModelOutputError` when it cannot be one."""
    problem = unusable_reply(reply) or tool_call_as_text(reply.content, reply.tool_calls, cut=reply.cut)
    if problem is not None:
        raise ModelOutputError(problem)
    return AgentReply(content=reply.content, tool_calls=reply.tool_calls, reasoning=reply.reasoning,
                      cut=reply.cut_note() if reply.cut else None)


def last_user_text(messages: Sequence[Message]) -> str:
    """The caller's latest message ('' before the caller has spoken)."""
    return next((m.content or "" for m in reversed(messages) if m.role == "user"), "")
