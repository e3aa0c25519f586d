"""The records every layer shares: a conversation (rollout), its tool calls, usage, and the vocabularies
(roles, terminations, scenario paths, outcomes, error kinds) that rows and reports are labelled with.

This module is the bottom of the layering: it imports nothing else from skillbench, so every layer
can use these types without an import cycle.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["agent", "user", "judge", "mock"]
ROLES: tuple[Role, ...] = get_args(Role)

Termination = Literal["resolved", "transferred", "out_of_scope", "user_ended", "max_turns", "model_error", "infra_error"]
"""How a conversation ended. model_error: the agent under test produced something unusable (no reply,
an empty turn, a request the provider refused because of the agent's own output); it is the agent's
failure, scored like any other conversation that did not end properly (see docs/outcomes.md)."""
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

ToolErrorKind = Literal["validation", "injected", "timeout", "unknown_tool", "not_found", "infra", "precondition"]
"""Why a mock tool call failed. The rule checks tell model mistakes (validation, unknown_tool, not_found,
precondition: a business rule a code tool enforces, e.g. cancel only while pending) from environment
faults (injected, timeout) and our own failures (infra) by this field."""

ErrorKind = Literal["infra", "judge"]
"""Why a row or verdict carries no score. infra: an endpoint or our own tooling failed (never scored,
never stored, a rerun fills it in); judge: the judge gave no usable verdict (never a pass or a fail)."""


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCall(Record):
    """A tool call the agent asked for (OpenAI function-call shape, arguments parsed)."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = Field(None, description="Arguments text when it was not valid JSON.")


class Message(Record):
    """One chat message, in the agent's view of the conversation."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
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
    call_id: str
    name: str
    arguments: dict[str, Any]
    offered: bool = Field(description="Whether the tool is in the skill's toolkit offered to the agent.")
    is_error: bool
    error_kind: ToolErrorKind | None = None
    result: str = Field(description="The text the agent received.")
    control: bool = Field(False, description="An engine control tool (end_conversation, transfer_to_human).")


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

    def add(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
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


class Rollout(Record):
    """A finished conversation: everything later steps (checks, judges, reports) need."""

    key: str = Field(description="Artifact key (hash of agent, user simulator, mock, scenario, seed, prompt versions).")
    scenario_id: str
    skill_id: str
    agent: str = Field(description="Agent config name (never shown to judges).")
    messages: list[Message] = Field(description="The conversation as the agent saw it, system prompt first.")
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    offered_tools: list[str] = Field(default_factory=list, description="Tool names listed to the agent over MCP.")
    termination: Termination
    termination_detail: str = ""
    turns: int = 0
    final_state: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    usage: dict[str, Usage] = Field(default_factory=dict, description="Role → usage (agent, user, mock).")
    infra_error: str | None = Field(None, description="What failed, when termination is infra_error.")
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


class RuleCheck(Record):
    """One deterministic check of a transcript."""

    name: str
    passed: bool
    hard: bool = Field(description="A failed hard check fails the scenario under the pass rule.")
    detail: str = ""
