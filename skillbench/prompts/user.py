"""The user simulator's system prompt: persona, goal, facts and path-specific behaviour. No tools."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import Field

from skillbench.benchmark.schema import Scenario, Skill
from skillbench.prompts.format import BULLET, Record, bullet_lines, labelled, section_starting, sections

USER_PROMPT_VERSION = "user-v1"

# The template below spells these out (headings are matched by their start); tests/prompts checks both agree.
USER_OPENING = "You are role-playing a customer who contacts {company} support."
PERSONA = "Persona"
GOAL = "Your goal"
FACTS_KNOWN = "Facts you know"
FACTS_WITHHELD = "Facts you do not have"
BEHAVIOUR = "How to behave"
ENDING = "Ending"
REQUESTS = "Your requests"
USER_HEADINGS = (PERSONA, GOAL, FACTS_KNOWN, FACTS_WITHHELD, BEHAVIOUR, ENDING)
STOP_SENTENCE = "reply with {stop_marker} alone."


def fact_text(value: Any) -> str:
    """A fact as the caller's prompt states it: a string as written, anything else (a list of item ids, a
    number, a mapping) as JSON, so its structure survives."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def fact_value(text: str) -> Any:
    """The inverse of :func:`fact_text`: JSON lists and mappings back as themselves, everything else a string."""
    if text[:1] in "[{":
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _requests_block(scenario: Scenario) -> str:
    """The several requests of a multi-request scenario, each with the facts that are its own ('' for one)."""
    if not scenario.requests:
        return ""
    lines = [f"\n# {REQUESTS} (make them one at a time, in this order; when one is done and the agent asks if there is "
             f"anything else, make the next; the facts under a request are for that request only)"]
    for number, request in enumerate(scenario.requests, start=1):
        lines.append(f"{number}. {request.goal}")
        lines.extend(f"   - {key}: {fact_text(value)}" for key, value in request.facts.items())
    return "\n".join(lines) + "\n"


def render_user_prompt(scenario: Scenario, skill: Skill, stop_marker: str) -> str:
    persona = scenario.persona
    facts = "\n".join(f"- {key}: {fact_text(value)}" for key, value in scenario.user_facts.items()) or "- (none)"
    withheld = "\n".join(f"- {key}" for key in scenario.withheld_facts) or "- (none)"
    behaviour = "\n".join(f"- {item}" for item in scenario.user_instructions) or "- (none)"
    examples = "\n".join(f'- "{item}"' for item in persona.example_utterances) or "- (none)"
    return f"""You are role-playing a customer who contacts {skill.company} support. You are not an assistant.
Stay in character, write only what the customer says, one short message at a time. You have no tools.

# Persona
label: {persona.label}
traits: {", ".join(persona.traits) or "-"}
style: {persona.style or "-"}
motivation: {persona.motivation or "-"}
example utterances:
{examples}

# Your goal
{scenario.objective}
{_requests_block(scenario)}
# Facts you know (give a fact only when the agent asks for it, exactly as written)
{facts}

# Facts you do not have (say you do not know if asked)
{withheld}

# How to behave in this conversation
{behaviour}

# Ending
When your goal is met, when the agent ends or transfers the conversation, or when you would hang up,
reply with {stop_marker} alone."""


def render_opening_instruction() -> str:
    """The first user-turn message given to the simulator (the agent has not spoken yet)."""
    return "The support line has answered. Write your first message to the agent."


class UserPromptView(Record):
    """What :func:`render_user_prompt` states, as :func:`parse_user_prompt` reads it back."""

    company: str
    label: str
    traits: list[str]
    style: str
    motivation: str
    examples: list[str]
    objective: str
    facts: dict[str, Any]  # as listed (JSON values read back); a key may also be withheld
    requests: list[tuple[str, dict[str, Any]]] = Field(default_factory=list, description="(goal, its own facts) of each request")
    withheld: list[str]
    behaviour: list[str]
    stop_marker: str | None


_OPENING = re.compile(re.escape(USER_OPENING).replace(re.escape("{company}"), "(?P<company>.+?)"))
_STOP = re.compile(re.escape(STOP_SENTENCE.removesuffix(".")).replace(re.escape("{stop_marker}"), r"(?P<stop>\S+)"))


def _listed(text: str) -> list[str]:
    return [] if text in {"", "-"} else [item.strip() for item in text.split(",")]


def _unquoted(item: str) -> str:
    return item[1:-1] if len(item) >= 2 and item[0] == item[-1] == '"' else item


def parse_user_prompt(text: str) -> UserPromptView:
    """The inverse of :func:`render_user_prompt` ('-' and '(none)' placeholders read as empty)."""
    parts = sections(text)
    persona = section_starting(parts, PERSONA)
    opening = _OPENING.search(text.split("\n", 1)[0])
    facts: dict[str, str] = {}
    for line in bullet_lines(section_starting(parts, FACTS_KNOWN)):
        key, _, value = line.partition(":")
        if key.strip():
            facts[key.strip()] = fact_value(value.strip())
    requests: list[tuple[str, dict[str, Any]]] = []
    for line in section_starting(parts, REQUESTS).splitlines():
        numbered = re.match(r"^\d+\.\s+(.*)$", line)
        if numbered:
            requests.append((numbered.group(1).strip(), {}))
        elif requests and line.strip().startswith(BULLET.strip()):
            key, _, value = line.strip()[1:].partition(":")
            requests[-1][1][key.strip()] = fact_value(value.strip())
    stop = _STOP.search(section_starting(parts, ENDING))
    style, motivation = labelled(persona, "style"), labelled(persona, "motivation")
    return UserPromptView(
        company=opening.group("company") if opening else "",
        label=labelled(persona, "label"),
        traits=_listed(labelled(persona, "traits")),
        style="" if style == "-" else style,
        motivation="" if motivation == "-" else motivation,
        examples=[_unquoted(item) for item in bullet_lines(persona)],
        objective=section_starting(parts, GOAL).strip(),
        facts=facts,
        requests=requests,
        withheld=[item.strip() for item in bullet_lines(section_starting(parts, FACTS_WITHHELD))],
        behaviour=bullet_lines(section_starting(parts, BEHAVIOUR)),
        stop_marker=stop.group("stop") if stop else None,
    )
