"""Model-provider plugins: a provider prefix (``name/...``) served by code outside the product.

A plugin is an entry point in the group ``skillbench.model_providers`` whose name is the provider
prefix and whose object is ``register(litellm) -> None``. It is loaded the first time a client is
built for a model with that prefix, so a run whose models are all real never imports a plugin.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType

from skillbench.models.litellm_setup import get_litellm

PROVIDER_GROUP = "skillbench.model_providers"

_REGISTERED: set[str] = set()


@cache
def provider_plugins() -> dict[str, EntryPoint]:
    """Installed provider plugins by prefix (read once: package metadata does not change in a run)."""
    return {point.name: point for point in entry_points(group=PROVIDER_GROUP)}


def provider_prefix(model: str) -> str | None:
    """``skillbench_sim/agent-careful`` → ``skillbench_sim``; a model string without ``/`` has none."""
    prefix, slash, _ = model.partition("/")
    return prefix if slash else None


def ensure_provider(model: str, litellm: ModuleType) -> None:
    """Register the plugin serving ``model``'s provider with litellm, once; other providers are litellm's."""
    prefix = provider_prefix(model)
    if prefix is None or prefix in _REGISTERED:
        return
    point = provider_plugins().get(prefix)
    if point is None:
        return
    point.load()(litellm)
    _REGISTERED.add(prefix)


def route_problem(model: str, api_base: str | None = None) -> str | None:
    """Why litellm cannot route ``model`` to a provider, in its own words (``get_llm_provider``: no network
    call); None when it can. A plugin's prefix is registered first, as a client would."""
    litellm = get_litellm()
    ensure_provider(model, litellm)
    try:  # these providers run an OAuth device flow inside get_llm_provider; their declared prefix is the answer
        # litellm is imported by get_litellm above, never at this module's import (seconds; tests/test_fast_start.py)
        from litellm.litellm_core_utils.get_llm_provider_logic import declared_authenticating_provider

        if declared_authenticating_provider(model) is not None:
            return None
    except ImportError:
        pass
    try:
        litellm.get_llm_provider(model=model, api_base=api_base)
    except Exception as exc:  # litellm raises BadRequestError("LLM Provider NOT provided. Pass in ...")
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        text = text.split(": ", 1)[-1] if text.startswith("litellm.") else text
        return text.split(". ")[0].rstrip(".")
    return None
