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

The decision is split by concern: ``agent_policy`` (the careful procedure), ``agent_lapses`` (the
traits and what a drawn lapse does), ``agent_phrasing`` (the words), ``agent_base`` (shared state).
"""

from __future__ import annotations

from dataclasses import fields, replace

from skillbench.prompts.agent import split_checklist
from skillbench.simulated.agent_view import (
    AgentView,
    read_agent_request,
)
from skillbench.simulated.base import SIM_MODELS, SimReply, SimRequest
from skillbench.simulated.profiles.agent_base import Draft
from skillbench.simulated.profiles.agent_lapses import CAREFUL, RECKLESS, SLOPPY, AgentTraits
from skillbench.simulated.profiles.agent_policy import PolicyFollower
from skillbench.simulated.seeding import conversation_rng

__all__ = ["CAREFUL", "RECKLESS", "SLOPPY", "AgentTraits", "agent_careful", "agent_reckless", "agent_sloppy"]


class _Agent(PolicyFollower):
    """One decision of a simulated agent, from its request alone."""

    def __init__(self, request: SimRequest, traits: AgentTraits) -> None:
        self.view: AgentView = read_agent_request(request)
        # A checklist an agent program appended to the prompt changes no draw: the same conversation draws the
        # same lapses and words, and the checklist then only prevents the lapses that skip a step it lists.
        plain = _without_checklist(request)
        rng = conversation_rng(plain, "lapses")
        self.lapses = {f.name for f in fields(traits) if rng.random() < getattr(traits, f.name)}
        if self.view.policy.checklist:
            self.lapses -= CHECKLIST_PREVENTS
        self.rng = plain.rng("phrasing")
        self.draft = Draft()
        self.force_verify = False


# Lapses of skipping a step; a simulated agent given a checklist (render_checklist) does not make them.
CHECKLIST_PREVENTS = frozenset({"skip_verify", "skip_notify", "skip_confirm", "end_early"})


def _without_checklist(request: SimRequest) -> SimRequest:
    """The request as it would be without an appended checklist (the same object when there is none)."""
    first = request.messages[0] if request.messages else {}
    content = first.get("content")
    if first.get("role") != "system" or not isinstance(content, str):
        return request
    plain, items = split_checklist(content)
    if not items:
        return request
    return replace(request, messages=[{**first, "content": plain}, *request.messages[1:]])


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

