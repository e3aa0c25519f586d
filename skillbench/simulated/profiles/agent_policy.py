"""Following the policy: the one procedure all SIMULATED agents run over their system prompt's workflow steps."""

from __future__ import annotations

import re
from typing import Any

from skillbench.simulated.agent_view import (
    FREE_TEXT_ARGS,
    Step,
    describe_record,
    records_of,
)
from skillbench.simulated.base import SimReply
from skillbench.simulated.phrasing import statement_from_instruction, tool_noun, tool_verb
from skillbench.simulated.profiles.agent_lapses import OVERRIDE_TOOL, Lapses
from skillbench.simulated.profiles.agent_phrasing import (
    CHOICE_MARK,
    CLOSING,
    REFUSAL_MARK,
    Phrasing,
)
from skillbench.simulated.reading import (
    GENERIC_HEADS,
    asks_for_human,
    content_stems,
    is_goodbye,
    is_injection,
    join_words,
    mentioned_keys,
    plain,
)
from skillbench.simulated.scope import in_scope
from skillbench.simulated.speech import quote
from skillbench.simulated.vocabulary import phrases as vocabulary_phrases
from skillbench.simulated.vocabulary import vocabulary

MAX_QUESTIONS = 2  # the guardrail every skill states: at most two questions at a time

MAX_TOOL_ATTEMPTS = 3  # one call and two retries


# Domain words (vocabulary.yaml): what an escalation clause's trigger sounds like, how confirm steps name fields.
_ESCALATION_GENERIC = frozenset(content_stems(vocabulary()["escalation_generic_words"]))

_ESCALATION_SYNONYMS: dict[str, tuple[str, ...]] = vocabulary_phrases("escalation_synonyms")



def typed_value(value: Any, schema: dict[str, Any]) -> Any:
    """A value as the argument's JSON type wants it, as a model reads a tool's schema. A list or mapping keeps
    its shape; a scalar is converted: 'T-104 and T-233' to a list for an array, '7' to a number for an
    integer, 'true' to a boolean, a number to text for a string. (The caller's prompt shows the number 7 and
    the text '7' alike, so the schema decides.) A value that does not read as that type stays as it is."""
    kind = schema.get("type")
    if kind == "array" and isinstance(value, str):
        items = [item.strip().strip(".") for item in re.split(r",\s*(?:and\s+)?|\s+and\s+|\s*;\s*", value) if item.strip()]
        return [typed_value(item, schema.get("items") or {}) for item in items]
    if kind in {"integer", "number"} and isinstance(value, str):
        found = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(?:days?|nights?|weeks?)?\s*", value)
        if found:
            text = found.group(1)
            number = int(text) if re.fullmatch(r"-?\d+", text) else float(text)  # '3.0' stays a float, as said
            return int(number) if kind == "integer" and float(number).is_integer() else number
    if kind == "boolean" and isinstance(value, str) and value.strip().lower() in _BOOLEAN_WORDS:
        return _BOOLEAN_WORDS[value.strip().lower()]
    if kind == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


# The caller's prompt shows a boolean fact as 'true' (prompts.user.fact_text): the schema says it is one.
_BOOLEAN_WORDS = {"true": True, "false": False, "yes": True, "no": False}


