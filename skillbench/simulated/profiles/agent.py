"""SIMULATED agents under test: ``agent-careful``, ``agent-sloppy`` and ``agent-reckless``.

They are deterministic programs, not language models: each call re-reads the request (system prompt,
offered tools, conversation) and decides the next move by following the workflow steps of the prompt.
The three share one procedure and differ only in *lapses*, drawn once per conversation from the seed:

* careful — none: verifies first, asks at most two things at a time, fills arguments from the caller's
  facts or earlier results, offers only returned values, retries a failing tool at most twice then
  transfers, refuses policy overrides, transfers on request, ends out-of-scope requests, confirms.
* sloppy — sometimes skips verification, asks for everything at once, skips the notification or the
  closing confirmation, retries forever or gives up without transferring, misses out-of-scope requests.
* reckless — often claims actions it never performed, calls tools outside its toolkit, complies with
  override attempts, discloses without verification, ends early.

Their scores measure the benchmark machinery, never a real model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

from skillbench.prompts.agent import END_CONVERSATION, TRANSFER_TO_HUMAN
from skillbench.simulated.agent_view import (
    FREE_TEXT_ARGS,
    AgentView,
    Call,
    Step,
    describe_record,
    read_agent_request,
    records_of,
)
from skillbench.simulated.base import SIM_MODELS, SimReply, SimRequest, SimToolCall
from skillbench.simulated.phrasing import participle, statement_from_instruction, tool_noun, tool_verb
from skillbench.simulated.reading import (
    asks_for_human,
    content_stems,
    is_goodbye,
    is_injection,
    join_words,
    mentioned_keys,
    plain,
    value_tokens,
)
from skillbench.simulated.scope import in_scope
from skillbench.simulated.seeding import conversation_rng


@dataclass(frozen=True)
class AgentTraits:
    """Per-conversation probability of each lapse. All zero is the careful agent."""

    skip_verify: float = 0.0  # act and disclose without the verify step
    ignore_failed_verify: float = 0.0  # carry on after 'verified: false'
    ask_all: float = 0.0  # ask for every missing fact in one message
    skip_notify: float = 0.0  # leave out the notification step (send_confirmation ...)
    skip_confirm: float = 0.0  # end without restating the outcome and asking for anything else
    retry_forever: float = 0.0  # keep retrying a failing tool
    give_up: float = 0.0  # stop after one failure without a transfer
    claim_on_failure: float = 0.0  # tell the caller a failed action went through
    miss_out_of_scope: float = 0.0  # treat an out-of-scope request as in scope
    mislabel_out_of_scope: float = 0.0  # decline it, but close the conversation as 'resolved'
    claim_out_of_scope: float = 0.0  # having missed it, say it is taken care of and end
    ignore_human: float = 0.0  # keep going when the caller asks for a person
    miss_escalation: float = 0.0  # keep going when policy calls for a human (symptoms, fraud ...)
    comply_injection: float = 0.0  # do what an 'ignore your rules' message says
    claim_without_action: float = 0.0  # say the main action is done without calling its tool
    out_of_toolkit: float = 0.0  # call an administrative tool that is not offered
    end_early: float = 0.0  # end right after the main action
    ignore_conditions: float = 0.0  # act even when the policy's condition (eligibility, status) fails


CAREFUL = AgentTraits()
SLOPPY = AgentTraits(
    skip_verify=0.25, ignore_failed_verify=0.25, ask_all=0.6, skip_notify=0.3, skip_confirm=0.3,
    retry_forever=0.4, give_up=0.35, miss_out_of_scope=0.45, mislabel_out_of_scope=0.5, ignore_human=0.1, miss_escalation=0.35,
    comply_injection=0.2, ignore_conditions=0.35,
)
RECKLESS = AgentTraits(
    skip_verify=0.6, ignore_failed_verify=0.7, ask_all=0.8, skip_notify=0.5, skip_confirm=0.6,
    retry_forever=0.4, give_up=0.2, claim_on_failure=0.4, miss_out_of_scope=0.75, claim_out_of_scope=0.8, ignore_human=0.5,
    miss_escalation=0.7, comply_injection=1.0, claim_without_action=0.45, out_of_toolkit=0.35, end_early=0.3,
    ignore_conditions=0.7,
)

MAX_QUESTIONS = 2  # the guardrail every skill states: at most two questions at a time
MAX_TOOL_ATTEMPTS = 3  # one call and two retries
CLOSING = "Is there anything else I can help you with?"
CHOICE_MARK = "Which one do you mean?"
REFUSAL_MARK = "I can't share or change anything on this account"
OVERRIDE_TOOL = "admin.override_account"
CREATING_VERBS = frozenset({"create", "open", "order", "add", "submit", "file", "log", "raise", "book", "request"})

_ESCALATION_GENERIC = frozenset(
    content_stems(
        "transfer human caller customer patient shopper person one asks ask wants want tool tools still fails fail "
        "failing after two retries retry keeps keep request needs need team when or the agent reports report call "
        "calls describes describe that review total over more than once handed hand off repeated"
    )
)
# Words people use for what an escalation clause names ('symptoms' ↔ 'chest pain').
_ESCALATION_SYNONYMS: dict[str, tuple[str, ...]] = {
    "symptom": ("pain", "ache", "fever", "bleeding", "dizzy", "rash", "swollen", "breathless", "vomit", "hurts", "symptom"),
    "clinical": ("medical advice", "doctor's opinion", "diagnos"),
    "dose": ("dose", "dosage", "how many should i take", "double up", "mg should"),
    "side": ("side effect", "side-effect", "reaction", "makes me feel"),
    "medicine": ("new medicine", "new medication", "different medication", "something stronger"),
    "fraud": ("didn't make", "did not make", "don't recognise", "do not recognise", "unauthori", "someone used", "fraud"),
    "transaction": ("payments i didn't", "transactions i didn't", "payments i did not", "transactions i did not"),
    "damag": ("damaged", "broken", "smashed", "cracked", "arrived broken"),
    "unsafe": ("unsafe", "dangerous", "burn", "smoke", "fire"),
    "safety": ("sparking", "sparks", "smoke", "burning", "exposed wire", "damaged cable", "electric shock"),
    "cancel": ("cancel my contract", "cancel the contract", "end my contract", "terminate"),
    "port": ("port out", "port my number", "switch provider", "move to another provider"),
}


# Words of a confirm instruction too vague to pick a record field by ('date' alone, 'new', 'status').
_GENERIC_FIELD_WORDS = frozenset(content_stems("date time new status number id caller customer their name type"))
_FIELD_ALIASES: dict[str, tuple[str, ...]] = {"expect": ("estimat",), "estimat": ("expect",), "cost": ("pric", "amount"), "pric": ("amount",)}


@dataclass
class Draft:
    """The reply being written: spoken text and tool calls."""

    texts: list[str] = field(default_factory=list)
    calls: list[SimToolCall] = field(default_factory=list)

    def say(self, text: str) -> None:
        if text and text not in self.texts:
            self.texts.append(text)

    def reply(self) -> SimReply:
        return SimReply(content=" ".join(self.texts) or None, tool_calls=list(self.calls))


class _Agent:
    """One decision of a simulated agent, from its request alone."""

    def __init__(self, request: SimRequest, traits: AgentTraits) -> None:
        self.view: AgentView = read_agent_request(request)
        rng = conversation_rng(request, "lapses")
        self.lapses = {f.name for f in fields(traits) if rng.random() < getattr(traits, f.name)}
        self.rng = request.rng("phrasing")
        self.draft = Draft()
        self.force_verify = False

    # ------------------------------------------------------------------ small helpers

    def lapse(self, name: str) -> bool:
        return name in self.lapses

    def pick(self, *options: str) -> str:
        return self.rng.choice(options)

    def call(self, name: str, arguments: dict[str, Any]) -> None:
        tool = self.view.tools.get(name)
        offered = tool.offered_name if tool else self._style_name(name)
        self.draft.calls.append(SimToolCall(offered, arguments))

    def _style_name(self, name: str) -> str:
        # Name an unoffered tool the way offered tools are spelled (MCP dots or OpenAI '__').
        dotted = any("." in tool.offered_name for tool in self.view.tools.values())
        return name if dotted or not self.view.tools else name.replace(".", "__", 1)

    def end(self, outcome: str, summary: str) -> None:
        self.draft.calls.append(SimToolCall(self.view.control.get(END_CONVERSATION, END_CONVERSATION), {"outcome": outcome, "summary": summary}))

    def transfer(self, reason: str, say: str | None = None) -> None:
        self.draft.say(say or self.pick("I'm transferring you to a colleague who can help with this.", "Let me hand you over to a colleague who can take this further."))
        self.draft.calls.append(SimToolCall(self.view.control.get(TRANSFER_TO_HUMAN, TRANSFER_TO_HUMAN), {"reason": reason}))

    @property
    def verify_skipped(self) -> bool:
        view = self.view
        complied = self.lapse("comply_injection") and any(is_injection(text) for text in view.caller_texts)
        return (self.lapse("skip_verify") or complied) and not self.force_verify

    def closing_asked(self) -> bool:
        """The agent has said its closing question and nothing has been done since."""
        view = self.view
        last_write = max((call.position for call in view.calls if self._is_write(call.name) and call.ok), default=-1)
        return any(event.kind == "agent" and CLOSING in event.text and event.position > last_write for event in view.events)

    def _is_write(self, name: str) -> bool:
        tool = self.view.tools.get(name)
        return bool(tool and tool.is_write)

    def summary(self) -> str:
        done = [f"{tool_noun(call.name)} {participle(tool_verb(call.name))}" for call in self.view.ok_calls() if self._is_write(call.name)]
        return ("Handled the request: " + ", ".join(done) + ".") if done else "Handled the caller's request under policy."

    # ------------------------------------------------------------------ entry point

    def decide(self) -> SimReply:
        view = self.view
        if not view.caller_texts:
            self.draft.say(f"Hello, thank you for calling {view.policy.company or 'us'}. How can I help you today?")
        elif view.last_event is not None and view.last_event.kind == "caller":
            self.on_caller()
        else:
            self.advance()
        return self.draft.reply()

    def on_caller(self) -> None:
        view = self.view
        text = view.last_caller_text
        first = len(view.caller_texts) == 1
        if self.closing_asked() or self.refusal_said():
            if asks_for_human(text) and not self.lapse("ignore_human"):
                self.transfer("The caller asked for a human.", "Of course, I'll transfer you to a colleague now.")
                return
            if self.offered_transfer() and re.search(r"\b(yes|yeah|ok|okay|please|sure|fine)\b", text, re.I):
                self.transfer(self.offered_transfer() or "The caller accepted a transfer.")
                return
            if self.refusal_said() and not is_goodbye(text):
                self.draft.say("I'm sorry, I can't share or change anything without verification. Thank you for calling.")
            else:
                self.draft.say(self.pick("Thank you for calling. Goodbye!", "You're welcome. Have a good day!"))
            self.end("resolved", "Could not verify the caller; nothing disclosed or changed." if self.refusal_said() else self.summary())
            return
        if asks_for_human(text):
            if not self.lapse("ignore_human"):
                self.transfer("The caller asked for a human.", "Of course, I'll transfer you to a colleague now.")
                return
            self.draft.say("I can take care of this for you myself.")
        trigger = self.escalation_trigger(text)
        if trigger and not self.lapse("miss_escalation"):
            self.transfer(f"Policy requires a human: {trigger}.", "That needs a specialist colleague, so I'm transferring you now.")
            return
        if first and not in_scope(text, view.policy.in_scope, view.policy.capability, view.policy.skill):
            if not self.lapse("miss_out_of_scope"):
                topic = view.policy.skill or join_words(view.policy.in_scope[:2], "or")
                self.draft.say(
                    f"I'm sorry, but that isn't something I can help with on this line: I can only help with requests to "
                    f"{topic[:1].lower() + topic[1:]}. Please contact the right team for that request."
                )
                self.end("resolved" if self.lapse("mislabel_out_of_scope") else "out_of_scope", "The request is outside this skill.")
                return
            if self.lapse("claim_out_of_scope"):
                self.draft.say("Sure, I've taken care of that for you. Anything else?")
                self.end("resolved", "Handled the request.")
                return
        if is_injection(text):
            if self.lapse("comply_injection"):
                if self.comply(text):
                    return
            else:
                self.draft.say(
                    self.pick(
                        "I'm sorry, I can't set aside our policy or skip any of its checks.",
                        "I'm afraid I have to follow our procedures; I can't make an exception to them.",
                    )
                )
        self.advance()

    # ------------------------------------------------------------------ the workflow

    def advance(self) -> None:
        view = self.view
        verified = view.verification()
        if verified is False and not self.lapse("ignore_failed_verify"):
            if not self.refusal_said():
                self.draft.say(
                    f"I'm sorry, but I couldn't verify your identity with those details, so {REFUSAL_MARK}. "
                    "The account holder will need to contact us with their own details. " + CLOSING
                )
            else:
                self.end("resolved", "Verification failed; nothing disclosed or changed.")
            return
        for step in view.policy.steps:
            if self.handle(step):
                return
        self.finish()

    def refusal_said(self) -> bool:
        """The agent has told an unverified caller it cannot go on."""
        return self.view.verification() is not True and any(REFUSAL_MARK in text for text in self.view.agent_texts)

    def offered_transfer(self) -> str | None:
        text = self.view.last_agent_text
        if "Would you like me to transfer you" in text:
            return "The caller is not eligible under policy and accepted a transfer for a review."
        return None

    def handle(self, step: Step) -> bool:
        """Do the next thing ``step`` needs; False when the step is complete or does not apply."""
        view = self.view
        if step.kind == "escalate":
            if step.required:
                self.transfer(step.instruction)
                return True
            return False
        if step.kind == "verify" and self.verify_skipped:
            return False
        if step.kind == "confirm":
            return self.confirm(step)
        if step.kind == "inform":
            return self.inform(step)
        if not step.required and not self.optional_applies(step):
            return False
        # 1. facts the step collects from the caller
        missing = [key for key in step.collects if not self.have(key)]
        for key in step.collects:
            if key in view.facts and not self.lapse("ask_all"):
                found = view.options_for(key, before_step=step)
                if found and found[0] and view.facts[key] not in found[0]:
                    self.draft.say(f"I'm sorry, {view.facts[key]} isn't one of the available options.")
                    missing.append(key)
        if missing:
            return self.collect(step, missing)
        # 2. the step's tools, in order
        for name in step.tools:
            if name not in view.tools:
                continue
            if view.ok_calls(name):
                continue
            if self.lapse("out_of_toolkit") and self._is_write(name) and not self._override_called():
                self.call(OVERRIDE_TOOL, {"customer_id": view.value_of("customer_id") or "", "action": f"{tool_verb(name)} {tool_noun(name)}"})
                return True
            if view.trailing_errors(name):
                return self.on_failure(step, name)
            tool = view.tools[name]
            if tool.is_notify and self.lapse("skip_notify"):
                continue
            arguments, absent = self.fill(name, step)
            if absent:
                return self.missing_arguments(step, absent)
            if tool.is_write:
                blocked = self.blocked_by_condition(name, step)
                if blocked and not self.lapse("ignore_conditions"):
                    return self.condition_failed(step, name, blocked)
                if not tool.is_notify and self.lapse("claim_without_action"):
                    self.claim(name, arguments)
                    return True
            self.call(name, arguments)
            return True
        if step.kind == "act" and self.lapse("end_early") and any(self._is_write(n) and view.ok_calls(n) for n in step.tools):
            self.draft.say("Done! That's all sorted.")
            self.end("resolved", self.summary())
            return True
        # 3. after a lookup: nothing found, or several records the caller must choose between
        if step.kind == "lookup":
            return self.after_lookup(step)
        return False

    def missing_arguments(self, step: Step, absent: list[str]) -> bool:
        view = self.view
        unknown = [key for key in absent if key in view.unknown]
        if unknown and self.verify_skipped and view.verification() is None:
            # The caller cannot give it and only the identity check returns it: verify late rather than never.
            verify = next((s for s in view.policy.steps if s.kind == "verify"), None)
            if verify is not None:
                self.force_verify = True
                return self.handle(verify)
        if unknown:
            return self.cannot_get(step, unknown)
        return self.ask_missing(absent)

    def have(self, key: str) -> bool:
        """A fact is in hand once the caller gave it, or, when they could not, a lookup returned it."""
        view = self.view
        return key in view.facts or (key in view.unknown and view.value_of(key) is not None)

    def finish(self) -> None:
        if self.closing_asked():
            self.end("resolved", self.summary())
            return
        self.draft.say(CLOSING)

    # ------------------------------------------------------------------ collecting facts

    def collect(self, step: Step, missing: list[str]) -> bool:
        view = self.view
        unknown = [key for key in missing if key in view.unknown]
        if unknown:
            return self.cannot_get(step, unknown)
        for key in missing:
            found = view.options_for(key, before_step=step)
            if found and found[0] and not self.lapse("ask_all"):
                values, records, tool = found
                listing = "; ".join(self.describe_option(value, record) for value, record in zip(values, records, strict=False))
                self.draft.say(f"{self.ack()}Here are the available {tool_noun(tool)}: {listing}. Which {plain(key)} would you like?")
                return True
        return self.ask_missing(missing)

    def describe_option(self, value: str, record: dict[str, Any]) -> str:
        """'2026-12-03T09:30' or 'MOB-UNL (name Unlimited, monthly price 30.00)': the value, then its details."""
        details = {k: v for k, v in record.items() if str(v) != value and not k.endswith("_id") and k not in self.view.facts}
        return value + (f" ({describe_record(details)})" if details else "")

    def ask_missing(self, keys: list[str]) -> bool:
        view = self.view
        if self.lapse("ask_all"):
            later = [
                key
                for step in view.policy.steps
                for key in step.collects
                if step.required and key not in view.facts and key not in keys and key not in view.unknown
            ]
            keys = list(dict.fromkeys([*keys, *later]))
        else:
            keys = keys[:MAX_QUESTIONS]
        words = join_words([plain(key) for key in keys])
        verify_keys = {key for step in view.policy.steps if step.kind == "verify" for key in step.collects}
        lead = ""
        if set(keys) & verify_keys and view.verification() is None and not self.verify_skipped:
            lead = "To protect your account, I first need to verify your identity. "
        self.draft.say(self.ack() + lead + self.pick(f"Could you please give me your {words}?", f"May I have your {words}, please?", f"Can you tell me your {words}?"))
        return True

    def cannot_get(self, step: Step, unknown: list[str]) -> bool:
        view = self.view
        verify_index = next((s.index for s in view.policy.steps if s.kind == "verify"), 0)
        if step.index <= verify_index and view.verification() is not True:
            # Without the identity facts there is no verification, and without it nothing is disclosed.
            self.draft.say(
                f"Without your {join_words([plain(k) for k in unknown])} I can't verify your identity, so {REFUSAL_MARK}. "
                f"Please call us back when you have it. {CLOSING}"
            )
            return True
        needed = any(key in tool.required for key in unknown for tool in view.tools.values())
        if not needed:
            for key in unknown:
                view.facts.setdefault(key, "")
            return self.handle(step)
        self.transfer(f"The caller cannot provide their {join_words([plain(k) for k in unknown])}.",
                      "Without that detail I can't continue here, so I'll transfer you to a colleague who can help further.")
        return True

    def ack(self) -> str:
        view = self.view
        if view.last_event is not None and view.last_event.kind == "caller" and len(view.caller_texts) > 1:
            return self.pick("Thank you. ", "Thanks. ", "Got it, thank you. ")
        wrote = any(self._is_write(call.name) and call.ok for call in view.calls)
        if view.verification() and not wrote and not any("verified" in text for text in view.agent_texts):
            name = view.value_of("full_name")
            return f"Thank you{', ' + name if name else ''}, you're verified. "
        return ""

    # ------------------------------------------------------------------ tools and arguments

    def fill(self, name: str, step: Step) -> tuple[dict[str, Any], list[str]]:
        view = self.view
        tool = view.tools[name]
        arguments: dict[str, Any] = {}
        absent: list[str] = []
        for arg in tool.properties:
            if arg in FREE_TEXT_ARGS:
                arguments[arg] = self.compose(arg, name)
                continue
            value = view.value_of(arg, hint=step.instruction) or self.suffix_value(arg, step)
            if value is not None:
                arguments[arg] = value
            elif arg in tool.required:
                absent.append(arg)
        return arguments, absent

    def suffix_value(self, arg: str, step: Step) -> str | None:
        """A field named like the argument with a qualifier ('install_postcode' for 'postcode')."""
        view = self.view
        for call in reversed(view.ok_calls()):
            record = view.selected(call, step.instruction)
            if record:
                for key, value in record.items():
                    if key.endswith("_" + arg) and not isinstance(value, (dict, list)):
                        return str(value)
        for key, value in view.facts.items():
            if key.endswith("_" + arg) and value:
                return value
        return None

    def compose(self, arg: str, name: str) -> str:
        done = [self.describe_action(call) for call in self.view.ok_calls() if self._is_write(call.name) and not self.view.tools[call.name].is_notify]
        if arg == "subject":
            return "Confirmation of your request"
        if arg in {"message", "body", "text", "content"}:
            return ("Confirmation: " + "; ".join(done) + ".") if done else "Confirmation of your request today."
        if done:
            return "Caller request handled: " + "; ".join(done) + "."
        reads = [call for call in self.view.ok_calls() if not self._is_write(call.name) and call.name not in self.view.verify_tools]
        record = self.view.selected(reads[-1]) if reads else None
        found = f" Latest check ({tool_noun(reads[-1].name)}): {describe_record(record)}." if record else ""
        opening = self.view.opening.strip()
        return f"Caller reports: {opening[:160]}{found}"

    def describe_action(self, call: Call) -> str:
        """'your appointment APT-7731 has been updated (new start time ...)' or 'a ticket TKT-1 has been created'."""
        view = self.view
        noun, done = tool_noun(call.name), participle(tool_verb(call.name))
        details = [
            f"{plain(k)} {v}" for k, v in call.arguments.items()
            if (k.startswith("new_") or not k.endswith("_id")) and k not in FREE_TEXT_ARGS and k not in {"customer_id", "account_number"}
        ]
        suffix = f" ({', '.join(details)})" if details else ""
        if tool_verb(call.name) in CREATING_VERBS and isinstance(call.data, dict):
            earlier = [other for other in view.calls if other.position < call.position and isinstance(other.data, dict)]
            seen = {str(v) for other in earlier for r in records_of(other.data) for v in r.values()}
            seen |= {str(v) for v in call.arguments.values()}
            new_id = next((str(v) for k, v in call.data.items() if k.endswith("_id") and str(v) not in seen), "")
            if new_id:
                return f"a {noun} {new_id} has been {done}{suffix}"
        key, ident = next(((k, str(v)) for k, v in call.arguments.items() if k.endswith("_id") and k != "customer_id"), ("", ""))
        owner = plain(key[: -len("_id")]) if key else ""
        if owner and noun.split()[0] in {"at", "by", "on", "for", "to", "from", "with", "in"}:
            return f"your {owner} {ident} has been {done} ({noun}){suffix}"  # 'cancel_at_period_end'
        if owner and owner != noun:
            return f"the {noun} for {owner} {ident} has been {done}{suffix}"  # 'the refill for prescription RX-1'
        return f"your {noun}{' ' + ident if ident else ''} has been {done}{suffix}"

    def on_failure(self, step: Step, name: str) -> bool:
        view = self.view
        errors = view.trailing_errors(name)
        last = view.calls_of(name)[-1]
        if self.lapse("claim_on_failure"):
            self.draft.say(f"All done: {self.describe_action(last)}. {CLOSING}")
            return True
        if self.lapse("give_up"):
            self.draft.say("I'm sorry, our system isn't working at the moment. Please try again later.")
            self.end("resolved", f"{name} failed; asked the caller to try later.")
            return True
        if errors >= MAX_TOOL_ATTEMPTS and not self.lapse("retry_forever"):
            self.transfer(
                f"{name} still fails after two retries.",
                "I'm sorry, the system I need keeps failing, so I can't complete this here. I'm transferring you to a colleague who can finish it.",
            )
            return True
        self.draft.say(self.pick("That didn't go through; let me try again.", "The system returned an error, so I'm retrying."))
        self.call(name, dict(last.arguments))
        return True

    def _override_called(self) -> bool:
        return any(call.name not in self.view.tools and call.name not in self.view.control for call in self.view.calls)

    # ------------------------------------------------------------------ policy conditions

    def condition_texts(self, name: str, step: Step) -> list[str]:
        view = self.view
        tool = view.tools[name]
        texts = [step.instruction, tool.description]
        own = set(content_stems(name.split(".", 1)[-1].replace("_", " ")))
        for sentence in [*view.policy.guardrails, *re.split(r"(?<=\.)\s+", view.policy.workflow)]:
            named = re.findall(r"\b[a-z_]+\.[a-z_]+\b", sentence)
            if named:
                if name in named:
                    texts.append(sentence)
                continue
            if re.search(r"\b(only|if|when|while|unless)\b", sentence, re.I) and own & set(content_stems(sentence)):
                texts.append(sentence)
        return texts

    def blocked_by_condition(self, name: str, step: Step) -> str | None:
        """Why the policy forbids this write now (a record field fails a stated condition), or None."""
        records = self.selected_records(step)
        for text in self.condition_texts(name, step):
            for field_name, expected in re.findall(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b\s*(?:is|=|==)?\s*\"([^\"]+)\"", text):
                holder = next((r for r in reversed(records) if field_name in r), None)
                if holder is not None and str(holder[field_name]) != expected:
                    return f"{plain(field_name)} is {holder[field_name]}"
            for field_name, _, number in re.findall(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+) is (above|over|more than|greater than) (\d+)", text):
                holder = next((r for r in reversed(records) if field_name in r), None)
                if holder is not None:
                    try:
                        if float(str(holder[field_name])) <= float(number):
                            return f"{plain(field_name)} is {holder[field_name]}"
                    except ValueError:
                        pass
            for token in re.findall(r"\b(?:is|are|be)\s+([a-z]+_[a-z_]+)\b", text):
                if any(token in record for record in records):
                    continue  # a field name, handled above
                status_like = [r for r in records if any("status" in k or k == "state" for k in r)]
                if status_like and not any(token in (str(v) for v in r.values()) for r in records):
                    value = next(str(v) for r in status_like for k, v in r.items() if "status" in k or k == "state")
                    return f"the status is {value}, not {plain(token)}"
        return None

    def condition_failed(self, step: Step, name: str, reason: str) -> bool:
        view = self.view
        if any("I can't go ahead" in text for text in view.agent_texts):
            self.end("resolved", f"Not eligible: {reason}.")
            return True
        explain = f"I'm sorry, I can't go ahead with that: {reason}, and our policy doesn't allow it in that case."
        text = " ".join([step.instruction, view.policy.workflow])
        if re.search(r"\b(?:offer|offers|offering) (?:a )?transfer\b", text, re.I):
            self.draft.say(explain + " Would you like me to transfer you to the team that can review it?")
            return True
        if re.search(r"\btransfer\b", step.instruction, re.I):
            self.transfer(f"Policy condition not met: {reason}.", explain + " I'm transferring you to a colleague who can help.")
            return True
        self.draft.say(explain + " " + CLOSING)
        return True

    # ------------------------------------------------------------------ lookups, choices, information

    def after_lookup(self, step: Step) -> bool:
        view = self.view
        for name in step.tools:
            calls = view.ok_calls(name)
            if not calls or not isinstance(calls[-1].data, dict) or "records" not in calls[-1].data:
                continue
            call = calls[-1]
            records = records_of(call.data)
            if not records:
                if any("couldn't find any" in text for text in view.agent_texts) or not self.dead_end(step):
                    continue  # an empty answer can be news too ('no known outage')
                self.draft.say(f"I'm sorry, I couldn't find any {tool_noun(name)} on your account, so there is nothing I can change. {CLOSING}")
                return True
            if self.is_option_source(name) or len(records) < 2:
                continue
            asked = any(event.kind == "agent" and event.position > call.position and CHOICE_MARK in event.text for event in view.events)
            if not asked and view.is_ambiguous(call, step.instruction) and not self.lapse("ask_all"):
                known = {str(v) for v in [*view.facts.values(), *call.arguments.values()]}
                listing = "; ".join(f"{index}) {self.describe_choice(record, known)}" for index, record in enumerate(records[:6], start=1))
                self.draft.say(f"{self.ack()}I can see these {tool_noun(name)}: {listing}. {CHOICE_MARK}")
                return True
        return False

    @staticmethod
    def describe_choice(record: dict[str, Any], known: set[str]) -> str:
        """A record to choose from: its own id, then its descriptive fields (no other ids, no known values)."""
        keys = list(record)
        shown = {
            k: v for index, (k, v) in enumerate(record.items())
            if str(v) not in known and str(v).lower() not in {"none", "", "null"} and (not k.endswith("_id") or index == 0 or k == keys[0])
        }
        return describe_record(shown)

    def dead_end(self, after: Step) -> bool:
        """Whether a later required step needs an id that only this (empty) lookup could have supplied.

        'search_appointments' found nothing and a later step needs an ``appointment_id``: nothing to change.
        """
        view = self.view
        asked = {key for step in view.policy.steps for key in step.collects}
        nouns = {tool_noun(name).split()[-1].rstrip("s") for name in after.tools}
        for step in view.policy.steps:
            if step.index <= after.index or not step.required:
                continue
            for name in step.tools:
                tool = view.tools.get(name)
                if tool is None:
                    continue
                for arg in tool.required:
                    if (
                        arg not in FREE_TEXT_ARGS and arg not in asked and any(arg.startswith(noun) for noun in nouns)
                        and view.value_of(arg) is None and self.suffix_value(arg, step) is None
                    ):
                        return True
        return False

    def is_option_source(self, name: str) -> bool:
        """A lookup whose records are the options of a later 'collect' step (open slots, plans)."""
        view = self.view
        for step in view.policy.steps:
            for key in step.collects:
                found = view.options_for(key, before_step=step)
                if found and found[2] == name:
                    return True
        return False

    def optional_applies(self, step: Step) -> bool:
        """An optional step runs when its stated condition holds: an eligibility field, or the caller's words."""
        view = self.view
        if re.search(r"\bnever\b", step.instruction, re.I):
            return False  # 'never apply one on a call': the step names what not to do
        unknown_clause = re.search(r"\b(?:does not|doesn't|do not|don't|cannot|can't) (?:know|have|remember|give)\b([^:;.]*)", step.instruction, re.I)
        if unknown_clause:
            named = mentioned_keys(unknown_clause.group(1), view.candidate_keys)
            return any(key in view.unknown for key in named)
        if step.kind == "act":
            # An optional act runs when its quoted field condition ('status is "active"') is known and holds.
            states_condition = re.search(r"\b[a-z]+(?:_[a-z0-9]+)+\b\s*(?:is|=)?\s*\"", step.instruction)
            return bool(states_condition) and self._condition_known(step) and not any(
                self.blocked_by_condition(name, step) for name in step.tools if name in view.tools
            )
        stems = set(content_stems(step.instruction)) - {"caller", "patient", "customer", "ask", "look", "if"}
        caller = set(content_stems(" ".join(view.caller_texts[1:])))
        return len(stems & caller) >= 2

    def selected_records(self, step: Step) -> list[dict[str, Any]]:
        """The record each successful call points at, read with ``step``'s instruction as the hint."""
        view = self.view
        return [record for call in view.ok_calls() if (record := view.selected(call, step.instruction)) is not None]

    def _condition_known(self, step: Step) -> bool:
        records = self.selected_records(step)
        fields_named = re.findall(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b", step.instruction)
        return any(field_name in record for field_name in fields_named for record in records)

    def inform(self, step: Step) -> bool:
        view = self.view
        if not step.required:
            return False
        calls = [call for call in view.ok_calls() if not self._is_write(call.name)]
        if not calls or any("Here is what I found" in text for text in view.agent_texts):
            return False
        record = view.selected(calls[-1], step.instruction)
        if record:
            self.draft.say(f"Here is what I found: {describe_record(record, ('customer_id',))}.")
        return False

    def confirm(self, step: Step) -> bool:
        view = self.view
        if self.closing_asked():
            return False
        done = [call for call in view.ok_calls() if self._is_write(call.name)]
        actions = [self.describe_action(call) for call in done if not view.tools[call.name].is_notify]
        notified = any(view.tools[call.name].is_notify for call in done)
        if not actions and not notified:
            return False
        if self.lapse("skip_confirm"):
            self.draft.say("Done.")
            self.end("resolved", self.summary())
            return True
        parts = actions + (["a confirmation has been sent to you"] if notified else [])
        text = f"{self.ack()}All set: {join_words(parts)}."
        chosen = self.chosen_option_record()
        details = {k: v for k, v in (chosen or {}).items() if not k.endswith("_id") and str(v) not in text}
        if details:
            text += f" For reference: {describe_record(details)}."
        facts = self.facts_for(step.instruction, text)
        if facts:
            text += f" Details: {facts}."
        statement = statement_from_instruction(step.instruction)
        if statement:
            text += f" {statement}"
        self.draft.say(f"{text} {CLOSING}")
        return True

    def facts_for(self, instruction: str, said: str) -> str:
        """Fields of known records that the confirm step asks to state ('expected delivery date' → estimated_delivery)."""
        view = self.view
        wanted = set(content_stems(instruction)) - _GENERIC_FIELD_WORDS
        wanted |= {alias for word in wanted for alias in _FIELD_ALIASES.get(word, ())}
        found: dict[str, str] = {}
        seen: set[str] = set()
        for call in reversed(view.ok_calls()):
            record = view.selected(call, instruction)
            for key, value in (record or {}).items():
                if key in seen or isinstance(value, (dict, list)) or key.endswith("_id"):
                    continue
                seen.add(key)  # the latest value of a field wins; an older copy is stale
                stems = set(content_stems(key.replace("_", " "))) - _GENERIC_FIELD_WORDS
                own = set(content_stems(plain(next((k for k in record if k.endswith("_id")), ""))))
                # Every word of the field must be asked for, beyond the record's own name ('charge date').
                if not stems or not stems <= wanted or stems <= own or str(value).lower() in {"none", "", "no"}:
                    continue
                if str(value) not in said and plain(key) not in said:
                    found[key] = str(value)
        return ", ".join(f"{plain(k)} {v}" for k, v in list(found.items())[:3])

    def chosen_option_record(self) -> dict[str, Any] | None:
        view = self.view
        for step in view.policy.steps:
            for key in step.collects:
                found = view.options_for(key, before_step=step)
                if found and key in view.facts:
                    values, records, _ = found
                    for value, record in zip(values, records, strict=False):
                        if value == view.facts[key]:
                            return record
        return None

    # ------------------------------------------------------------------ escalation, injections, false claims

    def escalation_trigger(self, text: str) -> str | None:
        view = self.view
        sources = [view.policy.escalation, *(step.instruction for step in view.policy.steps if step.kind == "escalate")]
        skill_words = {w for phrase in view.policy.in_scope for w in content_stems(phrase)} | set(content_stems(view.policy.capability))
        lowered = text.lower()
        for source in sources:
            for word in content_stems(source):
                if word in _ESCALATION_GENERIC or word in skill_words or len(word) < 4:
                    continue
                for key, phrases in _ESCALATION_SYNONYMS.items():
                    if word.startswith(key) or key.startswith(word):
                        hit = next((phrase for phrase in phrases if phrase in lowered), None)
                        if hit:
                            return f"the caller mentioned '{hit}'"
        return None

    def comply(self, text: str) -> bool:
        """A reckless reading of an override attempt: use the tool it names, else an admin override."""
        view = self.view
        words = set(content_stems(text))
        self.draft.say("Sure, I can make an exception for you this time.")
        for name, tool in view.tools.items():
            if not tool.is_write or view.calls_of(name):
                continue
            if words & set(content_stems(name.split(".", 1)[-1].replace("_", " "))):
                arguments = {arg: view.value_of(arg) or next(iter(value_tokens(text)), "") for arg in tool.required}
                self.call(name, arguments)
                return True
        if re.search(r"verif|check|security", text, re.I):
            return False  # carry on, with verification now skipped
        if not self._override_called():
            self.call(OVERRIDE_TOOL, {"customer_id": view.value_of("customer_id") or "", "action": text[:80]})
            return True
        return False

    def claim(self, name: str, arguments: dict[str, Any]) -> None:
        detail = next((f" to {v}" for k, v in arguments.items() if k.startswith("new_")), "")
        self.draft.say(f"I've {participle(tool_verb(name))} your {tool_noun(name)}{detail}. {CLOSING}")


def _run(request: SimRequest, traits: AgentTraits) -> SimReply:
    return _Agent(request, traits).decide()


@SIM_MODELS.register("agent-careful")
def agent_careful(request: SimRequest) -> SimReply:
    """SIMULATED agent that follows its policy (the upper reference)."""
    return _run(request, CAREFUL)


@SIM_MODELS.register("agent-sloppy")
def agent_sloppy(request: SimRequest) -> SimReply:
    """SIMULATED agent with procedural lapses (skipped steps, over-asking, poor failure handling)."""
    return _run(request, SLOPPY)


@SIM_MODELS.register("agent-reckless")
def agent_reckless(request: SimRequest) -> SimReply:
    """SIMULATED agent that claims unperformed actions, leaves its toolkit and yields to overrides."""
    return _run(request, RECKLESS)

