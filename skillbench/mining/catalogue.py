"""The source's tool catalogue, and which of its tools a conversation used, predicted from its words alone.

The extractors that read no tool-call annotation (``text``) or may miss one (``llm``) still need the
``query:<tool>`` actions the skill writer turns into tool steps. The catalogue is every tool the source's
transcripts record a call of, plus the tools of an optional catalogue file (``extractor.catalogue``)
for transcripts that record none. A conversation's tools are predicted from its text: TF-IDF (word stems)
fitted on the source's conversations, each tool described by its name's words and its description; a
tool is used when its cosine similarity to the conversation's text is at least ``min_similarity`` and at
least ``RUNNER_UP`` of the best tool's. Its call goes before the agent turn that names it most.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import yaml
from pydantic import BaseModel, Field, ValidationError
from sklearn.feature_extraction.text import TfidfVectorizer

from skillbench.core.errors import ConfigError
from skillbench.core.yamlfile import load_yaml
from skillbench.mining.records import Conversation

RUNNER_UP = 0.8  # a second tool counts when it matches almost as well as the best (a lookup, then a booking)


class CatalogueTool(BaseModel):
    """One tool of a catalogue file (``extractor.catalogue``): a JSON or YAML list of these."""

    name: str = Field(description="The tool's name as the source calls it, e.g. 'card_block' or 'hotel.book'.")
    description: str = Field("", description="What it does, in words a transcript would use.")


def load_catalogue(path: str | None) -> list[CatalogueTool]:
    if not path:
        return []
    file = Path(path).expanduser()
    if not file.is_file():
        raise ConfigError(f"extractor.catalogue: {file} does not exist. Fix: point it at a JSON or YAML list of "
                          f"{{name, description}} tools, or drop it.")
    try:
        data = load_yaml(file.read_text(encoding="utf-8")) if file.suffix in {".yaml", ".yml"} else \
            json.loads(file.read_text(encoding="utf-8"))
        return [CatalogueTool.model_validate(t) for t in (data or [])]
    except (ValueError, ValidationError, yaml.YAMLError, TypeError) as exc:
        raise ConfigError(f"extractor.catalogue: {file}: not a list of {{name, description}} tools "
                          f"({str(exc).splitlines()[0]}). Fix: write it as docs/pipeline.md shows.") from None


def source_catalogue(conversations: Sequence[Conversation], extra: Sequence[CatalogueTool] = ()) -> list[CatalogueTool]:
    """The tools the transcripts record calls of (in name order), then the file's others."""
    recorded = sorted({call.name for c in conversations for t in c.turns for call in t.tool_calls})
    described = {t.name: t for t in extra}
    tools = [described.get(name, CatalogueTool(name=name)) for name in recorded]
    return tools + [t for t in extra if t.name not in recorded]


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):  # booked/booking/books -> book: enough to match a name's words
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _tokens(text: str) -> list[str]:
    text = re.sub(r"\[[A-Z_]+\]", " ", text)  # the scrubber's placeholders: "[ADDRESS]" names no tool
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)  # camelCase names
    return [_stem(w) for w in re.findall(r"[a-z]+", spaced.lower()) if len(w) > 1]


def tool_words(tool: CatalogueTool) -> str:
    return f"{tool.name.replace('_', ' ').replace('-', ' ').replace('.', ' ')} {tool.description}"


class ToolPredictor:
    """Predicts the catalogue tools a conversation used, and where, from its words."""

    def __init__(self, conversations: Sequence[Conversation], catalogue: Sequence[CatalogueTool],
                 min_similarity: float = 0.05) -> None:
        self.tools = [t.name for t in catalogue]
        self.min_similarity = min_similarity
        self.vectorizer = TfidfVectorizer(tokenizer=_tokens, lowercase=False, token_pattern=None, sublinear_tf=True)
        docs = [self._text(c) for c in conversations]
        self.vectorizer.fit([*docs, *(tool_words(t) for t in catalogue)])
        self.matrix = self.vectorizer.transform([tool_words(t) for t in catalogue]) if catalogue else None

    @staticmethod
    def _text(conversation: Conversation) -> str:
        return " ".join(t.text for t in conversation.turns if t.text)

    def predict(self, conversation: Conversation) -> list[tuple[int, str]]:
        """(turn index the call goes before, tool), in turn order; empty when no tool matches well enough."""
        if self.matrix is None:
            return []
        scores = (self.vectorizer.transform([self._text(conversation)]) @ self.matrix.T).toarray()[0]
        best = float(scores.max())
        if best < self.min_similarity:
            return []
        chosen = [i for i in np.argsort(-scores, kind="stable") if scores[i] >= max(self.min_similarity, RUNNER_UP * best)]
        agent = [i for i, t in enumerate(conversation.turns) if t.speaker == "agent" and t.text.strip()]
        if not agent:
            return []
        by_turn = (self.vectorizer.transform([conversation.turns[i].text for i in agent]) @ self.matrix.T).toarray()
        placed = []
        for tool in chosen:
            column = by_turn[:, tool]
            placed.append((agent[int(np.argmax(column))] if column.max() > 0 else agent[0], self.tools[tool]))
        return sorted(placed)
