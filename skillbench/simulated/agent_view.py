"""What a SIMULATED agent can know: its system prompt, the offered tools and the conversation so far.

:func:`read_agent_request` turns a :class:`SimRequest` into an :class:`AgentView`: the policy parsed
from the rendered agent prompt, the tools parsed from their OpenAI definitions, every call with its
result, and the caller's facts read from the caller's messages. It never sees a scenario file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from skillbench.core.records import ResultPairing
from skillbench.prompts.agent import CONTROL_TOOLS, AgentPromptView, parse_agent_prompt
from skillbench.prompts.format import StepView
from skillbench.prompts.tool_result import REFUSED, parse_tool_message
from skillbench.simulated.base import SimRequest
from skillbench.simulated.phrasing import READ_VERBS, tool_verb
from skillbench.simulated.reading import (
    asked_keys,
    content_stems,
    extract_facts,
    is_injection,
    message_text,
    plain,
    says_dont_know,
    tool_key,
)

# Argument names an agent writes itself rather than asking the caller for (free text it composes).
FREE_TEXT_ARGS = frozenset({"message", "body", "text", "note", "notes", "summary", "description", "comment", "subject", "content"})
NOTIFY_WORDS = frozenset({"send", "notify", "email", "sms", "message", "messaging", "confirmation"})
_INACTIVE = frozenset({"cancelled", "canceled", "closed", "expired", "inactive", "completed", "resolved", "past", "taken", "booked_out", "unavailable", "full"})


# The agent prompt as read back by its owner (skillbench.prompts.agent); the simulator adds no regex of its own.
Policy = AgentPromptView
Step = StepView


@dataclass(frozen=True)
class ToolDef:
    key: str  # MCP name, e.g. 'scheduling.update_appointment'
    offered_name: str  # the name to emit (as offered, maybe 'scheduling__update_appointment')
    description: str
    properties: dict[str, Any]
    required: list[str]

    @property
    def verb(self) -> str:
        return tool_verb(self.key)

    @property
    def is_write(self) -> bool:
        return self.verb not in READ_VERBS

    @property
    def is_notify(self) -> bool:
        words = set(re.split(r"[._]", self.key))
        return bool(words & NOTIFY_WORDS) and self.verb in {"send", "notify", "email", "post"}


@dataclass
class Call:
    position: int  # index of the assistant message in the request
    call_id: str
    name: str  # MCP form
    arguments: dict[str, Any]
    ok: bool | None = None  # None: no result (control tool, or not answered)
    data: Any = None
    text: str = ""
    error: str = ""  # a failure's message
    refused: bool = False  # the failure is a refusal under a business rule (its stated kind, never its wording)


@dataclass
class Event:
    kind: str  # 'caller', 'agent' (text the agent said), 'call'
    position: int
    text: str = ""
    call: Call | None = None


def parse_tools(tools: list[dict[str, Any]]) -> dict[str, ToolDef]:
    parsed: dict[str, ToolDef] = {}
    for tool in tools:
        function = tool.get("function", tool)
        name = str(function.get("name", ""))
        schema = function.get("parameters") or {}
        parsed[tool_key(name)] = ToolDef(
            key=tool_key(name),
            offered_name=name,
            description=str(function.get("description") or ""),
            properties=dict(schema.get("properties") or {}),
            required=list(schema.get("required") or []),
        )
    return parsed


def records_of(data: Any) -> list[dict[str, Any]]:
    """The records a tool result holds: a lookup's list, a get/update/create record, a delete's record."""
    if isinstance(data, dict):
        if isinstance(data.get("records"), list):
            return [item for item in data["records"] if isinstance(item, dict)]
        if isinstance(data.get("record"), dict):
            return [data["record"]]
        return [data]
    return []


def describe_record(record: dict[str, Any], skip: tuple[str, ...] = ()) -> str:
    """A record in plain words: 'annual check-up, start time 2026-12-01T14:00, provider id DR-LOPEZ'."""
    parts = [f"{plain(key)} {value}" for key, value in record.items() if key not in skip and not isinstance(value, (dict, list))]
    return ", ".join(parts[:6])


@dataclass
class AgentView:
    """Everything the agent knows at this call, derived from the request alone."""

    request: SimRequest
    policy: Policy
    tools: dict[str, ToolDef]  # MCP-form name → definition (skill tools only)
    control: dict[str, str]  # control tool → offered name
    events: list[Event] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    caller_texts: list[str] = field(default_factory=list)
    agent_texts: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)  # as the caller said them: strings, numbers, lists, mappings
    unknown: set[str] = field(default_factory=set)
    # Position of the caller message that began the request being handled now, when a caller makes a
    # further request after the agent asked if there was anything else (-1: the first request). Calls
    # and facts of earlier requests are set aside, but for the identity check, which holds all call long.
    segment_start: int = -1

    # ---------------------------------------------------------------- basic questions

    @property
    def last_event(self) -> Event | None:
        return self.events[-1] if self.events else None

    @property
    def opening(self) -> str:
        return self.caller_texts[0] if self.caller_texts else ""

    @property
    def last_caller_text(self) -> str:
        return self.caller_texts[-1] if self.caller_texts else ""

    @property
    def last_agent_text(self) -> str:
        return self.agent_texts[-1] if self.agent_texts else ""

    def _current(self, call: Call) -> bool:
        return call.position > self.segment_start or call.name in self.verify_tools

    def ok_calls(self, name: str | None = None) -> list[Call]:
        return [call for call in self.calls if call.ok and (name is None or call.name == name) and self._current(call)]

    def calls_of(self, name: str) -> list[Call]:
        return [call for call in self.calls if call.name == name and self._current(call)]

    def trailing_errors(self, name: str) -> int:
        """Failed calls of ``name`` since its last success."""
        count = 0
        for call in reversed(self.calls_of(name)):
            if call.ok:
                break
            if call.ok is False:
                count += 1
        return count

    @cached_property
    def candidate_keys(self) -> list[str]:
        """Names a caller's fact may be given under: every step's 'ask for' and every tool argument."""
        keys: list[str] = []
        for step in self.policy.steps:
            keys.extend(step.collects)
            keys.extend(key for _, collects in step.alternatives for key in collects)
        for tool in self.tools.values():
            keys.extend(arg for arg in tool.properties if arg not in FREE_TEXT_ARGS)
        return list(dict.fromkeys(keys))

    @cached_property
    def verify_tools(self) -> list[str]:
        return [tool for step in self.policy.steps if step.kind == "verify" for tool in step.all_tools()]

    @cached_property
    def verify_keys(self) -> set[str]:
        """Facts any way of a verify step asks for: they identify the caller for the whole call."""
        return {key for step in self.policy.steps if step.kind == "verify" for _, keys in step.ways() for key in keys} | {
            key for step in self.policy.steps if step.kind == "verify" for key in step.collects}

    def verification(self) -> bool | None:
        """True once a verify tool said verified, False if the last verify answer said not, else None."""
        answers = [call for name in self.verify_tools for call in self.ok_calls(name) if isinstance(call.data, dict)]
        answers.sort(key=lambda call: call.position)
        if not answers:
            return None
        return bool(answers[-1].data.get("verified"))

    # ---------------------------------------------------------------- records and values

    @cached_property
    def selection_stems(self) -> dict[str, float]:
        """Words that point at the record the caller means, weighted by what the message was answering.

        An answer to 'which one do you mean?' weighs most, the opening request next; an answer to a
        question about some fact (a reason, an address) says little about which record is meant.
        Cached: it depends on the events only, which are complete once :func:`read_agent_request`
        returns, and every record of every result is scored against it.
        """
        weights: dict[str, float] = {}
        previous = ""
        for event in self.events:
            if event.kind == "agent":
                previous = event.text
                continue
            if event.kind != "caller":
                continue
            if "?" in previous and re.search(r"\bwhich\b", previous, re.I) and re.search(r"\d\)", previous):
                weight = 3.0
            elif not previous:
                weight = 1.5
            elif asked_keys(previous, self.candidate_keys):
                weight = 0.5
            else:
                weight = 1.0
            for word in content_stems(event.text):
                weights[word] = max(weights.get(word, 0.0), weight)
            previous = ""
        return weights

    def record_score(self, record: dict[str, Any], hint: str = "") -> float:
        facts = {str(value).lower() for value in self.facts.values()}
        said = " ".join(self.caller_texts).lower()
        stems = self.selection_stems
        hint_stems = set(content_stems(hint))
        score = 0.0
        seen: set[str] = set()
        for key, value in record.items():
            if isinstance(value, (dict, list)):
                continue
            text = str(value)
            if text.lower() in facts and key not in {"customer_id", "account_number"}:
                score += 5.0
            elif len(text) >= 4 and re.search(r"\d", text) and text.lower() in said:
                score += 4.0  # the caller named it ('order HP-215007')
            for word in content_stems(text.replace("_", " ")):
                if word in seen:
                    continue
                seen.add(word)
                score += stems.get(word, 0.0) + (0.5 if word in hint_stems else 0.0)
            if text.lower() in _INACTIVE:
                score -= 0.5
        return score

    def ranked(self, call: Call, hint: str = "") -> list[tuple[float, dict[str, Any]]]:
        records = records_of(call.data)
        scored = [(self.record_score(record, hint), -index, record) for index, record in enumerate(records)]
        scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
        return [(score, record) for score, _, record in scored]

    def selected(self, call: Call, hint: str = "") -> dict[str, Any] | None:
        ranked = self.ranked(call, hint)
        return ranked[0][1] if ranked else None

    def is_ambiguous(self, call: Call, hint: str = "") -> bool:
        ranked = self.ranked(call, hint)
        return len(ranked) > 1 and ranked[0][0] - ranked[1][0] < 1.0

    def value_of(self, key: str, hint: str = "") -> Any:
        """A value for argument ``key``: the caller's fact, else the field of the latest result holding it."""
        if key in self.facts:
            return self.facts[key]
        for call in reversed(self.ok_calls()):
            record = self.selected(call, hint)
            if record is not None and key in record and not isinstance(record[key], (dict, list)):
                return str(record[key])
        return None

    def options_for(self, key: str, before_step: Step | None = None) -> tuple[list[str], list[dict[str, Any]], str] | None:
        """Values the caller may choose for ``key``, from the latest lookup whose records carry that field.

        A collect key ``new_start_time`` takes its options from records' ``start_time`` (the shared-name
        convention); only the lookups of steps before ``before_step`` are considered.
        """
        names: list[str] = []
        for step in self.policy.steps:
            if before_step is not None and step.index >= before_step.index:
                break
            if step.kind == "lookup":
                names.extend(step.tools)
        for name in reversed(names):
            for call in reversed(self.ok_calls(name)):
                records = records_of(call.data)
                if len(records) < 1 or not isinstance(call.data, dict) or "records" not in call.data:
                    continue
                fields = [f for f in records[0] if f == key or key.endswith("_" + f)]
                if not fields:
                    continue
                fieldname = max(fields, key=len)
                usable = [r for r in records if not any(str(v).lower() in _INACTIVE for v in r.values()) and r.get("available", True) is not False]
                usable = usable or records
                return [str(r[fieldname]) for r in usable if fieldname in r], usable, name
        return None


