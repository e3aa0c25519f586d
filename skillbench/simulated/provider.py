"""litellm custom provider ``skillbench_sim``: serves the simulated models through litellm's normal path."""

from __future__ import annotations

import importlib
import json
import time
import uuid
from types import ModuleType
from typing import Any

# litellm is loaded before this module is: only the entry point imports it (skillbench.model_providers), when a client
# for a skillbench_sim/ model is built with litellm in hand (skillbench/models/plugins.py).
from litellm import CustomLLM
from litellm.utils import custom_llm_setup

from skillbench.simulated.base import PROVIDER, SIM_MODELS, SimReply, SimRequest


def _approx_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _build_response(litellm: ModuleType, model: str, request: SimRequest, reply: SimReply) -> Any:
    tool_calls = [
        {
            "id": f"call_{uuid.UUID(int=request.rng(f'call{index}').getrandbits(128)).hex[:24]}",
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
        }
        for index, call in enumerate(reply.tool_calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    prompt_tokens = sum(_approx_tokens(json.dumps(m, default=str)) for m in request.messages)
    prompt_tokens += sum(_approx_tokens(json.dumps(t)) for t in request.tools)
    completion_tokens = _approx_tokens((reply.content or "") + json.dumps([c["function"] for c in tool_calls]))
    return litellm.ModelResponse(
        id=f"sim-{uuid.UUID(int=request.rng('id').getrandbits(128)).hex}",
        created=int(time.time()),
        model=f"{PROVIDER}/{model}",
        choices=[{"index": 0, "finish_reason": "tool_calls" if tool_calls else "stop", "message": message}],
        usage={"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens},
    )


def _request(model: str, messages: list, optional_params: dict) -> SimRequest:
    return SimRequest(
        model=model,
        messages=[dict(m) if not isinstance(m, dict) else m for m in messages],
        tools=list(optional_params.get("tools") or []),
        seed=optional_params.get("seed"),
        response_format=optional_params.get("response_format"),
    )


def register_simulated_provider(litellm: ModuleType) -> None:
    """Add the provider to litellm (idempotent) and load the built-in simulated profiles."""
    # Importing these registers the built-in profiles and the scripted models in SIM_MODELS.
    for module in ("skillbench.simulated.profiles", "skillbench.simulated.scripted"):
        importlib.import_module(module)

    class SimulatedModels(CustomLLM):
        """Answers from the registered simulated model named after ``skillbench_sim/``."""

        def _answer(self, model: str, messages: list, optional_params: dict) -> Any:
            name = model.split("/", 1)[-1]
            request = _request(name, messages, optional_params)
            reply = SIM_MODELS.get(name)(request)
            return _build_response(litellm, name, request, reply)

        def completion(self, model: str, messages: list, *args: Any, optional_params: dict | None = None, **kwargs: Any) -> Any:
            return self._answer(model, messages, optional_params or {})

        async def acompletion(self, model: str, messages: list, *args: Any, optional_params: dict | None = None, **kwargs: Any) -> Any:
            return self._answer(model, messages, optional_params or {})

    if not any(item["provider"] == PROVIDER for item in litellm.custom_provider_map):
        litellm.custom_provider_map = [*litellm.custom_provider_map, {"provider": PROVIDER, "custom_handler": SimulatedModels()}]
        custom_llm_setup()
