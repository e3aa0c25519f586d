"""Every use of Hydra's private API (``hydra._internal``), in one module, written against hydra-core 1.3.8.

Hydra 1.3 offers no public API for the four things below (its docs and issue tracker were searched: the public
surface is ``hydra.main``, ``compose``/``initialize_*``, ``hydra.utils``, ``hydra.core``'s config store, override
parser, ``GlobalHydra``/``ConfigLoader`` interface, and the plugin base classes). Nothing else in skillbench,
``hydra_plugins/`` or ``benchmarks/`` imports ``hydra._internal`` (``tests/plan/test_hydra_internals.py`` checks
the whole repository). hydra-core is pinned to :data:`HYDRA_VERSION` (``pyproject.toml``); the same test fails,
naming this module, on any other version: before moving the pin, read each use below against the new Hydra.

1. ``hydra._internal.utils.run_and_report`` (:func:`report_errors_with`). ``@hydra.main`` runs the app's start-up
   (config composition, overrides, Hydra's own writes) inside it, and it prints a multi-line report and exits 1
   for every error. skillbench replaces it, once per process, with a wrapper that first offers the exception to a
   handler (``plan/hydra_errors.py``: one line with the fix, exit 2) and otherwise calls Hydra's own. The only public
   knob, ``HYDRA_FULL_ERROR=1``, re-raises instead of reporting, which would leave every other error unreported.
2. ``hydra._internal.utils.get_args_parser`` (:func:`hydra_args_parser`): Hydra's own command-line parser, so a
   command line Hydra would refuse (a flag typo, an override after ``-m``) is answered in one line before Hydra
   parses it. ``hydra.main`` builds the same parser inside; nothing public returns it.
3. ``hydra._internal.core_plugins.basic_sweeper.BasicSweeper`` (:data:`BasicSweeper`, :func:`split_sweep`): the
   default sweeper's expansion of sweep overrides into jobs (``split_arguments``), so the preflight composes the
   jobs exactly as the launch will; and the base class of the checked sweeper
   (``hydra_plugins/skillbench_plugins/checked_sweeper.py``), which skips re-composing what the preflight composed.
   The public ``hydra.plugins.sweeper.Sweeper`` is only the abstract interface.
4. ``ConfigLoaderImpl._apply_overrides_to_config`` and ``ConfigLoaderImpl.repository``
   (:func:`apply_overrides`, :func:`group_exists`, :func:`load_option`): the preflight composes a sweep's jobs by
   swapping config-group nodes of the first job (``plan/sweep.py`` ``_GroupSwapper``), which needs Hydra's own
   override semantics (``+``, ``++``, ``~``) on one node and the raw option files. The public ``ConfigLoader``
   interface composes only whole configs (~0.3 s a job; the 85-job grid would wait ~25 s).
5. ``hydra._internal.utils.create_automatic_config_search_path`` and ``hydra._internal.hydra.Hydra.create_main_hydra2``
   (:func:`app_search_path`, :func:`start_app_hydra`): the secrets guard (``plan/secret_guard.py``) composes the
   config a command line will give *before* ``@hydra.main`` reads it, with the search path the app builds
   (skillbench's ``conf/`` or ``--config-path``, then ``--config-dir``), so a credential is refused before any flag
   prints it. The public ``initialize_config_*`` cannot add ``--config-dir`` where the app adds it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import hydra
from hydra._internal import utils as _hydra_utils
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra._internal.core_plugins import basic_sweeper as _basic_sweeper
from hydra._internal.hydra import Hydra as _Hydra
from hydra.core.config_loader import ConfigLoader
from hydra.core.override_parser.types import Override
from omegaconf import DictConfig

HYDRA_VERSION = "1.3.8"  # the hydra-core every use below was read against (pyproject.toml pins it)


def hydra_version_problem() -> str | None:
    """None when the installed hydra-core is the one this module was written for; else what to do."""
    if hydra.__version__ == HYDRA_VERSION:
        return None
    return (f"hydra-core {hydra.__version__} is installed, but {__name__} ({__file__}) uses Hydra's private API as "
            f"hydra-core {HYDRA_VERSION} has it. Fix: reinstall the pinned hydra-core=={HYDRA_VERSION}, or read each "
            f"use listed in that module's docstring against the new Hydra, then change HYDRA_VERSION and the pin in "
            f"pyproject.toml together")


# 1. Hydra's error report.

def report_errors_with(handle: Callable[[Exception], None]) -> None:
    """Offer every exception Hydra would report to ``handle`` first (it may print and exit); Hydra reports the rest
    as it always does. Installed once per process (a second call does nothing)."""
    if getattr(_hydra_utils.run_and_report, "_skillbench", False):
        return
    original = _hydra_utils.run_and_report

    def run_and_report(func: Any) -> Any:
        try:
            return func()
        except Exception as exc:
            handle(exc)
            error = exc
            return original(lambda: (_ for _ in ()).throw(error))

    run_and_report._skillbench = True  # type: ignore[attr-defined]
    _hydra_utils.run_and_report = run_and_report


# 2. Hydra's command-line parser.

def hydra_args_parser() -> Any:
    """A fresh ``argparse.ArgumentParser`` with Hydra's flags, as ``@hydra.main`` builds it."""
    return _hydra_utils.get_args_parser()


