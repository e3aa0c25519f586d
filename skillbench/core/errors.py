"""Errors a user can cause. Each carries one message naming the file, the field and the fix."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import ValidationError

from skillbench.core.records import ToolErrorKind, Usage


class SkillbenchError(Exception):
    """Base for every error whose message is meant for the user, not a traceback."""


class ConfigError(SkillbenchError):
    """The composed Hydra config is invalid (unknown key, bad value)."""


class BenchmarkDataError(SkillbenchError):
    """A benchmark data file (tool, skill or scenario) is missing, malformed or inconsistent."""


CONFIG_ERROR_PREFIX = "configuration error"  # infra messages of a provider refusing a request built from valid inputs
THROTTLED_MARK = "still rate-limited"  # in the message of a call the provider kept waiting past its patience


class InfrastructureError(SkillbenchError):
    """A model endpoint or tool server failed for reasons that are not the model's behaviour.

    ``usage`` counts the attempts spent before giving up; ``retryable`` is False when repeating the
    same request cannot help (a provider refused a request built from valid inputs: a configuration error);
    ``throttled`` when a live endpoint kept rate-limiting past the call's patience (the conversation is not
    restarted in this run: its row stays unscored and a rerun does it).
    """

    def __init__(self, message: str, *, usage: Usage | None = None, retryable: bool = True, throttled: bool = False,
                 status: int | None = None) -> None:
        super().__init__(message)
        self.usage = usage
        self.retryable = retryable
        self.throttled = throttled
        self.status = status  # the HTTP status of the endpoint's last answer, when it gave one
        self.by_role: dict[str, Usage] = {}  # a whole conversation's spend, set by the rollout that gave up
        # Where it came from, for the agent's side: "agent_model" (a model call of the agent) or "agent_program"
        # (raised by the agent program itself); None elsewhere. Set on the way out of the agent's reply.
        self.origin: str | None = None
        self.partial: Any = None  # the conversation so far (a Rollout), set by the rollout that gave up


class BenchmarkCodeError(SkillbenchError):
    """The benchmark's own code failed: a domain's code tool raised something other than a refusal or ran past its
    limit, or a plug-in rule check raised. Never the agent's failure and never infrastructure: it is not retried
    (the same code fails the same way) and the row is a benchmark error, unscored, until that code is fixed.
    ``traceback`` is the guest code's (written to the job's ``tracebacks/`` folder)."""

    def __init__(self, message: str, *, traceback: str = "") -> None:
        super().__init__(message)
        self.traceback = traceback
        self.by_role: dict[str, Usage] = {}  # what the conversation had spent when it stopped


class ModelOutputError(SkillbenchError):
    """The provider refused a request because of what the model itself produced earlier (its own
    invalid tool-call arguments or empty message echoed back): the model's failure, not infrastructure."""

    def __init__(self, message: str, *, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage


def first_error(exc: ValidationError) -> tuple[str, str]:
    """The first validation error as (dotted field path, message): what a one-line user message names."""
    err = exc.errors()[0]
    return ".".join(str(p) for p in err["loc"]), err["msg"]


def first_cause_first(exc: ValidationError) -> list[Any]:
    """Validation errors with unknown keys first: a misspelt key also shows up as a missing one."""
    return sorted(exc.errors(), key=lambda err: err["type"] != "extra_forbidden")


def spelling_hint(extra: Any, errors: list[Any]) -> str | None:
    """'rename X to Y' when an unknown key is a near miss of a missing or known field at the same level."""
    wrong = str(extra["loc"][-1])
    parent = tuple(extra["loc"][:-1])
    missing = [str(err["loc"][-1]) for err in errors if err["type"] == "missing" and tuple(err["loc"][:-1]) == parent]
    match = difflib.get_close_matches(wrong, missing, n=1, cutoff=0.6)
    return f"rename '{wrong}' to '{match[0]}'" if match else None


class ToolError(Exception):
    """A tool call that ends in an MCP ``isError`` result; ``message`` is the text the agent reads."""

    def __init__(self, kind: ToolErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ToolErrorKind = kind
        self.message = message
