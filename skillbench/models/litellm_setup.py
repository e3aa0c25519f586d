"""Import litellm once, offline-safe and quiet; read its price map without importing it. Provider plugins are
added by :mod:`skillbench.models.plugins`."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import os
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from skillbench.core.collector import paused_gc

_LITELLM: ModuleType | None = None
log = logging.getLogger(__name__)

# The price map litellm bundles and loads at import when LITELLM_LOCAL_MODEL_COST_MAP=True (as get_litellm sets it):
# litellm/litellm_core_utils/get_model_cost_map.py reads this file from its package.
PRICE_MAP_FILE = "model_prices_and_context_window_backup.json"
_FALLBACK_RULES_KEY = "fallback_generalizations"  # a block of rules in the file, not a model; litellm drops it


def get_litellm() -> ModuleType:
    """litellm, imported with the local cost map (no network at import) and its loggers at WARNING."""
    global _LITELLM
    if _LITELLM is not None:
        return _LITELLM
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "WARNING")
    # Importing litellm builds ~400,000 long-lived objects; collections in between free nothing and took a
    # quarter of the import's CPU (python -c "import litellm" with and without gc.disable(), 3 runs each).
    with paused_gc():
        import litellm

    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm", "httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
    litellm.suppress_debug_info = True
    litellm.telemetry = False
    litellm.drop_params = True  # e.g. temperature for models that reject it; never fail on an unsupported param

    _LITELLM = litellm
    return litellm


async def flush_background_logging(timeout_s: float = 30.0) -> None:
    """Let litellm finish the success logging it queues behind every call (its LoggingWorker), if litellm was
    imported. Called at the end of a job: left queued, that work would be paid by the next job of the process
    (with a "LoggingWorker: event loop changed" warning) or dropped at exit half done."""
    if _LITELLM is None:
        return
    from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

    try:
        await asyncio.wait_for(GLOBAL_LOGGING_WORKER.flush(), timeout_s)
    except Exception:  # best effort: logging nobody reads must never fail a finished job
        log.debug("litellm's background logging did not finish", exc_info=True)


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


def price_map() -> Mapping[str, Mapping[str, Any]]:
    """litellm's model price map (model string -> prices and provider), as ``litellm.model_cost`` holds it.

    Importing litellm costs seconds of CPU (8 s on a loaded 2-core machine), most of a dry run; the estimate only
    needs prices. So once litellm is loaded this is its live map, and before that its bundled file, read as
    litellm reads it. tests/models/test_price_map.py checks the two are equal.
    """
    if _LITELLM is not None:
        return _LITELLM.model_cost
    return _bundled_price_map()


@cache
def _bundled_price_map() -> Mapping[str, Mapping[str, Any]]:
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(next(iter(spec.submodule_search_locations))) / PRICE_MAP_FILE
    model_cost: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    model_cost.pop(_FALLBACK_RULES_KEY, None)
    return _expand_aliases(model_cost)


def _expand_aliases(model_cost: dict[str, Any]) -> dict[str, Any]:
    """Other names of a model, as litellm's ``_expand_model_aliases`` serves them: a row ``{"alias_of": owner}`` and
    each name in an owner's ``aliases`` list (a key litellm then removes) become the owner's entry (a name already
    taken is skipped; a pointer to nothing is dropped)."""
    pointers = {name: info["alias_of"] for name, info in model_cost.items()
                if isinstance(info, dict) and isinstance(info.get("alias_of"), str)}
    owners: dict[str, str] = {}
    for name, info in model_cost.items():
        aliases = info.pop("aliases", None) if isinstance(info, dict) and name not in pointers else None
        for alias in aliases if isinstance(aliases, list) else []:
            if (alias not in model_cost or alias in pointers) and alias not in owners:
                owners[alias] = name
    for alias, target in pointers.items():
        if target in model_cost and target not in pointers and alias not in owners:
            owners[alias] = target
    for alias in pointers.keys() - owners.keys():
        model_cost.pop(alias)
    for alias, owner in owners.items():
        model_cost[alias] = model_cost[owner]
    return model_cost