# 3. The basic sweeper: its expansion of a sweep into jobs, and the class the checked sweeper extends.

def __getattr__(name: str) -> Any:
    """``BasicSweeper``: Hydra's class as it is now. Hydra's plugin scan runs its module again at every start, which
    defines a new class; one bound at import time would be stale (and ``super()`` in Hydra's own methods refuses a
    subclass of the stale one)."""
    if name == "BasicSweeper":
        return _basic_sweeper.BasicSweeper
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def split_sweep(overrides: list[Override]) -> list[list[str]]:
    """Each job's override list, in the basic sweeper's order (one batch: no ``max_batch_size``)."""
    return [list(job) for batch in _basic_sweeper.BasicSweeper.split_arguments(overrides, None) for job in batch]


# 4. The config loader's option files and override semantics.

class LoadedOption(NamedTuple):
    """One option file of a config group, as Hydra's repository reads it."""

    config: DictConfig  # its body, without its defaults list
    package: str | None  # its ``# @package`` header (None: none)
    has_defaults: bool  # it has a defaults list of its own (only Hydra's composition applies one)


def _repository(loader: ConfigLoader) -> Any:
    return loader.repository  # type: ignore[attr-defined]  # ConfigLoaderImpl's, not the ConfigLoader interface's


def group_exists(loader: ConfigLoader, key: str) -> bool:
    """Whether ``key`` names a config group (``agent``, ``hydra/launcher``) on the loader's search path."""
    return bool(_repository(loader).group_exists(key))


def load_option(loader: ConfigLoader, name: str) -> LoadedOption | None:
    """The option file ``<group>/<option>`` (None when there is none)."""
    found = _repository(loader).load_config(name)
    if found is None:
        return None
    return LoadedOption(found.config, found.header.get("package"), bool(found.defaults_list))


def apply_overrides(overrides: list[Override], config: DictConfig) -> None:
    """Apply parsed overrides to ``config`` in place, with Hydra's semantics (``key=``, ``+key=``, ``++key=``,
    ``~key``), as composition applies the command line."""
    ConfigLoaderImpl._apply_overrides_to_config(overrides, config)



# 5. The app's config search path, for composing a command line before @hydra.main does.

def app_search_path(calling_module: str, config_path: str) -> Any:
    """The search path ``@hydra.main(config_path=...)`` in ``calling_module`` starts from (a ConfigSearchPath)."""
    return _hydra_utils.create_automatic_config_search_path(None, calling_module, config_path)


def start_app_hydra(task_name: str, search_path: Any) -> None:
    """Initialise Hydra's global instance as the app's own start-up does (clear it with ``GlobalHydra``)."""
    _Hydra.create_main_hydra2(task_name=task_name, config_search_path=search_path)
