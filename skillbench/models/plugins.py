"""Model-provider plugins: a provider prefix (``name/...``) served by code outside the product.

A plugin is an entry point in the group ``skillbench.model_providers`` whose name is the provider
prefix and whose object is ``register(litellm) -> None``. It is loaded the first time a client is
built for a model with that prefix, so a run whose models are all real never imports a plugin.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType

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
