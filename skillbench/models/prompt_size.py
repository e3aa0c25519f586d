"""How big a prompt is, before it is sent: the per-call cap (``<role>.max_prompt_tokens``) and the size the dry run
adds for large scenarios.

Tokens are estimated as characters / 4 (the usual rule of thumb for English and JSON with BPE tokenizers), which
needs no tokenizer and costs microseconds even for a 10 MB prompt; the cap is a guard against runaway inputs, not a
context-window calculator, so this precision is enough.
"""

from __future__ import annotations

import json
from typing import Any

CHARS_PER_TOKEN = 4
# Scenario content the dry run's per-call assumptions already include; only what a scenario has beyond it is added.
TYPICAL_SCENARIO_TOKENS = 4_000  # the shipped scenarios with their skill: 1,216-2,224


def estimate_tokens(content: Any) -> int:
    """Estimated tokens of text, or of any JSON-able content as it would be sent."""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
    return -(-len(text) // CHARS_PER_TOKEN)


def prompt_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """A request's estimated prompt tokens (its messages and tools): the cap's measure and a tokens/minute pace's."""
    return estimate_tokens(messages) + (estimate_tokens(tools) if tools else 0)


def prompt_problem(name: str, role: str, cap: int | None, size: int) -> str | None:
    """Why a request of ``size`` prompt tokens (:func:`prompt_tokens`) must not be sent (over the cap), or None."""
    if cap is None or size <= cap:
        return None
    return (f"{name}: the prompt is about {size:,} tokens, over {role}.max_prompt_tokens={cap:,}; nothing was sent. "
            f"Fix: shorten the input, or raise {role}.max_prompt_tokens if the model takes it")


def scenario_tokens(scenario: Any, skill: Any) -> int:
    """What a scenario brings into every prompt of its conversation: its own content and its skill's."""
    return estimate_tokens(scenario.model_dump(mode="json")) + estimate_tokens(skill.model_dump(mode="json"))
