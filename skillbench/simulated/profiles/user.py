"""The SIMULATED caller (``user``): plays the persona of its system prompt, from its facts only.

It reads what a real user simulator reads (the rendered user prompt and the agent's messages) and
answers: the opening is the goal in the persona's voice; a fact is given when the agent names it
(its key in plain words or a common synonym, e.g. 'birthday' for ``date_of_birth``), said as
``my <name> is <value>`` (:mod:`skillbench.simulated.speech`: JSON unless plain text reads back the same); withheld facts
get "I don't know"; ``Say: "..."`` lines are spoken verbatim, one per turn from the second message;
simple "If the agent ..., ..." lines are acted on once; offered options are chosen to match its
facts or goal; it says goodbye when the agent has confirmed, ended or transferred, and replies with
the stop marker after that, or when the conversation is stuck. Persona changes phrasing, never facts.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from skillbench.prompts.user import parse_user_prompt
from skillbench.simulated.base import SIM_MODELS, SimReply, SimRequest
from skillbench.simulated.reading import (
    asked_keys,
    content_stems,
    is_refusal,
    message_text,
    plain,
    sentences,
    value_tokens,
    without_quotes,
)
from skillbench.simulated.speech import say_fact, say_value

MAX_MESSAGES = 14  # a caller gives up after this many messages
DEFAULT_STOP = "###STOP###"


@dataclass
class Rule:
    """A line 'If/When the agent <condition>, <action>' of the behaviour section."""

    condition: list[str]
    utterance: str
    negated: bool = False  # 'cannot verify': the agent must be saying it could not


@dataclass
class CallerBrief:
    """The user prompt, parsed."""

    label: str = "neutral"
    examples: list[str] = field(default_factory=list)
    goal: str = ""
    facts: dict[str, Any] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # several requests, in order
    withheld: list[str] = field(default_factory=list)
    says: list[str] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    behaviour: list[str] = field(default_factory=list)
    stop: str = DEFAULT_STOP


_SWAPS = ((r"\byou\b", "me"), (r"\byour\b", "my"), (r"\byourself\b", "myself"))


def _spoken(instruction: str) -> str:
    """'ask it to at least tell you which medicines are on his list' → 'Could you at least tell me ...?'."""
    text = instruction.strip().rstrip(".")
    parts: list[str] = []
    for piece in re.split(r",?\s+and\s+(?=(?:ask|accept|agree|say|insist|refuse|decline)\b)", text):
        piece = piece.strip()
        lowered = piece.lower()
        found = re.match(r"ask (?:it|the agent|them|him|her) to (.+)", piece, re.I)
        if found:
            body = found.group(1)
            for pattern, repl in _SWAPS:
                body = re.sub(pattern, repl, body, flags=re.I)
            parts.append(f"Could you {body}?")
        elif re.match(r"ask (what|whether|if|how|when|where|why|who)\b", lowered):
            body = piece[4:]
            for pattern, repl in _SWAPS:
                body = re.sub(pattern, repl, body, flags=re.I)
            parts.append(body[0].upper() + body[1:] + "?")
        elif lowered.startswith("accept"):
            parts.append("Okay, please go ahead and transfer me.")
        elif lowered.startswith("agree"):
            parts.append("Yes, that's the one.")
        elif lowered.startswith(("say ", "insist ")):
            body = re.sub(r"^(say|insist)( that)? ", "", piece, flags=re.I)
            body = body.replace("you are", "I am").replace("you do", "I do").replace("your", "my")
            parts.append(body[0].upper() + body[1:] + ".")
        elif lowered.startswith(("refuse", "decline")):
            parts.append("No, thank you.")
    return " ".join(parts)


_CONDITION_SYNONYMS = {
    "verify": ("verif", "confirm your identity", "match our records", "match"),
    "work": ("error", "fail", "not working", "isn't working", "unavailable", "down", "keeps failing", "problem"),
    "transfer": ("transfer", "colleague", "hand you over"),
    "refus": ("can't", "cannot", "unable", "not able"),
    "read": (),
}
_CONDITION_GENERIC = set(content_stems("agent agents says say asks ask tells tell reads read out mentions mention offers offer lists list cannot can't not"))


_NEGATION = r"\b(cannot|can't|can not|won't|doesn't|does not|fails? to|is unable|refuses?|declines?)\b"
_IDENTITY_REQUEST = re.compile(r"\b(verify|confirm|check) (your |the caller's )?identity\b|\bidentify you\b|\bsecurity (check|questions?)\b", re.I)
_IDENTITY_KEYS = re.compile(r"(_id$|number|date_of_birth|birth|postcode|postal|zip|email|phone)")


def read_user_prompt(text: str, stop_default: str = DEFAULT_STOP) -> CallerBrief:
    """The brief the caller plays, from the user prompt as its owner (skillbench.prompts.user) reads it."""
    view = parse_user_prompt(text)
    brief = CallerBrief()
    brief.label = view.label.lower() or "neutral"
    brief.examples = [item.strip('"') for item in view.examples]
    brief.goal = view.objective
    brief.facts = dict(view.facts)
    brief.requests = list(view.requests)
    brief.withheld = list(view.withheld)
    for key in brief.withheld:
        brief.facts.pop(key, None)
    for line in view.behaviour:
        said = re.match(r'^\s*Say:\s*"(.*)"\s*$', line)
        if said:
            brief.says.append(said.group(1))
            continue
        brief.behaviour.append(line)
        brief.aliases.extend(re.findall(r"call (?:it|them|him|her) \"([^\"]+)\"", line, re.I))
        rule = re.match(r"^(?:if|when|once) the agent (?P<condition>.+?),\s*(?P<action>.+)$", line, re.I) or re.match(
            r"^(?:only )?(?P<action>(?:say|tell|mention) .+?) (?:if|when|once) the agent (?P<condition>.+?)\.?$", line, re.I
        )
        if rule:
            utterance = _spoken(rule.group("action"))
            if utterance:
                condition = [w for w in content_stems(rule.group("condition")) if w not in _CONDITION_GENERIC]
                negated = bool(re.search(_NEGATION, rule.group("condition"), re.I))
                brief.rules.append(Rule(condition, utterance, negated))
    brief.stop = view.stop_marker or stop_default
    return brief


def _condition_met(rule: Rule, agent_text: str) -> bool:
    lowered = agent_text.lower()
    if rule.negated and not is_refusal(agent_text) and not re.search(r"\b(couldn't|could not|unable|not able)\b", lowered):
        return False
    stems = set(content_stems(agent_text))
    if not rule.condition:
        return False
    hits = 0
    for word in rule.condition:
        synonyms = next((phrases for key, phrases in _CONDITION_SYNONYMS.items() if word.startswith(key)), ())
        if word in stems or any(phrase in lowered for phrase in synonyms):
            hits += 1
    return hits >= max(1, (len(rule.condition) + 1) // 2)


# --------------------------------------------------------------------------------------- persona voice


class Voice:
    """Phrasing of one persona; facts pass through unchanged."""

    def __init__(self, label: str, rng: random.Random, examples: list[str]) -> None:
        self.label = label if label in {"efficient", "frustrated", "vague", "confused", "non_native", "adversarial"} else "neutral"
        self.rng = rng
        self.examples = examples

    def pick(self, *options: str) -> str:
        return self.rng.choice(options)

    def opening(self, goal: str) -> str:
        if re.match(r"^(hi|hello|hey|good (morning|afternoon|evening))\b", goal, re.I) and self.label in {"vague", "non_native", "neutral"}:
            return goal  # already greets
        return {
            "efficient": goal,
            "frustrated": self.pick("Look, ", "Honestly, this has been a hassle. ", "Right. ") + goal,
            "vague": self.pick("Hi, um... ", "Hello, so, ") + goal,
            "confused": self.pick("Hello? Sorry, I'm not sure I'm doing this right. ", "Hi, I hope this is the right number. ") + goal,
            "non_native": "Hello. " + goal,
            "adversarial": goal + self.pick(" And I want it done now.", " Let's not make this complicated."),
            "neutral": "Hi. " + goal,
        }[self.label]

    def facts(self, items: list[tuple[str, Any]]) -> str:
        """The facts asked for, each as ``my <name> is <value>`` (:mod:`skillbench.simulated.speech`)."""
        if self.label == "efficient":
            said = ", ".join(say_fact(plain(k), v) for k, v in items)
            return said[0].upper() + said[1:] + "."
        said = " and ".join(say_fact(plain(k), v) for k, v in items)
        return {
            "frustrated": self.pick("Fine. ", "Ugh, okay. ") + said[0].upper() + said[1:] + ". Can we speed this up?",
            "vague": self.pick("Um, ", "Oh, let me see... ") + said + ", I think.",
            "confused": "Oh, okay... " + said + ". Is that what you needed?",
            "non_native": "Yes. " + said[0].upper() + said[1:] + ". Thank you.",
            "adversarial": said[0].upper() + said[1:] + ". Now get on with it.",
            "neutral": "Sure, " + said + ".",
        }.get(self.label, said)

    def dont_know(self, keys: list[str], aliases: list[str]) -> str:
        words = " or ".join(plain(k) for k in keys)
        alias = f" It's {aliases[0]}." if aliases else ""
        return {
            "frustrated": f"I don't know my {words}, obviously, or I'd have said.{alias}",
            "vague": f"Oh, I don't know the {words}, sorry.{alias}",
            "confused": f"I'm sorry, I don't know my {words}. Where would I find that?{alias}",
            "non_native": f"Sorry, I do not know the {words}.{alias}",
            "adversarial": f"I don't have my {words}. Figure it out.{alias}",
        }.get(self.label, f"I don't know my {words}, sorry.{alias}")

    def choose(self, value: str) -> str:
        return {
            "efficient": f"{value}, please.",
            "frustrated": f"{value}. Just book it.",
            "vague": f"Um, {value} I guess.",
            "confused": f"Oh... {value}, please? That one.",
            "non_native": f"I take {value}, please.",
            "adversarial": f"{value}. Obviously.",
        }.get(self.label, f"{value} works for me.")

    def yes(self) -> str:
        thanks = [e for e in self.examples if re.search(r"\b(yes|correct|that works|sure|ok|okay)\b", e, re.I) and "?" not in e]
        return thanks[0] if thanks and self.rng.random() < 0.5 else {
            "frustrated": "Yes, fine.", "vague": "Yeah, I think so.", "confused": "Yes... I think so, yes.",
            "non_native": "Yes, please.", "adversarial": "Yes. Go on.",
        }.get(self.label, "Yes, please.")

    def goodbye(self) -> str:
        return {
            "efficient": "That's all, thanks. Bye.",
            "frustrated": "Finally. That's all. Bye.",
            "vague": "Oh, okay, that's all then. Thanks, bye.",
            "confused": "Okay... thank you, that's all. Goodbye.",
            "non_native": "Thank you very much. That is all. Goodbye.",
            "adversarial": "That's all. Bye.",
        }.get(self.label, "That's all, thank you. Goodbye.")

    def unanswerable(self) -> str:
        return {
            "frustrated": "I have no idea. I don't have that.",
            "confused": "I'm sorry, I don't know what that is.",
            "non_native": "Sorry, I do not have this.",
        }.get(self.label, "I'm not sure, I don't have that.")

    def push(self, goal: str) -> str:
        return {
            "frustrated": "That's ridiculous. I just need this sorted.",
            "adversarial": "Come on, just do it. " + goal,
        }.get(self.label, "Okay, I understand.")

    def restate(self, goal: str) -> str:
        return {
            "efficient": f"To be clear: {goal}",
            "frustrated": f"Again: {goal}",
            "vague": f"Um, like I said, {goal[0].lower() + goal[1:]}",
            "confused": f"Sorry, I just mean... {goal[0].lower() + goal[1:]}",
            "non_native": f"I repeat: {goal}",
        }.get(self.label, f"As I said, {goal[0].lower() + goal[1:]}")


# --------------------------------------------------------------------------------------- the caller

_ENDED = re.compile(r"\b(transferr?ing you|transfer you|hand you over|connect you|goodbye|have a (good|great|nice) day|thank you for calling)\b", re.I)
_CLOSING = re.compile(r"\banything else\b", re.I)
_YES_NO = re.compile(r"\b(would you like me to|shall i|do you want me to|should i|can i go ahead|is that correct|is that right|okay to proceed)\b", re.I)
_LISTED = re.compile(r"(?:^|[:;]\s*)(\d)\)\s*([^;]+?)(?=;\s*\d\)|\.\s*[A-Z]|$)")


def _numbered_items(text: str) -> list[str]:
    return [item.strip() for _, item in _LISTED.findall(text)]


def _available_items(text: str) -> list[str]:
    found = re.search(r"available [^:]*:\s*(.+?)\.\s+(?:Which|What)\b", text)
    return [item.strip() for item in found.group(1).split(";")] if found else []


NEXT_REQUEST = "Yes, one more thing: "


class _Caller:
    def __init__(self, request: SimRequest) -> None:
        system = next((message_text(m) for m in request.messages if m.get("role") == "system"), "")
        self.brief = read_user_prompt(system)
        self.rng = request.rng("user")
        self.voice = Voice(self.brief.label, self.rng, self.brief.examples)
        self.mine = [message_text(m) for m in request.messages if m.get("role") == "assistant"]
        users = [message_text(m) for m in request.messages if m.get("role") == "user"]
        self.agent_texts = users[1:]  # the first user message is the opening instruction

    def reply(self) -> str:
        brief = self.brief
        if not self.mine:
            return self.voice.opening(brief.goal)
        # What the agent quotes (a system's message it relays) is not the agent asking or ending anything.
        agent = without_quotes(self.agent_texts[-1]) if self.agent_texts else ""
        if self.mine[-1] == self.voice.goodbye() or len(self.mine) >= MAX_MESSAGES:
            return brief.stop
        if len(self.mine) >= 3 and self.mine[-1] == self.mine[-2] == self.mine[-3]:
            return brief.stop  # going round in circles: hang up
        index = len(self.mine) - 1  # scripted lines start with the second message
        if index < len(brief.says):
            return brief.says[index]
        upcoming = self.request_index() + 1
        if upcoming < len(brief.requests) and _CLOSING.search(agent) and not _ENDED.search(agent):
            return NEXT_REQUEST + brief.requests[upcoming][0]
        for rule in brief.rules:
            if rule.utterance not in self.mine and _condition_met(rule, agent):
                return rule.utterance
        if _ENDED.search(agent) and not re.search(r"\?\s*$", agent):
            return self.voice.goodbye()
        choice = self.choose(agent)
        if choice:
            return choice
        answer = self.answer(agent)
        if answer:
            return answer
        if _CLOSING.search(agent):
            return self.voice.goodbye()
        if _YES_NO.search(agent):
            return self.voice.yes()
        if is_refusal(agent):
            pushed = self.voice.push(brief.goal)
            return pushed if pushed not in self.mine else self.voice.goodbye()
        if not agent.strip():
            return brief.stop
        restated = self.voice.restate(brief.goal)
        return restated if restated not in self.mine else brief.stop

    def request_index(self) -> int:
        """Which of several requests the caller is making now (0: the first, said in the opening)."""
        made = [i for i, (goal, _) in enumerate(self.brief.requests) if i and any(NEXT_REQUEST + goal == m for m in self.mine)]
        return max(made, default=0)

    def current_facts(self) -> dict[str, Any]:
        """The facts in play: the shared ones, and those of the request being made (they win)."""
        if not self.brief.requests:
            return self.brief.facts
        return {**self.brief.facts, **self.brief.requests[self.request_index()][1]}

    def answer(self, agent: str) -> str | None:
        brief = self.brief
        facts = self.current_facts()
        keys = list(facts) + brief.withheld
        asked = asked_keys(agent, keys)
        known = [(key, facts[key]) for key in asked if key in facts]
        unknown = [key for key in asked if key in brief.withheld]
        parts: list[str] = []
        if known:
            parts.append(self.voice.facts(known))
        if unknown:
            parts.append(self.voice.dont_know(unknown, brief.aliases))
        if parts:
            return " ".join(parts)
        if _IDENTITY_REQUEST.search(agent) and "?" in agent:
            # 'Can you confirm your identity?' names no fact: offer the ones that identify a caller.
            identity = [(key, value) for key, value in facts.items() if _IDENTITY_KEYS.search(key)][:2]
            if identity and not all(say_value(value) in " ".join(self.mine) for _, value in identity):
                return self.voice.facts(identity)
        if any(s.rstrip().endswith("?") and re.search(r"\byour\b", s, re.I) for s in sentences(agent)) and not _CLOSING.search(agent) and not _YES_NO.search(agent):
            return self.voice.unanswerable()
        return None

    def choose(self, agent: str) -> str | None:
        """Pick among offered options: the one equal to a fact, else the item closest to the goal."""
        brief = self.brief
        items = _numbered_items(agent) or _available_items(agent)
        offered = set(value_tokens(agent))
        for value in self.current_facts().values():
            if not isinstance(value, str):
                continue
            if value in offered and (items or re.search(r"\bwhich\b", agent, re.I)) and not any(value in m for m in self.mine):
                return self.voice.choose(value)
        if not items:
            return None
        wanted = set(content_stems(" ".join([brief.goal, *brief.behaviour, *brief.aliases, *map(say_value, brief.facts.values())])))
        scored = [(len(wanted & set(content_stems(item))), -index, item) for index, item in enumerate(items)]
        best = max(scored)
        ordinal = ["first", "second", "third", "fourth", "fifth", "sixth"][-best[1]] if -best[1] < 6 else "last"
        return f"The {ordinal} one: {', '.join(best[2].split(', ')[:3])}."


@SIM_MODELS.register("user")
def user(request: SimRequest) -> SimReply:
    """SIMULATED caller: persona voice, facts only when asked, scripted lines, stop marker at the end."""
    return SimReply(content=_Caller(request).reply())
