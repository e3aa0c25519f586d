"""Scripted fake models (like inspect_ai's ``mockllm``): fixed replies, for tests that need *some* conversation.

A script is a list of replies and a default. The reply to a request is the script's item at the
request's position in its conversation (the number of assistant messages already in it: this model's
own earlier replies), else the default. That is stateless, so concurrent conversations and reruns
get the same replies. Three scripts are registered as models:

* ``skillbench_sim/scripted-agent``: greets, then ends the conversation ``resolved``;
* ``skillbench_sim/scripted-user``: states a request, thanks, then replies with the stop marker;
* ``skillbench_sim/scripted-judge``: a top-score verdict; ``scripted-judge-strict``: one point less workflow.

Tests script their own with :func:`scripted_model`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skillbench.core.rubric import DIMENSIONS
from skillbench.prompts.agent import END_CONVERSATION
from skillbench.simulated.base import PROVIDER, SIM_MODELS, SimReply, SimRequest, SimToolCall

PREFIX = "scripted-"
STOP_MARKER = "###STOP###"  # the stop marker of the shipped user-simulator configs


def say(text: str) -> SimReply:
    return SimReply(content=text)


def call(name: str, text: str | None = None, **arguments: Any) -> SimReply:
    """A reply with one tool call (``name`` as the agent was offered it), and optionally some text."""
    return SimReply(content=text, tool_calls=[SimToolCall(name, arguments)])


def verdict(**overrides: Any) -> SimReply:
    """A judge reply: success and every dimension at its top score, unless overridden."""
    scores: dict[str, Any] = {"task_completion": "success", **{d.name: d.high for d in DIMENSIONS},
                              "hallucinated_action": False, "explanation": "scripted verdict"}
    scores.update(overrides)
    return SimReply(content=json.dumps(scores))


OK = SimReply(content="OK.")


@dataclass(frozen=True)
class Script:
    replies: tuple[SimReply, ...] = ()
    default: SimReply = OK

    def __call__(self, request: SimRequest) -> SimReply:
        position = sum(1 for message in request.messages if message.get("role") == "assistant")
        return self.replies[position] if position < len(self.replies) else self.default


_SCRIPTS: dict[str, Script] = {}


def _serve(name: str) -> Any:
    # One registered function per name that reads the current script, so a test may re-script a name.
    return lambda request: _SCRIPTS[name](request)


def scripted_model(name: str, replies: Sequence[SimReply] = (), default: SimReply | None = None) -> str:
    """Script the model ``scripted-<name>`` and return its model string (``skillbench_sim/scripted-<name>``)."""
    full = PREFIX + name
    _SCRIPTS[full] = Script(tuple(replies), default or OK)
    if full not in SIM_MODELS:
        SIM_MODELS.register(full)(_serve(full))
    return f"{PROVIDER}/{full}"


scripted_model("agent", [say("Hello, how can I help you today?")],
               default=call(END_CONVERSATION, "Glad I could help. Goodbye!", outcome="resolved", summary="Scripted ending."))
scripted_model("user", [say("Hi, I'd like some help with my account, please."), say("Thanks, that's all.")],
               default=say(STOP_MARKER))
scripted_model("judge", default=verdict())
scripted_model("judge-strict", default=verdict(workflow_adherence=4, explanation="scripted strict verdict"))
