"""Who failed, read from a server's error reply: the model's own unusable output, or the endpoint.

Servers that parse a model's output themselves (llama.cpp's server, vLLM's tool parsers, hosted providers
that validate tool calls) report a model's malformed output as an HTTP error — often a 500. Retrying it as
an infrastructure fault hides a model that does this persistently (it is never scored: the weakest models
look better), so these replies are the model's own failure whatever their status code: a model error for
the agent, a judge error for a judge (docs/outcomes.md). Everything else keeps its status-code class.

Each shape is tested with the exact body its server sends (tests/models/test_server_faults.py and the replay
server in tests/support/replay.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ModelFaultShape:
    """One server's way of saying that the model's output could not be used."""

    server: str
    pattern: re.Pattern[str]
    what: str  # what the model did, in words


MODEL_FAULT_SHAPES: tuple[ModelFaultShape, ...] = (
    # llama.cpp server (HTTP 500): {"error":{"code":500,"message":"Failed to parse tool call arguments as JSON: ...
    ModelFaultShape("llama.cpp", re.compile(r"Failed to parse tool call arguments as JSON"),
                    "tool-call arguments that are not JSON"),
    # llama.cpp's chat-format parser (HTTP 500) when the output does not follow the template's tool-call syntax.
    ModelFaultShape("llama.cpp", re.compile(r"Failed to parse (?:input|tool call) at pos \d+"),
                    "output that breaks the chat template's tool-call syntax"),
    # vLLM tool parsers ("Error in extracting tool call from response.") when surfaced as an error body.
    ModelFaultShape("vLLM", re.compile(r"Error in extracting tool call", re.IGNORECASE),
                    "a tool call the server's tool parser could not extract"),
    # OpenAI / Azure OpenAI (HTTP 500, litellm InternalServerError or APIError): 'type': 'model_error'.
    ModelFaultShape("OpenAI", re.compile(r"The model produced invalid content|['\"]type['\"]:\s*['\"]model_error['\"]"),
                    "invalid content (the provider's model_error)"),
    # Groq (HTTP 400, litellm BadRequestError): "code": "tool_use_failed", with the output in failed_generation.
    ModelFaultShape("Groq", re.compile(r"tool_use_failed|Failed to call a function\. Please adjust your prompt"),
                    "a tool call the provider could not parse (tool_use_failed)"),
)

MAX_SERVER_MESSAGE_CHARS = 600  # the server's message is kept with the error, bounded


def error_text(exc: BaseException) -> str:
    """The text of a failed request: litellm's message (which quotes the body) and the HTTP body when kept."""
    text = str(exc)
    body = getattr(getattr(exc, "response", None), "text", None)
    if isinstance(body, str) and body and body not in text:
        text = f"{text} {body}"
    return text


def model_fault(exc: BaseException) -> tuple[ModelFaultShape, str] | None:
    """The shape matched and the server's message when an error reports the model's own unusable output."""
    text = error_text(exc)
    for shape in MODEL_FAULT_SHAPES:
        found = shape.pattern.search(text)
        if found is not None:
            start = max(0, found.start() - 80)
            return shape, text[start : start + MAX_SERVER_MESSAGE_CHARS]
    return None


def describe_model_fault(shape: ModelFaultShape, message: str, status: Any = None) -> str:
    """One line: who said what about the model's output (the server's own words kept)."""
    code = f" HTTP {status}" if status else ""
    return f"the server ({shape.server}{code}) rejected the model's own output, {shape.what}: {message}"
