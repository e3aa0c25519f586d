"""Check every registry name a config gives before a job starts (the registries live above ``config``)."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from skillbench.agents.program import build_program, with_program_identity
from skillbench.config.schema import RunConfig
from skillbench.config.validate import config_file
from skillbench.core.errors import ConfigError
from skillbench.core.plugins import load_plugins
from skillbench.core.registry import Registry
from skillbench.evaluation.checks import RULE_CHECKS
from skillbench.tools.modes import RESPONSE_MODES


def _check(registry: Registry[Any], names: list[str], field: str, file: str, override: str) -> None:
    """``override`` shows how the fix is written, with ``{}`` for a registered name."""
    for name in names:
        if name in registry:
            continue
        registered = registry.names()
        close = difflib.get_close_matches(name, registered, n=1, cutoff=0.6)
        example = override.format(close[0] if close else (registered[0] if registered else "<name>"))
        hint = f"did you mean {example}?" if close else f"pass one of them, e.g. {example}."
        raise ConfigError(
            f"config error in {file} at '{field}': unknown {registry.kind} {name!r}; "
            f"registered: {', '.join(registered)}. Fix: {hint}"
        )


def check_registered_names(cfg: RunConfig, choices: Mapping[str, str | None] | None = None) -> None:
    """Raise :class:`ConfigError` (file, field, registered names) for a name no registry knows."""
    choices = dict(choices or {})
    load_plugins()  # installed plug-ins register their names first
    if cfg.agent.program is not None:  # the program imports, takes its parameters, and its source is readable
        try:
            build_program(cfg.agent)
            with_program_identity(cfg)
        except ConfigError as exc:
            raise ConfigError(str(exc).replace("config error at", f"config error in {config_file('agent', choices)} at", 1)) from None
    mock_file, rule_file = config_file("mock", choices), config_file("pass_rule", choices)
    _check(RESPONSE_MODES, [cfg.mock.response_mode], "mock.response_mode", mock_file, "mock.response_mode={}")
    hard = cfg.pass_rule.hard_checks or []
    _check(RULE_CHECKS, hard, "pass_rule.hard_checks", rule_file, "pass_rule.hard_checks=[{}]")
    _check(RULE_CHECKS, list(cfg.checks), "checks", "conf/config.yaml", "checks.{}.<parameter>=<value>")
    for name in hard:  # a plug-in's check runs only where the config names it: never hard where it does not run
        if not RULE_CHECKS.get(name).runs_with(cfg.checks):
            raise ConfigError(
                f"config error in {rule_file} at 'pass_rule.hard_checks': the plug-in check {name!r} runs only in "
                f"jobs whose config names it in checks, so it could never count here. Fix: add '+checks={{{name}:{{}}}}' "
                "(or its parameters), or leave it out of hard_checks.")
    for name, given in cfg.checks.items():
        problem = RULE_CHECKS.get(name).params_problem(given)
        if problem:
            raise ConfigError(f"config error at 'checks.{name}': {problem}. Fix: set only those parameters.")
