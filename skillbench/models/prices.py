"""What a model's tokens cost, as litellm bills them: the one owner of prices for the estimate (plan/estimate.py)
and for calls a budget stop abandons in flight (models/client.py). Answered calls carry litellm's own per-call cost.

A model config's ``params.input_cost_per_token`` and ``output_cost_per_token`` (both, or neither: config/schema.py
refuses one alone) are litellm's custom pricing, used for every call; else litellm's price map; a self-hosted model
the map does not know costs $0 per token; any other unknown model has no price (litellm counts its calls as $0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from skillbench.config.schema import CUSTOM_PRICE_PARAMS, ModelConfig
from skillbench.models.litellm_setup import price_map


class TokenPrices(NamedTuple):
    """Dollars per token."""

    prompt: float
    cached_prompt: float  # a prompt token read from the provider's cache (the prompt price when none is listed)
    completion: float

    def price(self, prompt_tokens: float, completion_tokens: float, cached_tokens: float = 0.0) -> float:
        """Dollars for one call's (or many calls') tokens; ``cached_tokens`` of the prompt read from the cache."""
        return ((prompt_tokens - cached_tokens) * self.prompt + cached_tokens * self.cached_prompt
                + completion_tokens * self.completion)


FREE = TokenPrices(0.0, 0.0, 0.0)


def token_prices(model: ModelConfig) -> TokenPrices | None:
    """``model``'s prices (see the module docstring); None: litellm has no price for it."""
    if model.simulated:
        return FREE
    if all(model.params.get(name) is not None for name in CUSTOM_PRICE_PARAMS):
        return _prices(model.params)
    cost_map = price_map()
    for name in (model.model, model.model.split("/", 1)[-1]):
        info = cost_map.get(name)
        if info:
            return _prices(info)
    return FREE if model.api_base is not None else None


def _prices(info: Mapping[str, Any]) -> TokenPrices:
    """Prices under litellm's key names (a price-map entry, or a model's params); cached prompt tokens at the
    prompt rate when no cached rate is given."""
    prompt = float(info.get("input_cost_per_token") or 0.0)
    cached = info.get("cache_read_input_token_cost")
    return TokenPrices(prompt, prompt if cached is None else float(cached), float(info.get("output_cost_per_token") or 0.0))
