"""The prompts of skillbench's example agent programs (``skillbench/agents/examples``): a planner that drafts a
checklist from the policy, and a checker that says whether a draft reply claims only what tool calls did."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import Field

from skillbench.prompts.format import Record

PLANNER_PROMPT_VERSION = "planner-v1"
PLANNER_INSTRUCTION = (
    "You plan a customer-support conversation before it starts. Read the policy below and write the checklist "
    "an agent must complete, one item per line, each line starting with '- ': every workflow step in order "
    "(with the tools it uses), then confirming the outcome with the caller. Write nothing else."
)


def render_planner_request(policy: str) -> list[dict[str, Any]]:
    """The planner's messages: the instruction, then the agent's policy as given to the agent."""
    return [{"role": "system", "content": PLANNER_INSTRUCTION}, {"role": "user", "content": policy}]


def parse_plan(text: str | None, max_items: int) -> list[str]:
    """The checklist items of a planner reply ('- item' or '1. item' lines); [] when it has none."""
    items = [re.sub(r"^(?:[-*]|\d+[.)])\s+", "", line.strip()) for line in (text or "").splitlines()]
    kept = [item for item, line in zip(items, (text or "").splitlines(), strict=True) if item != line.strip() and item]
    return kept[:max_items]


CHECKER_PROMPT_VERSION = "checker-v1"
CHECKER_INSTRUCTION = (
    "You check a customer-support agent's draft reply before the caller sees it. Given the tool calls that "
    "succeeded and failed in this conversation, say whether every action the draft states as done is backed by a "
    "successful tool call. Answer with JSON only: {\"backed\": true|false, \"unbacked\": [<claimed actions>]}."
)


class CheckRequest(Record):
    """What the checker is shown: the draft and the conversation's tool calls by outcome."""

    draft: str = Field(description="The agent's draft reply to the caller.")
    succeeded: list[str] = Field(description="Tools whose calls succeeded, in call order.")
    failed: list[str] = Field(description="Tools whose calls failed, in call order.")


class CheckVerdict(Record):
    backed: bool = Field(description="Every action the draft states as done is backed by a successful call.")
    unbacked: list[str] = Field(default_factory=list, description="The claimed actions no successful call backs.")


def render_check_request(request: CheckRequest) -> list[dict[str, Any]]:
    return [{"role": "system", "content": CHECKER_INSTRUCTION}, {"role": "user", "content": request.model_dump_json()}]


def parse_check_request(text: str) -> CheckRequest:
    """The inverse of :func:`render_check_request`'s user message."""
    return CheckRequest.model_validate_json(text)


def parse_check_verdict(text: str | None) -> CheckVerdict | None:
    """The checker's JSON verdict (the first {...} in the reply); None when there is none."""
    found = re.search(r"\{.*\}", text or "", re.S)
    if not found:
        return None
    try:
        return CheckVerdict.model_validate(json.loads(found.group()))
    except ValueError:
        return None