class PolicyFollower(Lapses, Phrasing):
    """The careful procedure over the workflow steps of the system prompt; a drawn lapse turns a branch off."""

    def closing_asked(self) -> bool:
        """The agent has said its closing question and nothing has been done since."""
        view = self.view
        last_write = max((call.position for call in view.ok_calls() if self._is_write(call.name)), default=-1)
        since = max(last_write, view.segment_start)
        return any(event.kind == "agent" and CLOSING in event.text and event.position > since for event in view.events)

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
        tools, collects = step.tools, step.collects
        if step.alternatives:
            way = self.choose_way(step)
            if way is None:  # the record's state rules out every way ('when status is ...')
                return self.condition_failed(step, step.all_tools()[0], self.ruled_out(step)) if step.kind == "act" else False
            tools, collects = way
        # 1. facts the step collects from the caller
        missing = [key for key in collects if not self.have(key)]
        for key in collects:
            if key in view.facts and not self.lapse("ask_all"):
                found = view.options_for(key, before_step=step)
                if found and found[0] and str(view.facts[key]) not in found[0]:
                    self.draft.say(f"I'm sorry, {view.facts[key]} isn't one of the available options.")
                    missing.append(key)
        if missing:
            return self.collect(step, missing)
        # 2. the step's tools, in order
        for name in tools:
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
        if step.kind == "act" and self.lapse("end_early") and any(self._is_write(n) and view.ok_calls(n) for n in tools):
            self.draft.say("Done! That's all sorted.")
            self.end("resolved", self.summary())
            return True
        # 3. after a lookup: nothing found, or several records the caller must choose between
        if step.kind == "lookup":
            return self.after_lookup(step)
        return False

    def choose_way(self, step: Step) -> tuple[list[str], list[str]] | None:
        """The way through a step with alternatives: the one already taken in this request, else, among the ways the
        record's state allows (a way's 'when'), the first whose facts are in hand, else the first the caller has not
        said they cannot give (asking for its facts, at most two at a time; a caller who does not know their e-mail
        is then asked for the next way's facts). None when the record's state rules out every way."""
        view = self.view
        for tools, collects in step.ways():
            # Taken already: its own result may change the field its 'when' read (a reprint job is 'queued').
            if any(view.calls_of(name) for name in tools):
                return tools, collects
        careless = self.lapse("ignore_conditions")  # takes a way without checking the record's state
        states = [(tools, collects, True if careless else self.way_state(when)) for tools, collects, when in step.conditioned_ways()]
        ways = [(tools, collects) for tools, collects, state in states if state is True]
        if not ways:
            if states and all(state is False for _, _, state in states):
                return None
            ways = [(tools, collects) for tools, collects, state in states if state is not False]
        for tools, collects in ways:
            if all(self.have(key) for key in collects):
                return tools, collects
        possible = [(tools, collects) for tools, collects in ways if not any(key in view.unknown for key in collects)]
        return possible[0] if possible else ways[0]

    def record_value(self, name: str) -> str | None:
        """The field ``name`` of the latest record a successful call returned (never a caller's fact)."""
        view = self.view
        for call in reversed(view.ok_calls()):
            record = view.selected(call, "")
            if record is not None and name in record and not isinstance(record[name], (dict, list)):
                return str(record[name])
        return None

    def way_state(self, when: dict[str, list[str]]) -> bool | None:
        """Whether a way's condition holds for the record the request is about; None while a field is unseen."""
        values = {name: self.record_value(name) for name in when}
        if any(value is None for value in values.values()):
            return None
        return all(values[name] in accepted for name, accepted in when.items())

    def ruled_out(self, step: Step) -> str:
        fields = dict.fromkeys(name for _, _, when in step.conditioned_ways() for name in when)
        return join_words([f"the {plain(name)} is {self.record_value(name)}" for name in fields])

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

    def fill(self, name: str, step: Step) -> tuple[dict[str, Any], list[str]]:
        view = self.view
        tool = view.tools[name]
        arguments: dict[str, Any] = {}
        absent: list[str] = []
        for arg in tool.properties:
            if arg in FREE_TEXT_ARGS:
                arguments[arg] = self.compose(arg, name)
                continue
            value = view.value_of(arg, hint=step.instruction)
            if value is None or (value == "" and arg in view.unknown):  # '': a fact the caller lacks and no tool needs
                value = self.suffix_value(arg, step)
            if value is not None and tool.is_write and not tool.is_notify and self.lapse("wrong_record"):
                value = self.wrong_record_value(arg, step.instruction) or value
            if value is not None:
                arguments[arg] = typed_value(value, tool.properties.get(arg, {}))
            elif arg in tool.required:
                absent.append(arg)
        return arguments, absent

    def suffix_value(self, arg: str, step: Step) -> Any:
        """A field named like the argument with a qualifier ('install_postcode' for 'postcode'); never the caller's
        new value for the old one (``new_item_ids`` is not ``item_ids``)."""
        view = self.view
        for call in reversed(view.ok_calls()):
            record = view.selected(call, step.instruction)
            if record:
                for key, value in record.items():
                    if key.endswith("_" + arg) and not isinstance(value, (dict, list)):
                        return str(value)
        for key, value in view.facts.items():
            if key.endswith("_" + arg) and value not in (None, "") and key[: -len(arg) - 1] not in GENERIC_HEADS:
                return value
        return None

    def on_failure(self, step: Step, name: str) -> bool:
        view = self.view
        errors = view.trailing_errors(name)
        last = view.calls_of(name)[-1]
        if last.refused and not self.lapse("retry_forever"):
            # The system refused under a business rule (not a fault): retrying cannot help; say why (its own words,
            # quoted: they are the system's, not the agent's) and stop.
            return self.condition_failed(step, name, f"the system answered {quote(last.error.strip())}")
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

    def chosen_option_record(self) -> dict[str, Any] | None:
        view = self.view
        for step in view.policy.steps:
            for key in step.collects:
                found = view.options_for(key, before_step=step)
                if found and key in view.facts:
                    values, records, _ = found
                    for value, record in zip(values, records, strict=False):
                        if value == str(view.facts[key]):
                            return record
        return None

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
