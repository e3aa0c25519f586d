"""The agent protocol: what the turn loop gives an agent each time it is its turn, and what it gives back.

An agent is any object with ``async reply(state) -> AgentReply``. The turn loop (``skillbench.rollout``)
owns the conversation: it appends the agent's reply, runs the tool calls it asks for on the scenario's MCP
session (the same session the rule checks and the final state read), appends their results and asks
again, until the agent answers the caller without a tool call. An agent may call any number of models per
reply, always through :class:`AgentModels`, so every call keeps skillbench's retries, outcome classes,
usage, cost, budget and rollout caching.

The record belongs to the engine: what the agent reads (:class:`AgentState`) is copies behind read-only
sequences, and what it returns is copied and checked before it enters the transcript, so nothing an agent does
to what it was given reaches the stored conversation, the rule checks or the judge.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, overload, runtime_checkable

from pydantic import BaseModel

from skillbench.benchmark.schema import Skill
from skillbench.core.errors import ConfigError, InfrastructureError, ModelOutputError
from skillbench.core.records import Message, ToolCall, ToolCallRecord, Usage
from skillbench.models.client import Completion, ModelClient
from skillbench.models.text_tool_calls import tool_call_as_text

RecordT = TypeVar("RecordT", bound=BaseModel)

MAIN_MODEL = "agent"
"""The name of the agent config's own model (``agent.model``) among the models a program may call."""


@dataclass(frozen=True)
class AgentReply:
    """The agent's next message: text for the caller and/or tool calls (run by the turn loop, in order)."""

    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    reasoning: str | None = None
    cut: str | None = None  # "cut at max_tokens (N)" when the model's reply hit its token cap (a model error)


