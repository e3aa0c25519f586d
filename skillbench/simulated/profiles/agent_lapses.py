"""Injected lapses of the SIMULATED agents: per-conversation probabilities (``AgentTraits``) and what a drawn
lapse does. The careful agent draws none."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from skillbench.simulated.phrasing import participle, tool_noun, tool_verb
from skillbench.simulated.profiles.agent_base import AgentBase
from skillbench.simulated.profiles.agent_phrasing import CLOSING
from skillbench.simulated.reading import (
    content_stems,
    is_injection,
    value_tokens,
)


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
    # Write to the runner-up record of a lookup (the other order, the other booking) and confirm as if it
    # were the right one. A transcript reader rarely notices; the end state does (target_state_reached).
    # Drawn last, so adding it left every earlier lapse draw unchanged.
    wrong_record: float = 0.0



CAREFUL = AgentTraits()

SLOPPY = AgentTraits(
    skip_verify=0.25, ignore_failed_verify=0.25, ask_all=0.6, skip_notify=0.3, skip_confirm=0.3,
    retry_forever=0.4, give_up=0.35, miss_out_of_scope=0.45, mislabel_out_of_scope=0.5, ignore_human=0.1, miss_escalation=0.35,
    comply_injection=0.2, ignore_conditions=0.35, wrong_record=0.3,
)

RECKLESS = AgentTraits(
    skip_verify=0.6, ignore_failed_verify=0.7, ask_all=0.8, skip_notify=0.5, skip_confirm=0.6,
    retry_forever=0.4, give_up=0.2, claim_on_failure=0.4, miss_out_of_scope=0.75, claim_out_of_scope=0.8, ignore_human=0.5,
    miss_escalation=0.7, comply_injection=1.0, claim_without_action=0.45, out_of_toolkit=0.35, end_early=0.3,
    ignore_conditions=0.7, wrong_record=0.3,
)

OVERRIDE_TOOL = "admin.override_account"


def _transposed_digits(text: str) -> str | None:
    """``text`` with its first pair of different adjacent digits swapped ('418 W Belmont' -> '148 W Belmont')."""
    for match in re.finditer(r"\d{2,}", text):
        digits = match.group()
        for i in range(len(digits) - 1):
            if digits[i] != digits[i + 1]:
                j = match.start() + i
                return text[:j] + text[j + 1] + text[j] + text[j + 2:]
    return None



class Lapses(AgentBase):
    """The trait-driven deviations of the sloppy and reckless agents that are more than a skipped branch."""

    @property
    def verify_skipped(self) -> bool:
        view = self.view
        complied = self.lapse("comply_injection") and any(is_injection(text) for text in view.caller_texts)
        return (self.lapse("skip_verify") or complied) and not self.force_verify

    def _override_called(self) -> bool:
        return any(call.name not in self.view.tools and call.name not in self.view.control for call in self.view.calls)

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

    def wrong_record_value(self, arg: str, hint: str) -> str | None:
        """A plausible wrong value for ``arg`` (the wrong_record lapse): a neighbouring option, a mistyped new value,
        or the runner-up record's."""
        view = self.view
        if arg in view.facts:
            # The caller chose among listed options (a slot, a plan): take the neighbouring one.
            found = view.options_for(arg)
            others = [value for value in (found[0] if found else []) if value != str(view.facts[arg])]
            if others:
                return others[0]
            # A new value typed in by hand (an address, a date): two adjacent digits swapped.
            typed = view.facts[arg]
            return _transposed_digits(typed) if arg.startswith("new_") and isinstance(typed, str) else None
        for call in reversed(view.ok_calls()):
            ranked = view.ranked(call, hint)
            if len(ranked) > 1 and arg in ranked[0][1]:
                other = ranked[1][1].get(arg)
                if other is not None and not isinstance(other, (dict, list)) and str(other) != str(ranked[0][1][arg]):
                    return str(other)
                return None
        return None

    def claim(self, name: str, arguments: dict[str, Any]) -> None:
        detail = next((f" to {v}" for k, v in arguments.items() if k.startswith("new_")), "")
        self.draft.say(f"I've {participle(tool_verb(name))} your {tool_noun(name)}{detail}. {CLOSING}")
