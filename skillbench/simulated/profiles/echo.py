"""A trivial simulated model for plumbing tests: repeats the last user message."""

from __future__ import annotations

from skillbench.simulated.base import SIM_MODELS, SimReply, SimRequest


@SIM_MODELS.register("echo")
def echo(request: SimRequest) -> SimReply:
    last = next((m for m in reversed(request.messages) if m.get("role") == "user"), {"content": ""})
    return SimReply(content=f"echo: {last.get('content') or ''}")
