"""Ingest: read transcripts (generic JSONL, STAR, ABCD) into :class:`Conversation` records.

The generic format is one :class:`Conversation` per line (docs/pipeline.md). STAR and ABCD raw
formats are converted here; their annotations become ``Turn.action`` labels and tool calls.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from skillbench.build.records import Conversation, ConversationMeta, ToolUse, Turn
from skillbench.core.errors import SkillbenchError
from skillbench.core.registry import Registry

Reader = Callable[[Path, dict[str, Any]], Iterator[Conversation]]
READERS: Registry[Reader] = Registry("ingest format")


class IngestError(SkillbenchError):
    """Input that cannot be read: names the file, the field and the fix."""


@READERS.register("jsonl")
def read_jsonl(path: Path, options: dict[str, Any]) -> Iterator[Conversation]:
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    for file in files:
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                yield Conversation.model_validate_json(line)
            except ValidationError as exc:
                error = exc.errors()[0]
                where = ".".join(str(p) for p in error["loc"]) or "(line)"
                raise IngestError(f"{file}:{number}: field '{where}': {error['msg']}. "
                                  f"Fix: follow the JSONL format in docs/pipeline.md.") from None


_STAR_NAME = re.compile(r"\bYou \(([A-Z][a-z]+)\)")


def _star_turns(events: list[dict[str, Any]]) -> list[Turn]:
    turns: list[Turn] = []
    for event in events:
        agent, action = event.get("Agent"), event.get("Action")
        if agent == "User" and action == "utter":
            turns.append(Turn(speaker="customer", text=event.get("Text", "")))
        elif agent == "Wizard" and action == "pick_suggestion":
            turns.append(Turn(speaker="agent", text=event.get("Text", ""), action=event.get("ActionLabel")))
        elif agent == "Wizard" and action == "utter":
            turns.append(Turn(speaker="agent", text=event.get("Text", "")))
        elif agent == "Wizard" and action == "query":
            arguments = {k: v for c in event.get("Constraints", []) for k, v in c.items()}
            turns.append(Turn(speaker="agent", tool_calls=[ToolUse(name=event.get("APIName", "query"), arguments=arguments)]))
        elif agent == "KnowledgeBase" and turns and turns[-1].tool_calls:
            item = event.get("Item") or {}
            turns[-1].tool_calls[-1].result = {"count": event.get("TotalItems"), "item": item}
    return turns


@READERS.register("star")
def read_star(path: Path, options: dict[str, Any]) -> Iterator[Conversation]:
    """STAR dialogues (``dialogues/<id>.json``): wizard action labels and API queries as annotations.

    ``single_task_only`` keeps complete dialogues whose wizard had exactly one task (the measured set);
    ``per_purpose`` keeps the first N (by dialogue id) of each task, for a fast subset.
    """
    folder = path / "dialogues" if (path / "dialogues").is_dir() else path
    files = sorted(folder.glob("*.json"), key=lambda p: (len(p.stem), p.stem))
    if not files:
        raise IngestError(f"{path}: no STAR dialogue files (dialogues/<id>.json). Fix: point ingest.path at the STAR folder.")
    per_purpose = options.get("per_purpose")
    seen: dict[str, int] = defaultdict(int)
    for file in files:
        data = json.loads(file.read_text(encoding="utf-8"))
        scenario = data.get("Scenario", {})
        tasks = [c.get("Task") for c in scenario.get("WizardCapabilities", [])]
        if options.get("single_task_only", True) and (
            data.get("CompletionLevel") != "Complete" or scenario.get("MultiTask") or len(tasks) != 1):
            continue
        purpose = tasks[0] if len(tasks) == 1 else None
        if per_purpose and seen[str(purpose)] >= per_purpose:
            continue
        turns = _star_turns(data.get("Events", []))
        if not turns:
            continue
        seen[str(purpose)] += 1
        names = _STAR_NAME.findall(scenario.get("UserTask", ""))
        yield Conversation(id=f"star-{data.get('DialogueID', file.stem)}", turns=turns, metadata=ConversationMeta(
            purpose=purpose, organisation=(scenario.get("Domains") or [None])[0], pii_names=names,
            extra={"happy": scenario.get("Happy")}))


@READERS.register("abcd")
def read_abcd(path: Path, options: dict[str, Any]) -> Iterator[Conversation]:
    """ABCD dialogues in the raw release format (``delexed`` turns; actions are ``take_action`` targets)."""
    files = [path] if path.is_file() else sorted(p for p in path.glob("*.json") if p.name.startswith(("abcd", "dialogstudio")))
    seen: set[str] = set()
    for file in files:
        data = json.loads(file.read_text(encoding="utf-8"))
        items = data if isinstance(data, list) else [c for split in data.values() for c in split]
        for convo in items:
            if not isinstance(convo, dict) or "scenario" not in convo:
                continue
            cid = f"abcd-{convo.get('convo_id')}"
            if cid in seen:
                continue
            seen.add(cid)
            turns: list[Turn] = []
            for turn in convo.get("delexed") or []:
                targets = turn.get("targets") or []
                if turn.get("speaker") == "action" and len(targets) > 3:
                    turns.append(Turn(speaker="agent", tool_calls=[ToolUse(name=str(targets[2]), arguments={"values": targets[3]})],
                                      action=str(targets[2])))
                else:
                    speaker = "customer" if turn.get("speaker") == "customer" else "agent"
                    turns.append(Turn(speaker=speaker, text=turn.get("text", "")))
            personal = convo["scenario"].get("personal", {})
            names = [str(personal[k]) for k in ("customer_name", "username") if personal.get(k)]
            if turns:
                yield Conversation(id=cid, turns=turns, metadata=ConversationMeta(
                    purpose=convo["scenario"].get("subflow"), organisation="abcd", pii_names=names))


def read_source(kind: str, path: Path, options: dict[str, Any]) -> list[Conversation]:
    if not path.exists():
        raise IngestError(f"ingest.path: {path} does not exist. Fix: point ingest.path at the transcripts "
                          f"(the STAR/ABCD folder or a .jsonl file).")
    return list(READERS.get(kind)(path, options))
