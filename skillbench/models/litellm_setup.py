"""Import litellm once, offline-safe and quiet. Provider plugins are added by :mod:`skillbench.models.plugins`."""

from __future__ import annotations

import logging
import os
from types import ModuleType

_LITELLM: ModuleType | None = None


def get_litellm() -> ModuleType:
    """litellm, imported with the local cost map (no network at import) and its loggers at WARNING."""
    global _LITELLM
    if _LITELLM is not None:
        return _LITELLM
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "WARNING")
    import litellm

    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm", "httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
    litellm.suppress_debug_info = True
    litellm.telemetry = False
    litellm.drop_params = True  # e.g. temperature for models that reject it; never fail on an unsupported param

    _LITELLM = litellm
    return litellm


def register_zero_cost(model: str, provider: str) -> None:
    """Self-hosted models cost nothing per token; tell litellm so cost accounting does not warn or guess."""
    litellm = get_litellm()
    if model in litellm.model_cost:
        return
    litellm.register_model(
        {
            model: {
                "input_cost_per_token": 0.0,
                "output_cost_per_token": 0.0,
                "cache_creation_input_token_cost": 0.0,
                "cache_read_input_token_cost": 0.0,
                "litellm_provider": provider,
                "mode": "chat",
                "supports_function_calling": True,
            }
        }
    )
