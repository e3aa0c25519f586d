"""What a self-hosted server says about itself, when it says it: llama.cpp's ``GET /props``.

A reply's ``model`` and ``system_fingerprint`` name the served alias and (llama.cpp) its build; they do not say
which model file is loaded or which chat template renders the request — and the template decides whether the
model sees the offered tools at all (SmolLM2's own drops them: docs/real-servers.md). llama.cpp's server reports
all of it at ``/props`` (``build_info``, ``model_path``, ``chat_template``, ``chat_template_caps``), so rows
record it in ``served_by`` and the preflight refuses an agent endpoint whose template renders no tools.
Servers without ``/props`` (vLLM, hosted APIs, the test stubs) give nothing: nothing is recorded or checked.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath

PROPS_TIMEOUT_S = 3.0  # /props is answered by the server's HTTP thread, not a model slot: fast even when busy


@dataclass(frozen=True)
class ServerProps:
    """llama.cpp's own account of what it serves (``GET /props``)."""

    build: str | None  # build_info, e.g. "b6936-6a2c1e0f" ("b0-unknown" when built without version info)
    model_file: str | None  # the loaded model file's name (model_path without its folders: no local paths in rows)
    chat_template: str | None  # sha256 of the chat template text, first 12 hex digits (see template_digest)
    renders_tools: bool | None  # chat_template_caps.supports_tools: whether the template renders `tools` at all


def template_digest(text: str) -> str:
    """The short digest a chat template is recorded by (sha256 of its text, 12 hex digits)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def props_url(api_base: str) -> str:
    """``/props`` sits at the server's root, beside ``/v1`` (``http://host:8124/v1`` -> ``http://host:8124/props``)."""
    root = api_base.rstrip("/")
    return (root[: -len("/v1")] if root.endswith("/v1") else root) + "/props"


def _file_name(path: str) -> str:
    return PureWindowsPath(path).name if "\\" in path else PurePosixPath(path).name


def parse_props(body: object) -> ServerProps | None:
    """The props in a ``/props`` body; None when it is not llama.cpp's (no build_info nor model_path)."""
    if not isinstance(body, dict) or not ({"build_info", "model_path"} & body.keys()):
        return None
    template = body.get("chat_template")
    caps = body.get("chat_template_caps")
    tools = caps.get("supports_tools") if isinstance(caps, dict) else None
    return ServerProps(
        build=str(body["build_info"]) if body.get("build_info") else None,
        model_file=_file_name(str(body["model_path"])) if body.get("model_path") else None,
        chat_template=template_digest(template) if isinstance(template, str) and template else None,
        renders_tools=tools if isinstance(tools, bool) else None,
    )


def read_props(api_base: str, timeout_s: float = PROPS_TIMEOUT_S, api_key: str | None = None) -> ServerProps | None:
    """``GET /props`` of the server at ``api_base``; None when it has none or does not answer (never raises)."""
    request = urllib.request.Request(props_url(api_base), headers={"accept": "application/json"})
    if api_key:
        request.add_header("authorization", f"Bearer {api_key}")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return parse_props(json.loads(response.read() or b"null"))
    except (urllib.error.URLError, OSError, ValueError):  # no /props (404), down, or not JSON: nothing to record
        return None


_SEEN: dict[str, ServerProps | None] = {}  # api_base -> its props, read once per process


async def endpoint_props(api_base: str, api_key: str | None = None) -> ServerProps | None:
    """:func:`read_props`, once per endpoint and process, off the event loop (the model client calls it per reply)."""
    if api_base not in _SEEN:
        _SEEN[api_base] = await asyncio.to_thread(read_props, api_base, PROPS_TIMEOUT_S, api_key)
    return _SEEN[api_base]
