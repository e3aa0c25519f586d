"""The records every layer shares: a conversation (rollout), its tool calls, usage, and the vocabularies
(roles, terminations, scenario paths, outcomes, error kinds) that rows and reports are labelled with.

This module is the bottom of the layering: it imports nothing else from skillbench, so every layer
can use these types without an import cycle.
"""

from __future__ import annotations

from collections import deque
from typing import Any, ClassVar, Generic, Literal, TypeVar, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

Role = Literal["agent", "user", "judge", "mock"]
ROLES: tuple[Role, ...] = get_args(Role)

Termination = Literal[
    "resolved", "transferred", "out_of_scope", "user_ended", "max_turns", "model_error", "infra_error", "benchmark_error",
]
"""How a conversation ended. model_error: the agent under test produced something unusable (no reply,
an empty turn, a request the provider refused because of the agent's own output, an agent program that raised
or ran past its time limit); it is the agent's failure, scored like any other conversation that did not end
properly. benchmark_error: the benchmark's own code failed (a code tool's bug): never scored, never the agent's
failure (see docs/outcomes.md)."""
PROPER_ENDINGS: frozenset[str] = frozenset({"resolved", "transferred", "out_of_scope", "user_ended"})

ScenarioPath = Literal[
    "happy_path",
    "missing_information",
    "guardrail_refusal",
    "prompt_injection",
    "out_of_scope",
    "tool_failure",
    "transfer",
]
SCENARIO_PATHS: tuple[ScenarioPath, ...] = get_args(ScenarioPath)

