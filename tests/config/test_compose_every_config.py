"""Every file of every config group composes and validates, so none rots (lightning-hydra-template style)."""

from __future__ import annotations

from importlib import resources

import pytest

from tests.conftest import compose_config

CONF = resources.files("skillbench.conf")
GROUPS = ["agent", "judge", "user_sim", "mock", "pass_rule", "benchmark", "experiment"]


def options(group: str) -> list[str]:
    return sorted(p.name.rsplit(".", 1)[0] for p in CONF.joinpath(group).iterdir() if p.name.endswith(".yaml"))


@pytest.mark.parametrize(("group", "option"), [(g, o) for g in GROUPS for o in options(g)])
def test_every_option_composes(group: str, option: str) -> None:
    # `custom` is the template for a model without a file: its model string is required.
    extra = [f"{group}.model=anthropic/claude-haiku-4-5"] if option == "custom" else []
    cfg = compose_config(f"{group}={option}", *extra)
    if group == "experiment":
        assert cfg.experiment == option
    else:  # an option's name is its file name: folders, labels and reports rely on it
        assert getattr(cfg, group).name == option


@pytest.mark.parametrize("experiment", options("experiment"))
def test_every_experiment_sweeps_existing_options(experiment: str) -> None:
    from hydra import compose, initialize_config_module

    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        cfg = compose("config", overrides=[f"experiment={experiment}"], return_hydra_config=True)
    params = cfg.hydra.sweeper.params or {}
    for key, values in params.items():
        if key in GROUPS:
            unknown = sorted(set(str(values).split(",")) - set(options(key)))
            assert not unknown, f"experiment {experiment} sweeps {key} over missing options {unknown}"
        else:  # a swept field: each value must validate
            for value in str(values).split(","):
                compose_config(f"experiment={experiment}", f"{key}={value}")


PAPER_AGENTS = {
    "gpt5": "gpt-5", "gpt5_mini": "gpt-5-mini", "gpt5_nano": "gpt-5-nano", "gpt5_4": "gpt-5.4",
    "gpt5_4_mini": "gpt-5.4-mini", "gpt5_4_nano": "gpt-5.4-nano", "gemini2_5_flash": "gemini/gemini-2.5-flash",
    "gemini2_5_flash_lite": "gemini/gemini-2.5-flash-lite", "gemini3_flash": "gemini/gemini-3-flash-preview",
    "qwen3_1_7b": "hosted_vllm/Qwen/Qwen3-1.7B", "qwen3_4b": "hosted_vllm/Qwen/Qwen3-4B",
    "qwen3_14b": "hosted_vllm/Qwen/Qwen3-14B", "qwen3_5_4b": "hosted_vllm/Qwen/Qwen3.5-4B",
    "qwen3_5_9b": "hosted_vllm/Qwen/Qwen3.5-9B",
    "ministral3_3b": "hosted_vllm/mistralai/Ministral-3-3B-Instruct-2512",
    "ministral3_8b": "hosted_vllm/mistralai/Ministral-3-8B-Instruct-2512",
    "ministral3_14b": "hosted_vllm/mistralai/Ministral-3-14B-Instruct-2512",
}
PAPER_JUDGES = {
    "gpt5": "gpt-5", "gpt5_5": "gpt-5.5", "gemini2_5_pro": "gemini/gemini-2.5-pro",
    "qwen3_6_27b": "hosted_vllm/Qwen/Qwen3.6-27B", "gemma4": "hosted_vllm/google/gemma-4-31B-it",
}


@pytest.mark.parametrize("agent", sorted(PAPER_AGENTS))
def test_paper_agents_have_litellm_names(agent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for judge, judge_model in PAPER_JUDGES.items():
        cfg = compose_config(f"agent={agent}", f"judge={judge}")
        assert cfg.agent.model == PAPER_AGENTS[agent]
        assert cfg.judge.model == judge_model
        assert not cfg.agent.simulated
        if cfg.agent.model.startswith("hosted_vllm/"):
            assert cfg.agent.api_base == "http://localhost:8000/v1"


def test_api_base_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLBENCH_QWEN3_14B_API_BASE", "http://10.0.0.5:9000/v1")
    assert compose_config("agent=qwen3_14b").agent.api_base == "http://10.0.0.5:9000/v1"


def test_paper_grid_preset() -> None:
    from hydra import compose, initialize_config_module

    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        cfg = compose("config", overrides=["experiment=paper_grid"], return_hydra_config=True)
    params = cfg.hydra.sweeper.params
    assert set(params.agent.split(",")) == set(PAPER_AGENTS)
    assert set(params.judge.split(",")) == set(PAPER_JUDGES)
    assert cfg.user_sim.model == "hosted_vllm/google/gemma-4-31B-it"
    assert cfg.pass_rule.name == "paper"


def test_default_is_offline() -> None:
    cfg = compose_config()
    assert cfg.agent.simulated and cfg.judge.simulated and cfg.user_sim.simulated
    assert cfg.agent.model.startswith("skillbench_sim/")
