"""Action extraction: a conversation → the ordered action types its agent performed.

Three extractors: ``annotated`` (action labels and tool calls the data carries), ``text`` (offline:
TF-IDF over agent turns, turns grouped into action types by K-Means, no labels and no model) and
``llm`` (a model returns the sequence as JSON, validated; retried, then the item is dropped).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, Field, ValidationError
from sklearn.cluster import KMeans
from sklearn.feature_extraction.text import TfidfVectorizer

from skillbench.build.records import ActionSequence, Conversation
from skillbench.config.schema import ModelConfig
from skillbench.core.errors import InfrastructureError
from skillbench.models.client import ModelClient

# Agent turns a workflow does not depend on (pleasantries) are left out of every sequence.
SMALL_TALK = frozenset({"hello", "goodbye", "goodbye_1", "goodbye_2", "anything_else", "out_of_scope", "bye"})


def _tools(conversation: Conversation) -> list[str]:
    return list(dict.fromkeys(call.name for turn in conversation.turns for call in turn.tool_calls))


def annotated(conversation: Conversation, *, include_tools: bool = True) -> ActionSequence:
    """Action labels of agent turns, and ``query:<tool>`` for each tool call."""
    actions: list[str] = []
    for turn in conversation.turns:
        if turn.speaker != "agent":
            continue
        if turn.action and not turn.tool_calls and turn.action not in SMALL_TALK:
            actions.append(turn.action)
        if include_tools:
            actions += [f"query:{call.name}" for call in turn.tool_calls]
    purpose = conversation.metadata.purpose
    if not actions:
        return ActionSequence(conversation_id=conversation.id, purpose=purpose, dropped="no annotated actions or tool calls")
    return ActionSequence(conversation_id=conversation.id, purpose=purpose, actions=actions, tools=_tools(conversation))


class TurnTypes:
    """Action types learnt from agent turns alone: TF-IDF of each turn, K-Means over all turns.

    A type is named by its cluster's two heaviest terms (``t07_name_could``), so a sequence is readable.
    """

    def __init__(self, conversations: Sequence[Conversation], n_types: int = 40, seed: int = 0) -> None:
        texts = [t.text for c in conversations for t in c.turns if t.speaker == "agent" and t.text.strip()]
        self.vectorizer = TfidfVectorizer(lowercase=True, ngram_range=(1, 2), min_df=2, max_features=20000,
                                          token_pattern=r"(?u)\b[a-z][a-z]+\b")
        matrix = self.vectorizer.fit_transform(texts)
        k = max(1, min(n_types, matrix.shape[0]))
        self.kmeans = KMeans(n_clusters=k, n_init=3, random_state=seed).fit(matrix)
        terms = np.array(self.vectorizer.get_feature_names_out())
        self.names = []
        for index, centre in enumerate(self.kmeans.cluster_centers_):
            top = "_".join(t.replace(" ", "-") for t in terms[np.argsort(centre)[::-1][:2]])
            self.names.append(f"t{index:02d}_{top}")

    def label(self, texts: Sequence[str]) -> list[str]:
        if not texts:
            return []
        return [self.names[i] for i in self.kmeans.predict(self.vectorizer.transform(list(texts)))]


def text_only(conversation: Conversation, types: TurnTypes) -> ActionSequence:
    texts = [t.text for t in conversation.turns if t.speaker == "agent" and t.text.strip()]
    purpose = conversation.metadata.purpose
    if not texts:
        return ActionSequence(conversation_id=conversation.id, purpose=purpose, dropped="no agent text")
    return ActionSequence(conversation_id=conversation.id, purpose=purpose, actions=types.label(texts))


class ExtractedActions(BaseModel):
    """What the extraction prompt asks the model to return."""

    actions: list[str] = Field(min_length=1, description="The agent's actions in order, snake_case verbs.")


PROMPT_V1 = (
    "You read a customer-support transcript and list, in order, the actions the AGENT took "
    "(asking for a detail, looking something up, changing a record, informing the customer). "
    "Name each action in snake_case, e.g. ask_name, lookup_order, inform_balance. Leave out greetings. "
    'Reply with JSON only: {"actions": ["...", "..."]}.'
)
PROMPTS = {"v1": PROMPT_V1}
_ACTION = re.compile(r"^[a-z][a-z0-9_:]*$")


def render_transcript(conversation: Conversation) -> str:
    lines = []
    for turn in conversation.turns:
        for call in turn.tool_calls:
            lines.append(f"[tool call] {call.name}({json.dumps(call.arguments, ensure_ascii=False)})")
        if turn.text:
            lines.append(f"{turn.speaker.upper()}: {turn.text}")
    return "\n".join(lines)


def parse_actions(text: str | None) -> list[str]:
    """The validated action list of a reply, or ValueError saying what is wrong."""
    if not text:
        raise ValueError("empty reply")
    body = text.strip()
    if body.startswith("```"):  # models often fence JSON
        body = body.strip("`").removeprefix("json").strip()
    try:
        parsed = ExtractedActions.model_validate_json(body)
    except ValidationError as exc:
        raise ValueError(f"not the requested JSON: {exc.errors()[0]['msg']}") from None
    bad = [a for a in parsed.actions if not _ACTION.match(a)]
    if bad:
        raise ValueError(f"action names not in snake_case: {bad[:3]}")
    return parsed.actions


async def with_llm(conversation: Conversation, model: ModelConfig, *, attempts: int = 3) -> ActionSequence:
    """Ask ``model`` for the sequence; a malformed reply is retried ``attempts`` times in all, then dropped."""
    client = ModelClient(model)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": PROMPTS[model.prompt_template]},
        {"role": "user", "content": render_transcript(conversation)},
    ]
    usage = {"calls": 0.0, "prompt_tokens": 0.0, "completion_tokens": 0.0, "cost_usd": 0.0}
    purpose = conversation.metadata.purpose
    problem = ""
    for _ in range(attempts):
        try:
            reply = await client.complete(messages)
        except InfrastructureError as exc:
            return ActionSequence(conversation_id=conversation.id, purpose=purpose, dropped=f"model error: {exc}", usage=usage)
        usage["calls"] += 1
        usage["prompt_tokens"] += reply.usage.prompt_tokens
        usage["completion_tokens"] += reply.usage.completion_tokens
        usage["cost_usd"] += reply.usage.cost_usd
        try:
            actions = parse_actions(reply.content)
        except ValueError as exc:
            problem = str(exc)
            continue
        return ActionSequence(conversation_id=conversation.id, purpose=purpose, actions=actions,
                              tools=_tools(conversation), usage=usage)
    return ActionSequence(conversation_id=conversation.id, purpose=purpose, usage=usage,
                          dropped=f"malformed model reply after {attempts} attempts: {problem}")
