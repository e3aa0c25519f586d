"""Validate a composed Hydra config into a :class:`RunConfig`, with one clear message on failure."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import ValidationError

from skillbench.config.origin import ConfigOrigin
from skillbench.config.schema import BUILTIN_MOCKS, MOCK_TAGS, PassRuleConfig, PluginMock, RunConfig
from skillbench.config.secrets import config_credentials, find_credentials
from skillbench.config.secrets import refusal as secrets_refusal
from skillbench.core.errors import ConfigError, first_cause_first

_CONF = Path(__file__).resolve().parents[1] / "conf"


def _short(value: Any) -> str:
    return "[" + ",".join(map(str, value)) + "]" if isinstance(value, list) else str(value)


@cache
def _preset_rule(choice: str) -> PassRuleConfig | None:
    """The packaged pass-rule preset ``choice`` (None: not one, or unreadable); read once per process."""
    path = _CONF / "pass_rule" / f"{choice}.yaml"
    try:
        return PassRuleConfig.model_validate(yaml.safe_load(path.read_text(encoding="utf-8"))) if path.is_file() else None
    except (OSError, yaml.YAMLError, ValidationError):
        return None


def label_changed_rule(cfg: RunConfig, choices: Mapping[str, str | None]) -> RunConfig:
    """A preset pass rule changed by overrides is labelled by what changed (``paper(min_guardrail_compliance=5)``), so
    no row, summary or report calls a changed rule by the preset's name. A rule renamed by the user keeps its name."""
    choice = choices.get("pass_rule")
    preset = _preset_rule(str(choice)) if choice else None
    if preset is None:
        return cfg
    if preset.name != cfg.pass_rule.name:
        return cfg
    now, then = cfg.pass_rule.model_dump(mode="json"), preset.model_dump(mode="json")
    changed = [f"{key}={_short(now[key])}" for key in now if key != "name" and now[key] != then.get(key)]
    if not changed:
        return cfg
    rule = cfg.pass_rule.model_copy(update={"name": f"{preset.name}({','.join(changed)})"})
    return cfg.model_copy(update={"pass_rule": rule})


def _untag(loc: tuple[Any, ...]) -> tuple[tuple[Any, ...], Any]:
    """The error location without the union tag pydantic inserts after ``mock`` (users never write it),
    and the mock config class that tag stands for (None elsewhere)."""
    if len(loc) >= 2 and loc[0] == "mock" and loc[1] in MOCK_TAGS:
        return (loc[0], *loc[2:]), BUILTIN_MOCKS.get(str(loc[1]), PluginMock)
    return loc, None


def _known_field_hint(err: Any, mock_model: Any) -> str | None:
    """For an unknown key, the closest real field of the same config section, if any is close."""
    model: Any = RunConfig
    for part in err["loc"][:-1]:
        if model is RunConfig and part == "mock" and mock_model is not None:
            model = mock_model
            continue
        field = getattr(model, "model_fields", {}).get(str(part))
        if field is None or not hasattr(field.annotation, "model_fields"):
            return None
        model = field.annotation
    wrong = str(err["loc"][-1])
    section = ".".join(map(str, err["loc"][:-1]))
    match = difflib.get_close_matches(wrong, list(model.model_fields), n=1, cutoff=0.6)
    if match:
        return f"did you mean '{section}.{match[0]}'?"
    if "params" in model.model_fields:  # sampling parameters are a common slip: they live under params
        return f"sampling parameters go under '{section}.params', e.g. {section}.params.{wrong}=<value>"
    return None


def _first_line(exc: OmegaConfBaseException) -> str:
    """OmegaConf appends full_key/object_type lines; the message promised is one line."""
    return str(getattr(exc, "msg", None) or exc).strip().splitlines()[0]


def validate_config(cfg: DictConfig | Mapping[str, Any], choices: Mapping[str, str | None] | None = None, *,
                    origin: ConfigOrigin | None = None) -> RunConfig:
    """Resolve ``cfg`` and check every key and value; raise :class:`ConfigError` naming where the value was set
    (``origin``: the command line, the sweep, a preset or group file; else the group's file from ``choices``),
    the field and the fix."""
    origin = origin or ConfigOrigin(choices=dict(choices or {}))
    try:
        data = OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True) if isinstance(cfg, DictConfig) else dict(cfg)
    except OmegaConfBaseException as exc:
        key = str(getattr(exc, "full_key", None) or "?")
        where = origin.where(key)
        fix = (f"correct it on the command line, e.g. {key}=<value>" if where == "on the command line"
               else f"set it on the command line, e.g. {key}=<value>, or {where}")
        raise ConfigError(f"config error {where} at '{key}': {_first_line(exc)}. Fix: {fix}.") from None
    assert isinstance(data, dict)
    credentials = config_credentials(cfg, resolved=data) if isinstance(cfg, DictConfig) else find_credentials(data)
    data.pop("hydra", None)
    if credentials:  # before anything could echo or store it (skillbench/config/secrets.py)
        raise ConfigError(secrets_refusal(credentials, "in the configuration"))
    try:
        return label_changed_rule(RunConfig.model_validate(data), origin.choices)
    except ValidationError as exc:
        errors = first_cause_first(exc)
        err = dict(errors[0])
        err["loc"], mock_model = _untag(tuple(err["loc"]))
        loc = ".".join(str(p) for p in err["loc"])
        group = str(err["loc"][0]) if err["loc"] else ""
        where = origin.where(loc)
        if err["type"] == "extra_forbidden":
            fix = f"remove '{loc}' or correct its spelling (see the fields of {origin.file(group)})"
            fix = _known_field_hint(err, mock_model) or fix
        elif err["type"] == "custom_price":  # config/schema.py ModelConfig: flat prices come in pairs
            fix = (f"give both +{loc}.input_cost_per_token and +{loc}.output_cost_per_token (dollars per token, e.g. "
                   "3e-06 and 1.5e-05), or neither to use litellm's price map")
        elif err["type"] == "missing":
            fix = f"add '{loc}' to {origin.file(group)} or pass {loc}=<value>"
        elif where == "on the command line":
            fix = f"pass a valid value on the command line, e.g. {loc}=<value>"
        else:
            fix = f"pass a valid value, e.g. {loc}=<value>, or edit {where.removeprefix('in ')}"
        got = f" (got {err['input']!r})" if err["type"] not in {"missing"} and not isinstance(err.get("input"), dict) else ""
        more = f" [and {len(errors) - 1} more problem(s)]" if len(errors) > 1 else ""
        raise ConfigError(f"config error {where} at '{loc}': {err['msg']}{got}. Fix: {fix.rstrip('.?')}{'?' if fix.endswith('?') else '.'}{more}") from None
