"""The shared state and small actions of a SIMULATED agent's decision (see ``agent.py``)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from skillbench.prompts.agent import END_CONVERSATION, TRANSFER_TO_HUMAN
from skillbench.simulated.agent_view import (
    AgentView,
)
from skillbench.simulated.base import SimReply, SimToolCall


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


class AgentBase:
    """What every part of a simulated agent's decision shares: the request read once, the lapses drawn, the draft."""

    view: AgentView
    lapses: set[str]  # the lapses drawn for this conversation (AgentTraits field names)
    rng: random.Random  # phrasing choices, per call
    draft: Draft
    force_verify: bool  # a skipped verification is done late after all (only it returns a needed value)

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

    def _is_write(self, name: str) -> bool:
        tool = self.view.tools.get(name)
        return bool(tool and tool.is_write)
