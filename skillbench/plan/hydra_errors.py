"""Hydra's own errors (unknown option, unknown key, bad override syntax) as one line with the nearest names, exit 2.

Hydra reports them from its private ``run_and_report`` as several lines and exit 1; the README promises one line
and exit 2. :func:`install` hands them to this module through ``plan/hydra_internals.py`` (the one module that
touches Hydra's private API, pinned to the Hydra it was read against); errors raised inside a job are the app's own
and never reach it. The command line itself (an unknown flag, an
override after ``-m``, ``-m`` with ``--cfg``) is checked before Hydra parses it (:func:`argv_problem`): Hydra's
parser prints its 8-line usage, and a flag conflict is a ValueError traceback.
"""

from __future__ import annotations

import argparse
import difflib
import re
import shlex
import sys
from collections.abc import Callable
from typing import Any

import yaml
from hydra import compose, initialize_config_module
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import (
    ConfigCompositionException,
    HydraException,
    MissingConfigException,
    OverrideParseException,
)

from skillbench.config.schema import BUILTIN_MOCKS, PluginMock, RunConfig
from skillbench.core.faults import storage_problem
from skillbench.core.yamlfile import describe_yaml_error
from skillbench.plan.hydra_internals import hydra_args_parser, report_errors_with

_OVERRIDE = re.compile(r"Could not (?:override|append to config\. An item is already at) '([^']+)'")


def _fields(section: str) -> list[str]:
    """The keys a config section accepts (a mock accepts any mode's keys)."""
    if section == "mock":
        return sorted({f for cls in (*BUILTIN_MOCKS.values(), PluginMock) for f in cls.model_fields})
    model: Any = RunConfig
    for part in section.split(".") if section else []:
        field = getattr(model, "model_fields", {}).get(part)
        if field is None or not hasattr(field.annotation, "model_fields"):
            return []
        model = field.annotation
    return sorted(model.model_fields)


def _nearest(wrong: str, names: list[str]) -> str:
    close = difflib.get_close_matches(wrong, names, n=3, cutoff=0.5)
    return f"did you mean {' or '.join(close)}? " if close else ""


def one_line(exc: BaseException) -> str | None:
    """The one-line message for a Hydra composition or override error; None for anything else."""
    if isinstance(exc, yaml.YAMLError):  # a config file OmegaConf could not read (e.g. a key given twice)
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        fix = "keep one of them" if "duplicate key" in str(exc) else "fix the syntax"
        return f"{getattr(mark, 'name', 'a config file')}:{describe_yaml_error(exc)}. Fix: {fix}."
    if isinstance(exc, MissingConfigException) and exc.missing_cfg_file and "/" in exc.missing_cfg_file:
        group, wrong = exc.missing_cfg_file.rsplit("/", 1)
        options = sorted(exc.options or [])
        listed = ", ".join(options[:25]) + (", ..." if len(options) > 25 else "")
        return (f"unknown {group} '{wrong}': {_nearest(wrong, options)}"
                f"Fix: {group}=<one of: {listed}> (files in conf/{group}/).")
    if isinstance(exc, HydraException) and "does not support sweep type" in str(exc):
        text = " ".join(str(exc).split())
        return (f"{text}. Fix: sweep a list (key=a,b), range(start,stop) or glob(pattern), e.g. list the values "
                f"you want instead of interval(...).")
    if isinstance(exc, OverrideParseException):
        text = " ".join(str(exc).split())
        return f"bad override syntax: {text}. Fix: quote the argument, e.g. 'key=[a,b]', or see the Hydra override grammar."
    if isinstance(exc, ConfigCompositionException):
        match = _OVERRIDE.search(str(exc))
        if match:
            key = match.group(1).lstrip("+~")
            section, _, wrong = key.rpartition(".")
            names = _fields(section)
            if names and wrong not in names:
                shown = ", ".join(f"{section}.{n}" if section else n for n in names)
                params = f" (sampling parameters go under {section}.params.{wrong})" if "params" in names else ""
                return f"unknown key '{key}': {_nearest(wrong, names)}Fix: use one of {shown}{params}."
        return " ".join(str(exc).split())
    return None


def install(owned_folder: Callable[[], str | None]) -> None:
    """Route Hydra's error reporting through :func:`one_line` (other errors keep Hydra's report); ``owned_folder``:
    the run or sweep folder this process owns, named when one of Hydra's own writes fails on a full disk."""

    def report(exc: Exception) -> None:
        folder = owned_folder()
        storage = storage_problem(exc, (folder,) if folder else ())
        if storage is not None:  # Hydra's own writes (.hydra/, multirun.yaml) on a full or read-only disk
            print(f"skillbench: {storage}.", file=sys.stderr)
            sys.exit(1)
        message = one_line(exc)
        if message is not None:
            print(f"skillbench: {message}", file=sys.stderr)
            sys.exit(2)

    report_errors_with(report)


class _Refused(Exception):
    """argparse's error message, raised instead of printing the usage and exiting."""


# Hydra's flags that do one thing each; it refuses more than one (a ValueError traceback).
_COMMANDS = (("run", "--run"), ("multirun", "-m/--multirun"), ("cfg", "--cfg"), ("shell_completion", "--shell-completion"),
             ("info", "--info"))


