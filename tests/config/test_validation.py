"""Bad config values and unknown keys give one clear message naming the file, the field and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_module

from skillbench.config import validate_config
from skillbench.core.errors import ConfigError
from tests.conftest import compose_config


def check(*overrides: str, choices: dict[str, str] | None = None) -> str:
    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        cfg = compose("config", overrides=list(overrides))
    with pytest.raises(ConfigError) as info:
        validate_config(cfg, choices=choices or {})
    return str(info.value)


def test_bad_value_names_file_field_and_fix() -> None:
    message = check("pass_rule.min_workflow_adherence=abc", choices={"pass_rule": "paper"})
    assert "conf/pass_rule/paper.yaml" in message
    assert "pass_rule.min_workflow_adherence" in message
    assert "'abc'" in message and "Fix:" in message


def test_out_of_range() -> None:
    assert "less than or equal to 5" in check("pass_rule.min_guardrail_compliance=7")


def test_unknown_key() -> None:
    message = check("+agent.temprature=0.3", choices={"agent": "sim_careful"})
    assert "agent.temprature" in message and "agent.params" in message
    assert "did you mean 'run.max_turns'" in check("+run.max_turn=3")


def test_llm_mock_needs_a_model() -> None:
    assert "mock.llm" in check("mock=llm", "mock.llm=null")


def test_missing_provider_key_is_refused_up_front(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillbench.app import check_credentials
    from tests.conftest import compose_config

    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="GEMINI_API_KEY"):
        check_credentials(compose_config("judge=gemini2_5_pro"))
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    check_credentials(compose_config("judge=gemini2_5_pro"))
    check_credentials(compose_config("agent=qwen3_5_9b"))  # self-hosted: no key required


def test_a_keyed_route_to_an_api_base_of_ones_own_still_needs_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # litellm's OpenAI client refuses to send a request without a key, whatever the api_base; vLLM's route does not.
    from skillbench.app import check_credentials
    from skillbench.plan.preflight import missing_keys, model_roles
    from tests.conftest import compose_config

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    local = "http://127.0.0.1:9/v1"
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        check_credentials(compose_config("agent=gpt5", f"agent.api_base={local}"))
    custom = compose_config("agent=custom", "agent.model=openai/my-model", f"agent.api_base={local}",
                            "agent.api_key_env=MY_SERVER_KEY")
    monkeypatch.delenv("MY_SERVER_KEY", raising=False)
    assert [m.name for _, m in missing_keys(model_roles(custom))] == ["custom"]
    vllm = compose_config("agent=custom", "agent.model=hosted_vllm/my-model", f"agent.api_base={local}",
                          "agent.api_key_env=MY_SERVER_KEY")
    assert missing_keys(model_roles(vllm)) == []


def test_a_folder_source_is_labelled_with_its_own_benchmark_name(tmp_path: Path) -> None:
    """`benchmark.source=<folder>` over the default option: rows and summaries say the folder's benchmark, not starter."""
    (tmp_path / "benchmark.yaml").write_text("name: star_mined\nversion: abc\n")
    assert compose_config(f"benchmark.source={tmp_path}").benchmark.name == "star_mined"
    assert compose_config("benchmark=smoke", f"benchmark.source={tmp_path}").benchmark.name == "star_mined"
    assert compose_config(f"benchmark.source={tmp_path}", "benchmark.name=my_label").benchmark.name == "my_label"
    assert compose_config().benchmark.name == "starter" and compose_config("benchmark=smoke").benchmark.name == "smoke"
    assert compose_config(f"benchmark.source={tmp_path / 'absent'}").benchmark.name == "starter"  # the loader reports it


def test_every_role_takes_an_ad_hoc_model_user_sim_included() -> None:
    local = "http://127.0.0.1:9/v1"
    cfg = compose_config("user_sim=custom", "user_sim.model=hosted_vllm/my-sim", f"user_sim.api_base={local}",
                         "user_sim.name=my_sim")
    assert (cfg.user_sim.name, cfg.user_sim.model, cfg.user_sim.api_base) == ("my_sim", "hosted_vllm/my-sim", local)
    assert cfg.user_sim.stop_marker == "###STOP###"
    with pytest.raises(ConfigError, match=r"user_sim\.model"):
        compose_config("user_sim=custom")


@pytest.mark.parametrize(("overrides", "said"), [
    (["+judge.params.input_cost_per_token=3e-06"], "at 'judge.params': input_cost_per_token is given alone"),
    (["+user_sim.params.output_cost_per_token=1.5e-05"], "at 'user_sim.params': output_cost_per_token is given alone"),
    (["+agent.params.input_cost_per_token=cheap", "+agent.params.output_cost_per_token=1e-06"],
     "input_cost_per_token is a price in dollars per token, a number ≥ 0, not 'cheap'"),
    (["+agent.params.input_cost_per_token=-1e-06", "+agent.params.output_cost_per_token=1e-06"], "not -1e-06"),
])
def test_flat_prices_come_in_pairs_of_numbers(overrides: list[str], said: str) -> None:
    # One price alone: litellm would bill with custom pricing and the other price unknown, while the estimate, the
    # budget and the abandoned calls' count (models/prices.py, their one owner) could not say what a call costs.
    message = check(*overrides)
    assert said in message and "Fix: give both +" in message and "or neither to use litellm's price map" in message


def test_a_pair_of_flat_prices_prices_the_estimate_and_abandoned_calls_alike() -> None:
    from skillbench.models.prices import TokenPrices, token_prices

    cfg = compose_config("agent=qwen3_5_9b", "+agent.params.input_cost_per_token=3e-06",
                         "+agent.params.output_cost_per_token=1.5e-05").agent
    assert token_prices(cfg) == TokenPrices(3e-06, 3e-06, 1.5e-05)
    assert token_prices(cfg).price(1000, 100) == pytest.approx(0.0045)  # type: ignore[union-attr]
    assert token_prices(compose_config("agent=qwen3_5_9b").agent) == TokenPrices(0.0, 0.0, 0.0)  # self-hosted: $0
