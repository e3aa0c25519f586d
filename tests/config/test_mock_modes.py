"""The mock config is one class per response mode, chosen by ``response_mode``; names are checked up front."""

from __future__ import annotations

import pytest

from skillbench.config.schema import MOCK_ADAPTER, LlmMock, PluginMock, StatefulMock, StaticMock
from skillbench.core.errors import ConfigError
from skillbench.engine.names import check_registered_names
from skillbench.tools.modes import RESPONSE_MODES
from tests.conftest import compose_config


@pytest.mark.parametrize(
    ("overrides", "kind"),
    [
        ([], StatefulMock),
        (["mock=flaky"], StatefulMock),
        (["mock=llm"], LlmMock),
        (["mock=static"], StaticMock),
        (["mock.latency_ms=5"], StatefulMock),
        (["mock=static", "mock.latency_ms=5"], StaticMock),
    ],
)
def test_overrides_users_use_today_still_compose(overrides: list[str], kind: type) -> None:
    cfg = compose_config(*overrides)
    assert type(cfg.mock) is kind
    check_registered_names(cfg)


def test_each_mode_has_only_its_own_options() -> None:
    assert MOCK_ADAPTER.validate_python({"name": "m"}) == StatefulMock(name="m")  # stateful by default
    with pytest.raises(ConfigError, match=r"mock.llm"):
        compose_config("mock.response_mode=llm")  # llm needs a model
    with pytest.raises(ConfigError, match=r"'mock.static_responses'.*Extra inputs"):
        compose_config("mock=static", "mock.response_mode=stateful")
    with pytest.raises(ConfigError, match=r"did you mean 'mock\.validate_arguments'"):
        compose_config("+mock.validate_argument=false")


def test_unknown_mode_is_one_line_naming_field_value_and_choices() -> None:
    cfg = compose_config("mock.response_mode=statefull")
    assert isinstance(cfg.mock, PluginMock)  # a plugin mode as far as the schema can tell
    with pytest.raises(ConfigError) as caught:
        check_registered_names(cfg, {"mock": "stateful"})
    message = str(caught.value)
    assert "\n" not in message
    assert "conf/mock/stateful.yaml" in message and "'mock.response_mode'" in message and "'statefull'" in message
    assert f"registered: {', '.join(RESPONSE_MODES.names())}" in message  # the registry's listing, whatever it holds
    assert "did you mean mock.response_mode=stateful?" in message


def test_unknown_hard_check_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"unknown rule check 'target_state'.*target_state_reached"):
        check_registered_names(compose_config("pass_rule.hard_checks=[target_state]"))
    check_registered_names(compose_config("pass_rule.hard_checks=[target_state_reached]"))


def test_plugin_mode_with_options_validates_when_registered() -> None:
    from skillbench.tools.modes import RESPONSE_MODES, stateful

    cfg = compose_config("mock.response_mode=echo", "+mock.options.prefix=x")
    assert isinstance(cfg.mock, PluginMock) and cfg.mock.options == {"prefix": "x"}
    with RESPONSE_MODES.registered("echo", stateful):
        check_registered_names(cfg)