def _parser() -> argparse.ArgumentParser:
    parser = hydra_args_parser()

    def error(message: str) -> None:
        raise _Refused(message)

    parser.error = error  # type: ignore[method-assign,assignment]
    return parser


def hydra_arguments(argv: list[str]) -> argparse.Namespace | None:
    """Hydra's reading of a command line (its flags, and the overrides before them); None when its parser
    refuses it (:func:`argv_problem` says why)."""
    try:
        return _parser().parse_known_args(argv)[0]
    except _Refused:
        return None


def _flags(parser: argparse.ArgumentParser) -> list[str]:
    return sorted({option for action in parser._actions for option in action.option_strings})


def argv_problem(argv: list[str], prog: str = "python -m skillbench") -> str | None:
    """One line (with the fix) for a command line Hydra's parser would refuse; None when Hydra may have it."""
    if any(arg in {"--version", "-h", "--help", "--hydra-help"} for arg in argv):
        return None  # Hydra answers these itself
    parser = _parser()
    try:
        args, extra = parser.parse_known_args(argv)
    except _Refused as exc:
        message = str(exc)
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            options = re.findall(r"'([^']*)'", choice.group(2))
            near = difflib.get_close_matches(choice.group(1), options, n=1, cutoff=0.3)
            flag = message.split(":", 1)[0].removeprefix("argument ").split("/")[0]
            return (f"{flag} {choice.group(1)}: not one of {', '.join(options)}. "
                    f"Fix: {flag} {near[0] if near else options[0]}.")
        return f"{message}. Fix: see {prog} --hydra-help for Hydra's flags; overrides are key=value."
    unknown = [arg for arg in extra if arg.startswith("-")]
    if unknown:
        near = difflib.get_close_matches(unknown[0], _flags(parser), n=2, cutoff=0.75)
        hint = f": did you mean {' or '.join(near)}?" if near else "."
        return (f"unknown flag {unknown[0]}{hint} Fix: use one of Hydra's flags ({prog} --hydra-help lists them); "
                f"a config value is an override, key=value, without dashes.")
    if extra:  # overrides after a flag: Hydra reads only the overrides that come before the first flag
        overrides = [*args.overrides, *extra]
        flags = [arg for arg in argv if arg not in overrides]
        fixed = " ".join([prog, *(shlex.quote(a) for a in overrides), *flags])
        return (f"override {extra[0]} comes after {flags[0]}; Hydra reads overrides only before its flags. "
                f"Fix: put {flags[0]} after the overrides: {fixed}")
    given = [flag for name, flag in _COMMANDS if getattr(args, name, None) not in (None, False)]
    if len(given) > 1:
        if set(given) == {"-m/--multirun", "--cfg"}:
            return ("-m and --cfg cannot be combined (--cfg shows one config, -m runs a sweep). Fix: drop -m to see a "
                    "config; to see one job of a sweep, give its values (e.g. agent=gpt5 judge=gpt5 --cfg job).")
        return f"{' and '.join(given)} cannot be combined: Hydra does one of them per command. Fix: keep one."
    if args.resolve and args.cfg is None:
        return "--resolve works only with --cfg. Fix: add --cfg job, or drop --resolve."
    return None


def sweep_note(argv: list[str], prog: str = "python -m skillbench") -> str | None:
    """For ``--cfg`` without ``-m`` on a config that sweeps (``experiment=paper_grid``): what it sweeps and how to
    see one job's config. The values in ``hydra.sweeper.params`` replace the ones --cfg shows."""
    if ("--cfg" not in argv and "-c" not in argv) or "-m" in argv or "--multirun" in argv:
        return None
    try:
        args, _ = _parser().parse_known_args(argv)
    except _Refused:
        return None
    if args.cfg != "job" and args.cfg != "all":
        return None
    try:
        with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
            cfg = compose("config", overrides=list(args.overrides), return_hydra_config=True)
            params = dict(cfg.hydra.sweeper.params or {})
            experiment = cfg.hydra.runtime.choices.get("experiment")
    except Exception:  # a bad override: Hydra's own --cfg reports it
        return None
    given = {item.split("=", 1)[0].lstrip("+~") for item in args.overrides}
    swept = {key: str(value) for key, value in params.items() if key not in given}
    if not swept:
        return None
    parser = OverridesParser.create()
    first: dict[str, str] = {}
    counts: dict[str, str] = {}
    for key, value in swept.items():
        try:
            values = list(parser.parse_override(f"{key}={value}").sweep_string_iterator())
        except Exception:  # glob() needs the config loader; say the key without an example value
            values = []
        first[key] = values[0] if values else "<value>"
        counts[key] = f"{len(values)} values" if values else value
    what = f"experiment={experiment}" if experiment else "this config"
    sweeps = " and ".join(f"{key} ({counts[key]})" for key in swept)
    example = " ".join([prog, *args.overrides, *(f"{k}={v}" for k, v in first.items()), "--cfg", args.cfg])
    return (f"note: {what} sweeps {sweeps} in hydra.sweeper.params, which --cfg does not apply: the "
            f"{' and '.join(swept)} below are defaults, not a job's. One job's config: {example}")
