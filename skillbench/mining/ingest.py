"""Ingest: read transcripts (generic JSONL, STAR, ABCD) into :class:`Conversation` records.

The generic format is one :class:`Conversation` per line (docs/pipeline.md). STAR and ABCD raw
formats are converted here; their annotations become ``Turn.action`` labels and tool calls.

An ingest format is one registered reader (:func:`ingest_format`) plus one YAML in
``conf/mining/ingest/``; ``ingest.format`` is checked against :data:`READERS` and nothing else.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from skillbench.core.errors import SkillbenchError, first_error
from skillbench.core.jsonl import json_lines
from skillbench.core.registry import Registry
from skillbench.mining.records import Conversation, ConversationMeta, ToolUse, Turn

Reader = Callable[[Path, dict[str, Any]], Iterator[Conversation]]
"""Reads the file or folder ``ingest.path`` with the ingest settings (``ingest.options`` merged in)."""


@dataclass(frozen=True)
class IngestFormat:
    read: Reader
    files: str
    """What the reader reads, as a user would look for it (in messages and ``--help``)."""
    empty_hint: str = ""
    """Said when the files hold no conversation the reader keeps (e.g. a filter that keeps nothing)."""


READERS: Registry[IngestFormat] = Registry("ingest format")


def ingest_format(name: str, *, files: str, empty_hint: str = "") -> Callable[[Reader], Reader]:
    """Register ``read`` as the ingest format ``name`` (``ingest.format: name`` in a YAML of conf/mining/ingest/)."""

    def decorator(read: Reader) -> Reader:
        READERS.register(name)(IngestFormat(read=read, files=files, empty_hint=empty_hint))
        return read

    return decorator


def other_formats(name: str) -> str:
    """``ingest=abcd, ingest=star``: the registered formats but ``name`` (for a Fix that suggests another reader)."""
    return ", ".join(f"ingest={other}" for other in READERS.names() if other != name)


class IngestError(SkillbenchError):
    """Input that cannot be read: names the file, the field and the fix."""


@ingest_format("jsonl", files="a .jsonl file or a folder of them, one conversation per line (docs/pipeline.md)")
def read_jsonl(path: Path, options: dict[str, Any]) -> Iterator[Conversation]:
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files:
        raise IngestError(f"ingest.path: {path} holds no *.jsonl file. Fix: point ingest.path at a .jsonl file or a folder "
                          f"of them (or pick the reader that fits: {other_formats('jsonl')}).")
    for file in files:
        for number, line in enumerate(json_lines(file.read_text(encoding="utf-8")), start=1):
            if not line.strip():
                continue
            try:
                yield Conversation.model_validate_json(line)
            except ValidationError as exc:
                where, message = first_error(exc)
                raise IngestError(f"{file}:{number}: field '{where or '(line)'}': {message}. "
                                  f"Fix: follow the JSONL format in docs/pipeline.md.") from None


# STAR query slots that hold the caller's identity or secrets (or another private person's name), by kind.
STAR_PII_SLOTS = {"FullName": "name", "CustomerName": "name", "PatientName": "name", "RenterName": "name",
                  "HostName": "name", "GuestName": "name", "UserName": "name", "AccountNumber": "card_or_account",
                  "PIN": "pin", "DateOfBirth": "date_of_birth", "SecurityAnswer1": "secret", "SecurityAnswer2": "secret",
                  "Code": "secret"}
# Other people's names: drivers, doctors, the colleague met (elsewhere a Name slot is a hotel, a venue ...).
_STAR_OTHERS = {"DriverName": "name", "DoctorName": "name"}
_STAR_API_SLOTS = {("meeting_schedule", "Name"): "name", ("doctor_followup", "Name"): "name", ("doctor_schedule", "Name"): "name"}
_WORD = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
_NOT_TITLE = r"(?!(?:Dr|Mr|Mrs|Ms|Sir|Madam)\b)"
# What STAR's user guide tells the crowd worker about "their" identity: in the scenario's UserTask and in the
# UserGuide "instruct" events ("You are Sarah Brown. Your account number is ...", "Your PIN is ...").
_STAR_GUIDE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("name", re.compile(rf"\bYou \(({_WORD})\)")),
    ("name", re.compile(rf"\bYou are {_NOT_TITLE}({_WORD})(?=[.,;!]| and\b)")),
    ("name", re.compile(rf"\b[Yy]our name(?: is|:)\s*{_NOT_TITLE}({_WORD})")),
    ("card_or_account", re.compile(r"\baccount(?: number)?(?: is|:)\s*(\d[\d -]{4,}\d)")),
    ("pin", re.compile(r"\bPIN(?: is| number is|:)?\s*(\d{3,8})\b")),
    ("pin", re.compile(r"\bPIN\b.{0,60}?\beither (\d{3,8}) or (\d{3,8})", re.DOTALL)),
    ("date_of_birth", re.compile(r"\bdate of birth(?: is|:)\s*(\d{1,2}/\d{1,2}/\d{2,4})")),
    ("secret", re.compile(r"(?:maiden name|childhood pet)(?:'s name)?(?: is|[^:)\n]{0,40}:)\s*([A-Z][a-z]+)")),
    ("secret", re.compile(r"\b(?:Clearance|Access) Code is (\d{3,10})", re.IGNORECASE)),
)
_QUOTED = re.compile(r'"([^"]*)"')


def _literals(value: Any) -> list[str]:
    """The values in a STAR constraint: ``"\\"Jane Doe\\""`` → Jane Doe, ``api.is_equal_to("John")`` → John, 85731890."""
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [str(value)]
    text = str(value)
    quoted = _QUOTED.findall(text)
    if quoted:
        return [q.strip() for q in quoted if q.strip()]
    return [] if text.startswith("api.") or text in {"null", ""} else [text.strip()]


def star_personal(data: dict[str, Any]) -> dict[str, list[str]]:
    """Every personal value a STAR dialogue's sources state, by kind: the guide's texts and the query slots."""
    found: dict[str, list[str]] = defaultdict(list)
    texts = [data.get("Scenario", {}).get("UserTask", ""),
             *(e.get("Text", "") for e in data.get("Events", []) if e.get("Agent") == "UserGuide")]
    for text in texts:
        for kind, pattern in _STAR_GUIDE:
            for match in pattern.finditer(text or ""):
                found[kind] += [re.sub(r"[ -]", "", g) if kind != "name" else g for g in match.groups() if g]
    for event in data.get("Events", []):
        # A query's constraints, and the rows the knowledge base returned (the only database rows a dialogue holds).
        slots = [(k, v) for c in event.get("Constraints", []) for k, v in c.items()] if event.get("Action") == "query" else \
            list((event.get("Item") or {}).items()) if event.get("Agent") == "KnowledgeBase" else []
        for slot, value in slots:
            kind = _STAR_API_SLOTS.get((event.get("APIName"), slot)) or STAR_PII_SLOTS.get(slot) or _STAR_OTHERS.get(slot)
            if kind:
                found[kind] += [n for v in _literals(value) for n in _names(v)] if kind == "name" else _literals(value)
    # Leave out what cannot be a value (a typed "?", "na", a stray digit): it would be scrubbed as a word everywhere.
    return {kind: kept for kind, values in sorted(found.items())
            if (kept := sorted({v for v in values if _plausible(kind, v)}))}


def _plausible(kind: str, value: str) -> bool:
    return len(value) >= (2 if kind == "name" else 3) and any(ch.isalnum() for ch in value)


_NAME_SPLIT = re.compile(r"\s*(?:,|&|/|\band\b|'s\b)\s*", re.IGNORECASE)
_NOT_NAME = frozenset({"dr", "mr", "mrs", "ms", "sir", "first", "officer", "the", "my", "son", "kid", "mom", "dad", "clown",
                       "not", "does", "know", "applicable", "somebody", "has", "transferred"})


def _names(value: str) -> list[str]:
    """The person names in a typed name slot: "Alexis and Ben" → Alexis, Ben; "Dr. Mark" → Mark; "Mark's kid" → Mark.

    Wizards typed these, so they hold typos, lists and prose; what is not one to three name-like words is left out.
    """
    found = []
    for part in _NAME_SPLIT.split(value):
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]*", part) if w.lower() not in _NOT_NAME]
        # Capitalised as names are ("schedule" typed into a name slot is no name; a lower-case "john" is found as John).
        if 1 <= len(words) <= 3 and words[0][0].isupper() and not re.search(r"\d|\$", part):
            found.append(" ".join(words))
    return found


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


@ingest_format("star", files="the STAR folder (its dialogues/<id>.json)",
               empty_hint=" (only complete single-task dialogues are kept: ingest.single_task_only=false keeps all)")
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
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise IngestError(f"{file}: not JSON ({exc}). Fix: point ingest.path at STAR's dialogues.") from None
        if not isinstance(data, dict) or "Events" not in data:
            continue  # not a STAR dialogue (another data set's file): none at all is reported by read_source
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
        personal = star_personal(data)
        names = personal.pop("name", [])
        yield Conversation(id=f"star-{data.get('DialogueID', file.stem)}", turns=turns, metadata=ConversationMeta(
            purpose=purpose, organisation=(scenario.get("Domains") or [None])[0], pii_names=names,
            pii_values=personal, extra={"happy": scenario.get("Happy")}))  # type: ignore[arg-type]


@ingest_format("abcd", files="the ABCD folder or file of its raw release (abcd*.json)")
def read_abcd(path: Path, options: dict[str, Any]) -> Iterator[Conversation]:
    """ABCD dialogues in the raw release format (``delexed`` turns; actions are ``take_action`` targets)."""
    files = [path] if path.is_file() else sorted(p for p in path.glob("*.json") if p.name.startswith(("abcd", "dialogstudio")))
    if not files:
        raise IngestError(f"ingest.path: {path} holds no ABCD file (abcd*.json, dialogstudio*.json). Fix: point ingest.path at "
                          f"the ABCD folder or file (or pick the reader that fits: {other_formats('abcd')}).")
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
            order = convo["scenario"].get("order", {})
            names = [str(personal[k]) for k in ("customer_name", "username") if personal.get(k)]
            values = {"email": [personal.get("email")], "phone": [personal.get("phone")],
                      "address": [order.get("full_address"), order.get("street_address")]}
            marked = {k: [str(v) for v in vs if v] for k, vs in values.items() if any(vs)}
            if turns:
                yield Conversation(id=cid, turns=turns, metadata=ConversationMeta(
                    purpose=convo["scenario"].get("subflow"), organisation="abcd", pii_names=names,
                    pii_values=marked))  # type: ignore[arg-type]


def read_source(kind: str, path: Path, options: dict[str, Any]) -> list[Conversation]:
    reader = READERS.get(kind)
    if not path.exists():
        raise IngestError(f"ingest.path: {path} does not exist. Fix: point ingest.path at the transcripts "
                          f"({reader.files}).")
    found = list(reader.read(path, options))
    if not found:  # files of another format, or filters that keep nothing: say so now, not stages later
        raise IngestError(f"ingest.path: {path}: no conversation read as ingest={kind}, {reader.files}{reader.empty_hint}. "
                          f"Fix: point ingest.path at such files, or pick the reader that fits them ({other_formats(kind)}).")
    return found