_ANYTHING_ELSE = re.compile(r"\banything else\b", re.I)
# How a caller opens a further request once the first is done ('Yes, one more thing: ...', 'Also, ...').
_FURTHER_REQUEST = re.compile(r"^\s*(?:yes[,.!]?\s*|yeah[,.!]?\s*)?(?:one more thing|also|another thing|and also|i also)\b", re.I)


def _caller_keys_and_options(view: AgentView, agent_text: str) -> tuple[list[str], dict[str, list[str]]]:
    asked = asked_keys(agent_text, view.candidate_keys)
    options: dict[str, list[str]] = {}
    for key in asked:
        found = view.options_for(key)
        if found:
            options[key] = found[0]
    return asked, options


def read_agent_request(request: SimRequest) -> AgentView:
    """Parse the agent's request: policy, tools, calls with results, caller facts (in order)."""
    messages = request.messages
    system = next((message_text(m) for m in messages if m.get("role") == "system"), "")
    all_tools = parse_tools(request.tools)
    control = {key: tool.offered_name for key, tool in all_tools.items() if key in CONTROL_TOOLS}
    view = AgentView(
        request=request,
        policy=parse_agent_prompt(system),
        tools={key: tool for key, tool in all_tools.items() if key not in CONTROL_TOOLS},
        control=control,
    )
    pairing: ResultPairing[Call] = ResultPairing()  # the request carries only the provider's ids, which may repeat
    last_agent_text = ""
    for position, message in enumerate(messages):
        role = message.get("role")
        if role == "assistant":
            text = message_text(message)
            if text:
                view.agent_texts.append(text)
                view.events.append(Event("agent", position, text))
                last_agent_text = text
            for index, raw in enumerate(message.get("tool_calls") or []):
                function = raw.get("function", {}) if isinstance(raw, dict) else {}
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    try:
                        arguments = json.loads(arguments or "{}")
                    except ValueError:
                        arguments = {}
                call = Call(position, str(raw.get("id") or f"{position}-{index}"), tool_key(str(function.get("name", ""))),
                            arguments if isinstance(arguments, dict) else {})
                pairing.called(call.call_id, call)
                view.calls.append(call)
                view.events.append(Event("call", position, call=call))
        elif role == "tool":
            call = pairing.answered(str(message.get("tool_call_id")))
            if call is None:  # no id: the oldest unanswered call of that name (or any)
                name = tool_key(str(message.get("name") or ""))
                call = next((c for c in view.calls if c.ok is None and (not name or c.name == name)), None)
            if call is not None:
                call.text = message_text(message)
                read = parse_tool_message(call.text)
                call.ok, call.data, call.error, call.refused = read.ok, read.data, read.error, read.error_kind == REFUSED
        elif role == "user":
            text = message_text(message)
            if view.caller_texts and _ANYTHING_ELSE.search(last_agent_text) and _FURTHER_REQUEST.match(text):
                view.segment_start = position
                view.facts = {key: value for key, value in view.facts.items() if key in view.verify_keys}
                view.unknown &= view.verify_keys
            view.caller_texts.append(text)
            view.events.append(Event("caller", position, text))
            asked, options = _caller_keys_and_options(view, last_agent_text) if last_agent_text else ([], {})
            found = extract_facts(text, view.candidate_keys, asked, options)
            for key, value in found.items():
                view.facts[key] = value
                view.unknown.discard(key)
            if asked and says_dont_know(text) and not is_injection(text):
                view.unknown.update(key for key in asked if key not in found)
    return view