class UnknownAgentModel(ConfigError, KeyError):
    """An agent program asked for a model name its config does not give: a configuration mistake, which stops the
    job (exit 2) instead of failing every conversation as the agent's."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def unknown_model_message(model: str, configured: Iterable[str]) -> str:
    names = ", ".join(configured)
    return (f"config error at 'agent.models': the agent program asks for model {model!r}, which agent.models does not "
            f"name (configured: {names}). Fix: add it (+agent.models.{model}={{name: ..., model: ...}}) or give the "
            "program a configured name")


class AgentModels:
    """The models an agent may call, by name: ``agent`` (the config's own model) plus the program's
    ``agent.models``. Each call goes through :class:`~skillbench.models.ModelClient` and is added to the
    rollout's ``agent`` usage, answered or not. The time during which a call is in flight is kept apart
    (:meth:`model_time_s`): the agent's time limits count only its own time.

    Raises what the client raises: :class:`InfrastructureError` (the endpoint failed: the conversation is
    retried, never scored) and :class:`ModelOutputError` (the model's own unusable output: scored as the
    agent's failure unless the program handles it); :class:`UnknownAgentModel` for a name not configured.
    """

    def __init__(self, clients: Mapping[str, ModelClient], spend: Callable[[Usage], None]) -> None:
        self.__clients = dict(clients)
        self.__spend = spend
        self.__in_flight = 0
        self.__busy_since = 0.0
        self.__model_time_s = 0.0

    @property
    def names(self) -> list[str]:
        return list(self.__clients)

    def client(self, model: str = MAIN_MODEL) -> ModelClient:
        try:
            return self.__clients[model]
        except KeyError:
            raise UnknownAgentModel(unknown_model_message(model, self.__clients)) from None

    def model_time_s(self) -> float:
        """Seconds so far during which at least one of this conversation's model calls was in flight."""
        running = time.monotonic() - self.__busy_since if self.__in_flight else 0.0
        return self.__model_time_s + running

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
        if not self.__in_flight:
            self.__busy_since = time.monotonic()
        self.__in_flight += 1
        try:
            reply = await client.complete(messages, tools=tools, response_format=response_format)
        except (InfrastructureError, ModelOutputError) as exc:
            self.__spend(exc.usage or Usage())
            if isinstance(exc, InfrastructureError):
                exc.origin = "agent_model"
            raise
        except Exception as exc:  # the client is skillbench's own code: its failure is never the agent's
            raise InfrastructureError(f"internal error in the model client: {type(exc).__name__}: {exc}") from exc
        finally:
            self.__in_flight -= 1
            if not self.__in_flight:
                self.__model_time_s += time.monotonic() - self.__busy_since
        self.__spend(reply.usage)
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


class ReadOnly(Sequence[RecordT]):
    """A read-only sequence of copies: what an agent reads of the transcript. The turn loop adds a copy of each
    new entry (:meth:`_add`); changing an entry changes only the agent's copy, never the engine's record."""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: list[RecordT] = []

    def _add(self, entries: Sequence[RecordT]) -> None:
        """The turn loop's: copies of the engine's entries it has not handed over yet."""
        self._items.extend(entry.model_copy(deep=True) for entry in entries[len(self._items):])

    @overload
    def __getitem__(self, index: int) -> RecordT: ...
    @overload
    def __getitem__(self, index: slice) -> list[RecordT]: ...
    def __getitem__(self, index: int | slice) -> RecordT | list[RecordT]:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[RecordT]:
        return iter(self._items)

    def __eq__(self, other: object) -> bool:
        return list(self._items) == list(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        return f"ReadOnly({self._items!r})"


@dataclass
class AgentState:
    """One conversation as the agent sees it: copies, never the engine's own records. The turn loop adds each
    new message and tool-call record before every reply; the agent reads them.

    ``memory`` is the agent's own per-conversation notes (a plan, a count): a new conversation starts empty.
    """

    skill: Skill = field(metadata={"description": "The skill whose policy the agent follows (structured; a copy)."})
    policy: str = field(metadata={"description": "The skill's policy as the agent's system prompt (messages[0])."})
    tools: list[dict[str, Any]] = field(
        metadata={"description": "OpenAI tool definitions: the scenario's MCP tools, then the control tools (a copy)."}
    )
    models: AgentModels = field(metadata={"description": "The models the agent may call."})
    messages: ReadOnly[Message] = field(
        default_factory=ReadOnly, metadata={"description": "The conversation so far, system prompt first (read-only copies)."}
    )
    tool_calls: ReadOnly[ToolCallRecord] = field(
        default_factory=ReadOnly,
        metadata={"description": "Every tool call so far as the MCP session recorded it (is_error, error_kind, result; "
                  "read-only copies)."},
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


def accepted_reply(reply: AgentReply) -> AgentReply:
    """The engine's own copy of what an agent returned (later changes to the agent's objects reach nothing);
    :class:`TypeError` naming what is wrong when it is not a well-formed reply."""
    if not isinstance(reply, AgentReply):
        raise TypeError(f"returned {type(reply).__name__}, not an AgentReply")
    for name in ("content", "reasoning", "cut"):
        value = getattr(reply, name)
        if value is not None and not isinstance(value, str):
            raise TypeError(f"returned an AgentReply whose {name} is {type(value).__name__}, not text")
    if not isinstance(reply.tool_calls, list | tuple) or not all(isinstance(c, ToolCall) for c in reply.tool_calls):
        raise TypeError("returned an AgentReply whose tool_calls are not a list of ToolCall")
    calls = [ToolCall.model_validate(call.model_dump()) for call in reply.tool_calls]  # checked and copied
    return AgentReply(content=reply.content, tool_calls=calls, reasoning=reply.reasoning, cut=reply.cut)


@runtime_checkable
class Agent(Protocol):
    """An agent under test. One instance serves every conversation of a job, concurrently: keep
    per-conversation state in ``state.memory``, not on ``self``.

    ``reply`` raises :class:`ModelOutputError` when the agent has no usable reply (the conversation ends
    as ``model_error``, scored as a fail) and :class:`InfrastructureError` when something it depends on is
    down (the conversation is retried, never scored). Any other exception — ``BaseException`` included
    (``SystemExit``, ``KeyboardInterrupt``, a ``CancelledError`` skillbench did not cause) — and a reply past
    ``agent.reply_limit_s`` / ``agent.conversation_limit_s`` of its own time is the agent's own failure
    (``model_error``).

    A program may also say which of ``agent.models`` it will ask for (``def model_names(self) -> Iterable[str]``):
    they are checked before the run, so a misspelt name stops it with one line instead of failing every
    conversation.
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
