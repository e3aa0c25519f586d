"""Check every registry name a config gives before a job starts (the registries live above ``config``)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from skillbench.agents.program import build_program, with_program_identity
from skillbench.config.origin import ConfigOrigin
from skillbench.config.schema import RunConfig
from skillbench.core.errors import ConfigError
from skillbench.core.plugins import load_plugins
from skillbench.core.registry import Registry
from skillbench.evaluation.checks import RULE_CHECKS
from skillbench.tools.modes import RESPONSE_MODES

_AT = re.compile(r"^config error at '([^']+)'")


def _check(registry: Registry[Any], names: list[str], field: str, origin: ConfigOrigin, override: str) -> None:
    """``override`` shows how the fix is written, with ``{}`` for a registered name."""
    for name in names:
        if name in registry:
            continue
        registered = registry.names()
        close = difflib.get_close_matches(name, registered, n=1, cutoff=0.6)
        example = override.format(close[0] if close else (registered[0] if registered else "<name>"))
        hint = f"did you mean {example}?" if close else f"pass one of them, e.g. {example}."
        where = origin.where(f"{field}.{name}" if field == "checks" else field)
        raise ConfigError(
            f"config error {where} at '{field}': unknown {registry.kind} {name!r}; "
            f"registered: {', '.join(registered)}. Fix: {hint}"
        )


def _placed(exc: ConfigError, origin: ConfigOrigin) -> ConfigError:
    """A ``config error at '<key>'`` message with where that key's value was set."""
    message = str(exc)
    found = _AT.match(message)
    if found is None:
        return exc
    return ConfigError(f"config error {origin.where(found.group(1))} at{message.removeprefix('config error at')}")


def check_registered_names(cfg: RunConfig, choices: Mapping[str, str | None] | None = None, *,
                           origin: ConfigOrigin | None = None) -> None:
    """Raise :class:`ConfigError` (where the value was set, field, registered names) for a name no registry knows
    (``origin``: see :func:`skillbench.config.validate_config`)."""
    origin = origin or ConfigOrigin(choices=dict(choices or {}))
    load_plugins()  # installed plug-ins register their names first
    if cfg.agent.program is not None:  # the program imports, takes its parameters, and its source is readable
        try:
            build_program(cfg.agent)
            with_program_identity(cfg)
        except ConfigError as exc:
            raise _placed(exc, origin) from None
    _check(RESPONSE_MODES, [cfg.mock.response_mode], "mock.response_mode", origin, "mock.response_mode={}")
    hard = cfg.pass_rule.hard_checks or []
    _check(RULE_CHECKS, hard, "pass_rule.hard_checks", origin, "pass_rule.hard_checks=[{}]")
    _check(RULE_CHECKS, list(cfg.checks), "checks", origin, "checks.{}.<parameter>=<value>")
    for name in hard:  # a plug-in's check runs only where the config names it: never hard where it does not run
        if not RULE_CHECKS.get(name).runs_with(cfg.checks):
            raise ConfigError(
                f"config error {origin.where('pass_rule.hard_checks')} at 'pass_rule.hard_checks': the plug-in check "
                f"{name!r} runs only in jobs whose config names it in checks, so it could never count here. Fix: add "
                f"'+checks={{{name}:{{}}}}' (or its parameters), or leave it out of hard_checks.")
    for name, given in cfg.checks.items():
        problem = RULE_CHECKS.get(name).params_problem(given)
        if problem:
            raise _placed(ConfigError(f"config error at 'checks.{name}': {problem}. Fix: set only those parameters."),
                          origin)


def panel_problems(cfgs: list[RunConfig], *, sweep: bool) -> list[str]:
    """Why the panels ``pass_rule.panel`` asks for cannot be formed from these jobs (a run's, or a whole sweep's), one
    line each: a member of ``pass_rule.panel_judges`` that no job of the agent is judged by, or fewer than two members.
    Checked before any job starts, so a typo never turns a 2-of-3 majority into a unanimous 2-of-2."""
    by_agent: dict[str, list[RunConfig]] = {}
    for cfg in cfgs:
        if cfg.pass_rule.panel is not None:
            by_agent.setdefault(cfg.agent.name, []).append(cfg)
    problems: list[str] = []
    where = "this sweep" if sweep else "this run"
    for agent, group in sorted(by_agent.items()):
        judges = sorted({cfg.judge.name for cfg in group})
        for named in dict.fromkeys(tuple(cfg.pass_rule.panel_judges or ()) for cfg in group):
            unknown = [name for name in named if name not in judges]
            if unknown:
                close = difflib.get_close_matches(unknown[0], judges, n=1, cutoff=0.6)
                problems.append(
                    f"config error at 'pass_rule.panel_judges': unknown judge {unknown[0]!r} (judges of {agent} in "
                    f"{where}: {', '.join(judges)}). Fix: " + (f"did you mean {close[0]!r}?" if close else
                    f"name only judges of {where}, or add judge {unknown[0]!r} to it.")
                )
        if len(judges) < 2:
            vote = group[0].pass_rule.panel
            problems.append(
                f"config error at 'pass_rule.panel': a {vote} panel votes over at least two judges of an agent; {agent} "
                f"has one in {where} ({judges[0]}). Fix: sweep two or more judges (judge={judges[0]},<other> -m), or "
                "leave pass_rule.panel out (skillbench rescore can form a panel from runs of several judges later)."
            )
    return problems
