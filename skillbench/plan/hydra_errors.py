"""Hydra's own errors (unknown option, unknown key, bad override syntax) as one line with the nearest names, exit 2.

Hydra reports them from ``hydra._internal.utils.run_and_report`` as several lines and exit 1; the README
promises one line and exit 2. Hydra is pinned (1.3.8), so wrapping that one function is stable; errors
raised inside a job are the app's own and never reach it.
"""

from __future__ import annotations

import difflib
import re
import sys
from typing import Any

from skillbench.config.schema import BUILTIN_MOCKS, PluginMock, RunConfig

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
    from hydra.errors import ConfigCompositionException, MissingConfigException, OverrideParseException

    if isinstance(exc, MissingConfigException) and exc.missing_cfg_file and "/" in exc.missing_cfg_file:
        group, wrong = exc.missing_cfg_file.rsplit("/", 1)
        options = sorted(exc.options or [])
        listed = ", ".join(options[:25]) + (", ..." if len(options) > 25 else "")
        return (f"unknown {group} '{wrong}': {_nearest(wrong, options)}"
                f"Fix: {group}=<one of: {listed}> (files in conf/{group}/).")
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


def install() -> None:
    """Route Hydra's error reporting through :func:`one_line` (other errors keep Hydra's report)."""
    from hydra._internal import utils

    if getattr(utils.run_and_report, "_skillbench", False):
        return
    original = utils.run_and_report

    def run_and_report(func: Any) -> Any:
        try:
            return func()
        except Exception as exc:
            message, error = one_line(exc), exc
            if message is None:
                return original(lambda: (_ for _ in ()).throw(error))
            print(f"skillbench: {message}", file=sys.stderr)
            sys.exit(2)

    run_and_report._skillbench = True  # type: ignore[attr-defined]
    utils.run_and_report = run_and_report
