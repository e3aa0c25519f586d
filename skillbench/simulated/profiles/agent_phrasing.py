"""Phrasing of the SIMULATED agents: the fixed sentences and how records and actions are put into words."""

from __future__ import annotations

from typing import Any

from skillbench.simulated.agent_view import (
    FREE_TEXT_ARGS,
    Call,
    describe_record,
    records_of,
)
from skillbench.simulated.phrasing import participle, tool_noun, tool_verb
from skillbench.simulated.profiles.agent_base import AgentBase
from skillbench.simulated.reading import (
    content_stems,
    plain,
)
from skillbench.simulated.speech import say_value
from skillbench.simulated.vocabulary import phrases as vocabulary_phrases
from skillbench.simulated.vocabulary import vocabulary

CLOSING = "Is there anything else I can help you with?"

CHOICE_MARK = "Which one do you mean?"

REFUSAL_MARK = "I can't share or change anything on this account"

CREATING_VERBS = frozenset({"create", "open", "order", "add", "submit", "file", "log", "raise", "book", "request"})


# Words of a confirm instruction too vague to pick a record field by ('date' alone, 'new', 'status').
_GENERIC_FIELD_WORDS = frozenset(content_stems(vocabulary()["confirm_generic_field_words"]))

_FIELD_ALIASES: dict[str, tuple[str, ...]] = vocabulary_phrases("confirm_field_aliases")



class Phrasing(AgentBase):
    """How a simulated agent words things: acknowledgements, records, actions done, composed free text."""

    def summary(self) -> str:
        done = [f"{tool_noun(call.name)} {participle(tool_verb(call.name))}" for call in self.view.ok_calls() if self._is_write(call.name)]
        return ("Handled the request: " + ", ".join(done) + ".") if done else "Handled the caller's request under policy."

    def ack(self) -> str:
        view = self.view
        if view.last_event is not None and view.last_event.kind == "caller" and len(view.caller_texts) > 1:
            return self.pick("Thank you. ", "Thanks. ", "Got it, thank you. ")
        wrote = any(self._is_write(call.name) and call.ok for call in view.calls)
        if view.verification() and not wrote and not any("verified" in text for text in view.agent_texts):
            name = view.value_of("full_name")
            return f"Thank you{', ' + name if name else ''}, you're verified. "
        return ""

    def describe_option(self, value: str, record: dict[str, Any]) -> str:
        """'2026-12-03T09:30' or 'MOB-UNL (name Unlimited, monthly price 30.00)': the value, then its details."""
        details = {k: v for k, v in record.items() if str(v) != value and not k.endswith("_id") and k not in self.view.facts}
        return value + (f" ({describe_record(details)})" if details else "")

    @staticmethod
    def describe_choice(record: dict[str, Any], known: set[str]) -> str:
        """A record to choose from: its own id, then its descriptive fields (no other ids, no known values)."""
        keys = list(record)
        shown = {
            k: v for index, (k, v) in enumerate(record.items())
            if str(v) not in known and str(v).lower() not in {"none", "", "null"} and (not k.endswith("_id") or index == 0 or k == keys[0])
        }
        return describe_record(shown)

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
            f"{plain(k)} {v if isinstance(v, str) else say_value(v)}" for k, v in call.arguments.items()
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
