"""Action extraction: a conversation → the ordered action types its agent performed.

Three extractors: ``annotated`` (action labels and tool calls the data carries), ``text`` (offline:
TF-IDF over agent turns, turns grouped into action types by K-Means, no labels and no model) and
``llm`` (a model returns the sequence as JSON, validated; retried, then the item is dropped).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field
from sklearn.cluster import KMeans
from sklearn.feature_extraction.text import TfidfVectorizer

from skillbench.mining.catalogue import CatalogueTool, ToolPredictor
from skillbench.mining.llm import ask, load_json, transcript_text
from skillbench.mining.pii import handles_personal
from skillbench.mining.prompts import prompt
from skillbench.mining.records import ActionSequence, Conversation
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
    return ActionSequence(conversation_id=conversation.id, purpose=purpose, actions=actions, tools=_tools(conversation),
                          personal=handles_personal(conversation, calls=include_tools))


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


def text_only(conversation: Conversation, types: TurnTypes, tools: ToolPredictor | None = None) -> ActionSequence:
    """The agent turns' types in order; with ``tools``, a ``query:<tool>`` before the turn that names each predicted tool
    (the recorded tool calls are not read: this path sees the words only)."""
    agent = [i for i, t in enumerate(conversation.turns) if t.speaker == "agent" and t.text.strip()]
    purpose = conversation.metadata.purpose
    if not agent:
        return ActionSequence(conversation_id=conversation.id, purpose=purpose, dropped="no agent text")
    labels = dict(zip(agent, types.label([conversation.turns[i].text for i in agent]), strict=True))
    calls: dict[int, list[str]] = {}
    for index, tool in (tools.predict(conversation) if tools else []):
        calls.setdefault(index, []).append(f"query:{tool}")
    actions = [a for i in agent for a in (*calls.get(i, []), labels[i])]
    return ActionSequence(conversation_id=conversation.id, purpose=purpose, actions=actions,
                          tools=list(dict.fromkeys(a[6:] for a in actions if a.startswith("query:"))),
                          personal=handles_personal(conversation, calls=False))


class ExtractedActions(BaseModel):
    """What the extraction prompt asks the model to return."""

    actions: list[str] = Field(min_length=1, description="The agent's actions in order, snake_case verbs.")


_ACTION = re.compile(r"^[a-z][a-z0-9_]*(?::[A-Za-z0-9_.-]+)?$")


def parse_actions(text: str | None, tools: Sequence[str] | None = None) -> list[str]:
    """The validated action list of a reply, or ValueError saying what is wrong.

    ``tools``: the catalogue, if the model was shown one; a ``query:<tool>`` action must then name one of its tools.
    """
    parsed = load_json(text, ExtractedActions)
    bad = [a for a in parsed.actions if not _ACTION.match(a)]
    if bad:
        raise ValueError(f"action names not in snake_case: {bad[:3]}")
    unknown = [a for a in parsed.actions if tools is not None and a.startswith("query:") and a[6:] not in tools]
    if unknown:
        raise ValueError(f"tool calls of tools not in the catalogue: {unknown[:3]}")
    return parsed.actions


async def with_llm(client: ModelClient, conversation: Conversation, catalogue: Sequence[CatalogueTool], *, version: str,
                   attempts: int = 3, tools: ToolPredictor | None = None) -> ActionSequence:
    """Ask the model for the sequence (a malformed reply is answered with what is wrong, up to ``attempts`` replies).

    ``client`` is shared by every conversation of the stage (one concurrency limit per endpoint). With the
    ``v2`` prompt the model sees the tool catalogue and names tool uses ``query:<tool>``; where it names
    none, ``tools`` predicts them from the conversation's words, as for the text path.
    """
    names = [t.name for t in catalogue]
    user = transcript_text(conversation)
    if version != "v1":
        user = f"Tool catalogue:\n{catalogue_lines(catalogue)}\n\nTranscript:\n{user}"
    purpose = conversation.metadata.purpose
    checked = names if version != "v1" else None  # v1 shows no catalogue: its query names are not checked
    actions, usage, problem = await ask(client, prompt("extract", version), user, lambda r: parse_actions(r, checked), attempts)
    if actions is None:
        return ActionSequence(conversation_id=conversation.id, purpose=purpose, dropped=problem, usage=usage)
    if tools is not None and not any(a.startswith("query:") for a in actions):
        predicted = [f"query:{tool}" for _, tool in tools.predict(conversation)]
        # Before the first thing the agent told the caller (a result needs its lookup first), else at the end.
        at = next((i for i, a in enumerate(actions) if "inform" in a.split("_")), len(actions))
        actions = [*actions[:at], *predicted, *actions[at:]]
    used = list(dict.fromkeys(a[6:] for a in actions if a.startswith("query:")))
    return ActionSequence(conversation_id=conversation.id, purpose=purpose, actions=actions, tools=used, usage=usage,
                          personal=handles_personal(conversation, calls=True) or handles_personal(conversation, calls=False))


def catalogue_lines(catalogue: Sequence[CatalogueTool]) -> str:
    return "\n".join(f"- {t.name}" + (f": {t.description}" if t.description else "") for t in catalogue) or "(none)"
