"""The preflight's routing check: litellm's own provider resolution, asked only about strings no shipped file names."""

from __future__ import annotations

import pytest

from skillbench.models.plugins import route_problem
from skillbench.plan.preflight import shipped_model_strings


def test_every_model_string_a_shipped_file_names_is_routed_by_litellm() -> None:
    # The preflight trusts these without loading litellm; this is what makes that safe.
    shipped = shipped_model_strings()
    assert {"gpt-5", "gemini/gemini-2.5-pro", "hosted_vllm/google/gemma-4-31B-it", "skillbench_sim/user"} <= shipped
    assert {model: route_problem(model, "http://127.0.0.1:9/v1" if model.startswith("hosted_vllm/") else None)
            for model in sorted(shipped)} == dict.fromkeys(sorted(shipped))


@pytest.mark.parametrize("model", ["notaprovider/foo", "claude-not-a-model"])
def test_a_string_litellm_cannot_route_is_said_in_its_words(model: str) -> None:
    assert route_problem(model) == "LLM Provider NOT provided"


def test_a_provider_plugin_prefix_routes() -> None:
    assert route_problem("skillbench_sim/agent-careful") is None  # registered by its entry point first
