"""The records the mining stages exchange: conversations, action sequences, clusters, workflows, summaries."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

PiiKind = Literal["email", "phone", "card_or_account", "pin", "date_of_birth", "secret", "address", "name"]


class BuildRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolUse(BuildRecord):
    """A tool (API) call an agent made during a conversation, with its result if known."""

    name: str = Field(description="The tool or API name as the source system calls it, e.g. 'hotel_book'.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Arguments of the call.")
    result: Any = Field(None, description="What the tool returned, if recorded.")


class Turn(BuildRecord):
    """One turn of a transcript."""

    speaker: Literal["customer", "agent", "system"] = Field(description="Who spoke: the caller, the agent, or the system.")
    text: str = Field("", description="What was said (empty for a pure tool call).")
    tool_calls: list[ToolUse] = Field(default_factory=list, description="Tool calls the agent made in this turn.")
    action: str | None = Field(None, description="Annotated action label of an agent turn, where the data has one.")


class ConversationMeta(BuildRecord):
    purpose: str | None = Field(None, description="Call-purpose label (intent, task), if known; clustering groups by it.")
    organisation: str | None = Field(None, description="The organisation whose support line the call reached.")
    pii_names: list[str] = Field(default_factory=list, description="Personal names known to occur in the text (scrubbed).")
    pii_values: dict[PiiKind, list[str]] = Field(
        default_factory=dict, description="Other personal values known to occur, by kind (card_or_account, pin, date_of_birth, "
                                          "secret, address, email, phone): scrubbed wherever they occur, in any case.")
    extra: dict[str, Any] = Field(default_factory=dict, description="Anything else the source records (not read by the stages).")


class Conversation(BuildRecord):
    """One transcript: the generic JSONL format is one of these per line (docs/pipeline.md)."""

    id: str = Field(description="Unique id of the conversation within its source.")
    turns: list[Turn] = Field(min_length=1, description="The turns in order.")
    metadata: ConversationMeta = Field(default_factory=ConversationMeta, description="Optional labels.")


class Replacement(BuildRecord):
    kind: str = Field(description="email, phone, card_or_account, pin, date_of_birth, secret, address or name.")
    count: int = Field(description="How many occurrences were replaced.")


class ScrubbedConversation(BuildRecord):
    conversation: Conversation = Field(description="The conversation with personal data replaced by placeholders.")
    replaced: list[Replacement] = Field(default_factory=list, description="What was replaced, by kind.")


class ActionSequence(BuildRecord):
    """What the agent did in one conversation, as an ordered list of action types."""

    conversation_id: str = Field(description="The conversation it was extracted from.")
    purpose: str | None = Field(None, description="The conversation's call-purpose label.")
    actions: list[str] = Field(default_factory=list, description="Action types in order (e.g. ask_name, query:hotel_book).")
    tools: list[str] = Field(default_factory=list, description="Tools the agent called, in order of first use.")
    personal: bool = Field(False, description="Whether the agent handled personal data: scrubbed placeholders ([NAME], "
                                              "[NUMBER], [PIN] ...) in its tool calls' arguments, or in the turns where no "
                                              "call is read.")
    dropped: str | None = Field(None, description="Why no sequence could be extracted (the item is then skipped).")
    usage: dict[str, float] = Field(default_factory=dict, description="Model calls, tokens and cost spent on this item.")


class Cluster(BuildRecord):
    id: str = Field(description="Stable cluster id: '<group>-<index>'.")
    group: str = Field(description="The call-purpose group it was clustered in ('all' when global).")
    members: list[str] = Field(description="Conversation ids in the cluster.")


class Workflow(BuildRecord):
    """A cluster's representative workflow."""

    cluster_id: str = Field(description="The cluster it represents.")
    group: str = Field(description="Its call-purpose group.")
    actions: list[str] = Field(description="The representative action sequence.")
    tools: list[str] = Field(default_factory=list, description="Tools members used, most common first.")
    support: int = Field(description="How many conversations the cluster holds.")
    personal: float = Field(0.0, description="Share of its members whose agent handled personal data (ActionSequence.personal).")
    samples: list[str] = Field(default_factory=list, description="Up to N member ids used for the skill.")
    dropped: str | None = Field(None, description="Why no workflow could be written (the model's replies were unusable).")
    usage: dict[str, float] = Field(default_factory=dict, description="Model calls, tokens, cost and seconds spent on it.")


class StageReport(BuildRecord):
    stage: str = Field(description="Stage name.")
    items_in: int = Field(0, description="Items the stage read.")
    items_out: int = Field(0, description="Items it wrote.")
    reused: int = Field(0, description="The stage's items (those counted in items_in) taken from the store instead of recomputed.")
    reused_parts: dict[str, int] = Field(default_factory=dict, description="Other stored parts taken from the store, by kind "
                                                                           "(skills: per-transcript instructions), counted apart.")
    dropped: dict[str, int] = Field(default_factory=dict, description="Dropped items by reason.")
    seconds: float = Field(0.0, description="Wall time of the stage.")
    model_calls: int = Field(0, description="Model requests made.")
    cost_usd: float = Field(0.0, description="Model cost in USD (0 offline).")
    notes: dict[str, Any] = Field(default_factory=dict, description="Stage-specific figures (k, silhouette ...).")
