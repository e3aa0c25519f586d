"""A credential in the config a command line composes is refused before Hydra reads that command line, whatever
it asks for: a run or a sweep, ``--cfg job|hydra|all`` (with ``--resolve``, ``-p``), every ``--info`` topic,
``--help`` (it prints the composed config), tab completion (``-sc query``: it prints a key's value), the debug
dump of ``hydra.verbose=true`` (printed while Hydra composes a run, before any callback), and an error Hydra
would print with ``HYDRA_FULL_ERROR=1``.

Chosen: refuse, not redact (docs/guarantees.md "Secrets"). Hydra prints a composed config from many places
skillbench does not own, and each prints it its own way (YAML that quotes, escapes or folds a long value, log
records, help templates, tracebacks); composing the config once here, as Hydra will, and refusing it is the one
point that covers every printer, present and future. The config could not run anyway, and the refusal names
every place (never the value), which is what a user debugging it needs; without the key, ``--cfg job`` prints it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import warnings
from collections.abc import Iterator

from hydra.core.config_loader import ConfigLoader
from hydra.core.config_search_path import SearchPathQuery
from hydra.core.global_hydra import GlobalHydra
from hydra.plugins.completion_plugin import CompletionPlugin
from hydra.types import RunMode
from omegaconf import DictConfig

from skillbench.config.secrets import (
    argument_credentials,
    config_credentials,
    credential_name,
    looks_like_key,
)
from skillbench.config.secrets import refusal as secrets_refusal
from skillbench.plan.completion import completion_request
from skillbench.plan.hydra_errors import hydra_arguments
from skillbench.plan.hydra_internals import app_search_path, start_app_hydra

# Where the Hydra app (skillbench/app.py, @hydra.main) finds its primary config: the app reads these too.
APP_MODULE = "skillbench.app"
APP_CONFIG_PATH = "conf"
APP_CONFIG_NAME = "config"


@contextlib.contextmanager
def _app_config_loader(args: argparse.Namespace) -> Iterator[ConfigLoader]:
    """Hydra's config loader with the search path ``@hydra.main`` builds for this command line: skillbench's
    conf/ (or ``--config-path``), then ``--config-dir``; Hydra's global state is cleared afterwards.

    Hydra's private API, through ``plan/hydra_internals.py`` (use 5): the public ``initialize_config_*`` cannot add
    ``--config-dir`` where Hydra's app adds it, and a config composed from another search path is not the one Hydra
    would print."""
    search_path = app_search_path(APP_MODULE, args.config_path or APP_CONFIG_PATH)
    if args.config_dir is not None:
        search_path.prepend(provider="command-line", path=f"file://{os.path.abspath(args.config_dir)}",
                            anchor=SearchPathQuery(provider="schema"))
    start_app_hydra("skillbench", search_path)
    try:
        yield GlobalHydra.instance().config_loader()
    finally:
        GlobalHydra.instance().clear()


def _compose(args: argparse.Namespace, overrides: list[str], multirun: bool) -> DictConfig:
    """The config Hydra composes for this command line, its ``hydra`` node included (a sweep: its master config,
    which is what Hydra prints before any job)."""
    with _app_config_loader(args) as loader, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Hydra warns again, once, when it composes the same config
        return loader.load_configuration(
            config_name=args.config_name or APP_CONFIG_NAME, overrides=overrides,
            run_mode=RunMode.MULTIRUN if multirun else RunMode.RUN, validate_sweep_overrides=False,
        )


def _completion_words() -> tuple[list[str], bool] | None:
    """The overrides Hydra composes to answer a tab-completion query (``COMP_LINE`` without its program and the
    word being completed), and whether that line sweeps."""
    line = os.environ.get("COMP_LINE")
    if line is None:
        return None
    try:
        line = CompletionPlugin.strip_python_or_app_name(line)
    except RuntimeError:
        return None
    args = hydra_arguments(line.split())
    if args is None:
        return None
    words = list(args.overrides)
    if words and not line.endswith(" "):
        words = words[:-1]
    return words, bool(args.multirun)


def _key_in_error(exc: BaseException) -> str | None:
    """Where the key is when the text of a composition error (its whole chain, as HYDRA_FULL_ERROR=1 prints it)
    holds one (a known key format, or the value of an environment variable named like a credential): the value's
    key as OmegaConf names it, else the file Hydra names. None when the error holds no key."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    text = "\n".join(str(error) for error in chain)
    secrets = [value for name, value in os.environ.items() if credential_name(name) and len(value) >= 8]
    if not (looks_like_key(text) or any(value in text for value in secrets)):
        return None
    keys = [str(key) for error in chain if (key := getattr(error, "full_key", None))]
    return keys[0] if keys else "a value Hydra cannot compose"


def credential_problem(argv: list[str]) -> str | None:
    """The refusal (one line, naming where, never the value) when the config this command line composes holds a
    credential, else None. A command line Hydra cannot parse or compose is left to Hydra's own error, unless
    that error would carry a key."""
    if "--version" in argv:  # prints Hydra's version, no config (and argparse would exit here)
        return None
    args = hydra_arguments(argv)
    if args is None:
        return None
    overrides, multirun = list(args.overrides), bool(args.multirun)
    request = completion_request(argv)
    if request is not None:
        words = _completion_words() if request.startswith("query") else None
        if words is None:  # install/uninstall print a script, not a config
            return None
        overrides, multirun = words
    shown_by = _shown_by(args, request)
    found = argument_credentials(overrides)
    if found:
        return secrets_refusal(found, "on the command line", shown_by)
    try:
        cfg = _compose(args, overrides, multirun)
    except Exception as exc:  # Hydra reports it (one line, exit 2: plan/hydra_errors.py)
        place = _key_in_error(exc)
        return secrets_refusal([place], "in the configuration", shown_by) if place else None
    found = config_credentials(cfg)
    return secrets_refusal(found, "in the configuration", shown_by) if found else None


def _shown_by(args: argparse.Namespace, completion: str | None) -> str | None:
    """The flag that would print the config (named in the refusal), or None for a run."""
    if completion is not None:
        return "tab completion"
    if args.cfg is not None:
        return f"--cfg {args.cfg}" + (" --resolve" if args.resolve else "")
    if args.info is not None:
        return f"--info {args.info}"
    if args.help:
        return "--help"
    return None
