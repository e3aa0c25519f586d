"""The contract of an offline simulated model: a deterministic function of what a real model would see."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from skillbench.core.registry import Registry

PROVIDER = "skillbench_sim"


@dataclass(frozen=True)
class SimRequest:
    """What the simulated model is given: exactly the request a real model would get, nothing more."""

    model: str  # the name after 'skillbench_sim/', e.g. 'agent-careful'
    messages: list[dict[str, Any]]  # OpenAI chat format (system, user, assistant with tool_calls, tool)
    tools: list[dict[str, Any]] = field(default_factory=list)  # OpenAI tool definitions offered
    seed: int | None = None
    response_format: dict[str, Any] | None = None

    def rng(self, salt: str = "") -> random.Random:
        """A generator seeded by the seed and the full request: same request → same choices."""
        blob = json.dumps([self.model, self.seed, self.messages, salt], sort_keys=True, default=str)
        return random.Random(int(hashlib.sha256(blob.encode()).hexdigest()[:16], 16))


@dataclass(frozen=True)
class SimToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class SimReply:
    content: str | None = None
    tool_calls: list[SimToolCall] = field(default_factory=list)


SimModel = Callable[[SimRequest], SimReply]

# Name after the provider prefix → simulated model. Profiles register themselves on import.
SIM_MODELS: Registry[SimModel] = Registry("simulated model")