# The judge's task_completion categories (described in skillbench.core.rubric) and the subset a
# scenario may expect: a scenario never *expects* a partial or failed conversation.
Outcome = Literal["success", "partial", "failure", "appropriately_transferred", "appropriately_out_of_scope"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
ExpectedOutcome = Literal["success", "appropriately_transferred", "appropriately_out_of_scope"]

ToolErrorKind = Literal[
    "validation", "injected", "timeout", "unknown_tool", "not_found", "infra", "precondition", "benchmark",
]
"""Why a mock tool call failed. The rule checks tell model mistakes (validation, unknown_tool, not_found,
precondition: a business rule a code tool enforces, e.g. cancel only while pending) from environment
faults (injected, timeout) and our own failures (infra) by this field. benchmark: the domain's code tool itself
failed (raised something other than a refusal, or ran past its limit); the conversation ends as a
benchmark_error."""

ErrorKind = Literal["infra", "judge", "benchmark"]
"""Why a row or verdict carries no score. infra: an endpoint or our own tooling failed (never scored,
never stored, a rerun fills it in); judge: the judge gave no usable verdict (never a pass or a fail);
benchmark: the benchmark's own code failed (never scored; fixing that code changes the benchmark's version)."""


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCall(Record):
    """A tool call the agent asked for (OpenAI function-call shape, arguments parsed).

    Two ids: ``id`` is the provider's, for the wire only; ``seq`` is the call's identity in its conversation,
    which every reader pairs results and records by (docs/tools.md, "Tool-call identity").
    """

    id: str = Field(description="The id the provider sent, kept unchanged for the wire (Gemini carries its thought "
                    "signature in it). It may repeat: servers that number ids per reply send call_0 every time.")
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = Field(None, description="Arguments text when it was not valid JSON.")
    seq: int | None = Field(None, description="The call's identity in its conversation: 0, 1, 2, ... in the order "
                            "calls entered the transcript. Set by the turn loop and the importer, whatever an agent "
                            "program put there; None on a reply not yet in a transcript.")


class Message(Record):
    """One chat message, in the agent's view of the conversation."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = Field(None, description="For role 'tool': the provider's id of the call it answers (wire).")
    call_seq: int | None = Field(None, description="For role 'tool': the identity (``ToolCall.seq``) of the call it answers.")
    name: str | None = Field(None, description="Tool name, for role 'tool'.")
    turn: int = Field(0, description="Agent turn this message belongs to (1-based; 0 = before the first).")
    reasoning: str | None = Field(
        None, description="Reasoning the provider returned beside the reply (reasoning_content); shown, never judged."
    )
    cut: str | None = Field(
        None, description="Set when the reply was cut by the token cap (finish_reason 'length'): 'cut at max_tokens (N)'."
    )


class ToolCallRecord(Record):
    """One tool call as the MCP mock saw it."""

    turn: int
    call_id: str = Field(description="The provider's id of the call (``ToolCall.id``); may repeat, never paired by.")
    call_seq: int | None = Field(None, description="The identity (``ToolCall.seq``) of the call this records.")
    name: str
    arguments: dict[str, Any]
    offered: bool = Field(description="Whether the tool is in the skill's toolkit offered to the agent.")
    is_error: bool
    error_kind: ToolErrorKind | None = None
    result: str = Field(description="The text the agent received.")
    control: bool = Field(False, description="An engine control tool (end_conversation, transfer_to_human).")


CallT = TypeVar("CallT")


class ResultPairing(Generic[CallT]):
    """Pairs tool results with their calls where only the provider's ids are known: a request as it goes on the
    wire, an imported log, a rollout stored before calls had an identity. A result answers the oldest unanswered
    call with its id (the OpenAI rule), so ids repeated across replies (a server numbering them per reply sends
    call_0 every time) or within one reply still pair each result with its own call. Whatever has a transcript
    pairs by the calls' identity (``ToolCall.seq``) instead: see :meth:`Rollout.call_records`."""

    def __init__(self) -> None:
        self._open: dict[str, deque[CallT]] = {}

    def called(self, call_id: str, call: CallT) -> None:
        """A call was made (in transcript order)."""
        self._open.setdefault(call_id, deque()).append(call)

    def answered(self, call_id: str) -> CallT | None:
        """The call a result carrying ``call_id`` answers (now answered); None when no call with that id is open."""
        waiting = self._open.get(call_id)
        return waiting.popleft() if waiting else None

    def unanswered(self) -> list[CallT]:
        return [call for waiting in self._open.values() for call in waiting]


def _identify_stored_calls(messages: list[Message], records: list[ToolCallRecord]) -> tuple[list[Message], list[ToolCallRecord]]:
    """Identities for a rollout stored before calls had one (or built without them): calls numbered by position
    (their own numbers kept when every call has one), each result paired by :class:`ResultPairing`, each record
    with the first call of its id that no earlier record took (the turn loop logged records in call order; the
    old importer kept the records of one id in order), records put back in call order. With ids unique in the
    conversation this pairs exactly as the old by-id lookups did, so judge prompts stay byte-identical."""
    calls = [call for message in messages for call in message.tool_calls]
    keep = all(call.seq is not None for call in calls)
    pairing: ResultPairing[int] = ResultPairing()
    by_id: dict[str, list[int]] = {}  # provider id -> identities of its calls, in call order
    numbered: list[Message] = []
    position = 0
    for message in messages:
        if message.tool_calls:
            entered = []
            for call in message.tool_calls:
                seq = call.seq if keep and call.seq is not None else position
                position += 1
                pairing.called(call.id, seq)
                by_id.setdefault(call.id, []).append(seq)
                entered.append(call if call.seq == seq else call.model_copy(update={"seq": seq}))
            message = message.model_copy(update={"tool_calls": entered})
        if message.role == "tool":
            message = message.model_copy(update={"call_seq": pairing.answered(message.tool_call_id or "")})
        numbered.append(message)
    taken: dict[str, int] = {}
    identified = []
    for record in records:
        of_id = by_id.get(record.call_id, [])
        index = taken.get(record.call_id, 0)
        taken[record.call_id] = index + 1
        identified.append(record.model_copy(update={"call_seq": of_id[index] if index < len(of_id) else None}))
    identified.sort(key=lambda record: (record.call_seq is None, record.call_seq or 0))
    return numbered, identified


class ServedBy(Record):
    """What a server says answered a request (its reply's ``model`` and ``system_fingerprint``)."""

    model: str = Field(description="The model id the server reported (may differ from the configured name).")
    fingerprint: str | None = Field(
        None, description="The server's system_fingerprint (llama.cpp: its build; OpenAI: the backend config), if given."
    )
    model_file: str | None = Field(
        None, description="The model file the server says it loaded (llama.cpp GET /props model_path, name only), if it says."
    )
    chat_template: str | None = Field(
        None, description="sha256 (12 hex digits) of the chat template the server renders requests with (llama.cpp "
        "GET /props), if it says: the template decides whether the model sees the tools.",
    )

    def label(self) -> str:
        """'model (fingerprint, model file, template digest)', with what the server reported."""
        told = [self.fingerprint, self.model_file, f"template {self.chat_template}" if self.chat_template else None]
        known = [part for part in told if part]
        return f"{self.model} ({', '.join(known)})" if known else self.model


class Usage(Record):
    """Model calls of one role."""

    calls: int = Field(0, description="Requests answered (a usable or unusable reply came back).")
    failed_attempts: int = Field(0, description="Requests that got no reply (timeout, 429, 5xx, refused).")
    retries: int = Field(0, description="Requests re-sent after a failed attempt.")
    cache_hits: int = Field(0, description="Calls avoided by reusing a stored artifact.")
    prompt_tokens: int = 0
    cached_prompt_tokens: int = Field(
        0, description="Of prompt_tokens, those the provider read from its prompt cache (billed at its cached rate)."
    )
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = Field(0.0, description="Sum of call latencies.")
    abandoned_calls: int = Field(
        0, exclude_if=lambda value: not value,  # written only when set: every usage stored before reads the same
        description="Requests sent, then cancelled before their reply was read (a budget stop, Ctrl-C): a provider "
                    "bills them, so their tokens and cost are counted, estimated from the request's size.",
    )

    def add(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            abandoned_calls=self.abandoned_calls + other.abandoned_calls,
            failed_attempts=self.failed_attempts + other.failed_attempts,
            retries=self.retries + other.retries,
            cache_hits=self.cache_hits + other.cache_hits,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            cached_prompt_tokens=self.cached_prompt_tokens + other.cached_prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            latency_s=self.latency_s + other.latency_s,
        )

    def as_cache_hit(self) -> Usage:
        """The same work served from the store: no calls, no tokens billed."""
        return Usage(cache_hits=self.calls + self.cache_hits)


class TimeLimitHit(Record):
    """The agent's time limit that ended a conversation (agent.reply_limit_s or agent.conversation_limit_s)."""

    limit: Literal["reply", "conversation"]
    seconds: float = Field(description="The limit in force, in seconds of the agent program's own time.")


class Rollout(Record):
    """A finished conversation: everything later steps (checks, judges, reports) need."""

    key: str = Field(description="Artifact key (hash of agent, user simulator, mock, scenario, seed, prompt versions).")
    scenario_id: str
    skill_id: str
    agent: str = Field(description="Agent config name (never shown to judges).")
    messages: list[Message] = Field(description="The conversation as the agent saw it, system prompt first.")
    tool_calls: list[ToolCallRecord] = Field(
        default_factory=list, description="What the MCP session logged of each call, in call order (control calls too).")
    offered_tools: list[str] = Field(default_factory=list, description="Tool names listed to the agent over MCP.")
    termination: Termination
    termination_detail: str = ""
    turns: int = 0
    final_state: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    usage: dict[str, Usage] = Field(default_factory=dict, description="Role → usage (agent, user, mock).")
    infra_error: str | None = Field(None, description="What failed, when termination is infra_error.")
    benchmark_error: str | None = Field(
        None, description="What failed, when termination is benchmark_error: the domain's code, the tool, the exception."
    )
    traceback: str | None = Field(
        None, description="The guest code's traceback when its exception ended the conversation (an agent program, a "
        "code tool); the job writes it to tracebacks/ beside results.jsonl."
    )
    time_limit: TimeLimitHit | None = Field(
        None, description="Set when the agent program ran past a time limit: which one ended the conversation. A "
        "stored conversation that ended so is redone when that limit is raised."
    )
    duration_s: float = 0.0
    abandoned_attempts: int = Field(
        0, description="Earlier tries of this conversation abandoned as infrastructure errors and redone."
    )
    served_by: dict[str, list[ServedBy]] = Field(
        default_factory=dict, description="Role → what the servers reported answering (model id, fingerprint/build)."
    )
    cut_replies: dict[str, int] = Field(
        default_factory=dict, description="Role → replies cut at max_tokens (finish_reason 'length')."
    )

    @model_validator(mode="after")
    def _calls_identified(self) -> Rollout:
        # Rollouts stored before calls had an identity (ToolCall.seq) read back with one; new ones are left as written.
        complete = (
            all(r.call_seq is not None for r in self.tool_calls)
            and all(m.call_seq is not None for m in self.messages if m.role == "tool")
            and all(c.seq is not None for m in self.messages for c in m.tool_calls)
        )
        if not complete:
            self.messages, self.tool_calls = _identify_stored_calls(self.messages, self.tool_calls)
        return self

    def call_records(self) -> dict[int | None, ToolCallRecord]:
        """Each call's record by the call's identity: ``call_records().get(call.seq)`` for a call in an assistant
        message, ``.get(message.call_seq)`` for the result that answers it. The one way readers (judge prompt,
        viewer, HTML, judge lab) pair a call, its result and its record: never by the provider's id, which repeats.
        A call or result without an identity (None) finds no record."""
        return {record.call_seq: record for record in self.tool_calls if record.call_seq is not None}

    # Written only when set: a conversation that none of them touched is stored byte for byte as before they existed.
    _OMIT_WHEN_NONE: ClassVar[tuple[str, ...]] = ("benchmark_error", "traceback", "time_limit")

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        for name in self._OMIT_WHEN_NONE:
            if data.get(name, 0) is None:
                del data[name]
        return data


class RuleCheck(Record):
    """One deterministic check of a transcript."""

    name: str
    passed: bool
    hard: bool = Field(description="A failed hard check fails the scenario under the pass rule.")
    detail: str = ""
