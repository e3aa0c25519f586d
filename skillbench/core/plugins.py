"""Plug-ins: installed packages that extend skillbench through one entry-point group, ``skillbench.plugins``.

A package declares ``[project.entry-points."skillbench.plugins"] <namespace> = "<module>[:<function>]"``.
Loading the entry point imports the module (its ``@rule_check``, ``@report_table``, ``AGENTS.register`` …
decorators run) and calls the function if one is named. While it loads, every name it registers is
namespaced ``<namespace>/<name>``, so two packages never collide; a namespace claimed by two packages, or a
name registered twice, is refused with one line naming both packages.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points

from skillbench.core.errors import ConfigError, SkillbenchError

GROUP = "skillbench.plugins"
BUILT_IN = "skillbench"  # the owner of everything registered outside a plug-in


@dataclass(frozen=True)
class PluginOwner:
    namespace: str
    package: str  # the distribution that declares the entry point


class PluginError(ConfigError):
    """A plug-in could not be loaded, or it claims a name another package holds (refused like a bad config)."""


_current: ContextVar[PluginOwner | None] = ContextVar("skillbench_plugin", default=None)
_lock = threading.Lock()
_loaded: dict[str, PluginOwner] | None = None
_failed: PluginError | None = None  # a refused set of plug-ins stays refused: every later call raises it again


def current_owner() -> PluginOwner | None:
    """The plug-in being loaded right now (its registrations are namespaced), or None."""
    return _current.get()


@contextlib.contextmanager
def loading(owner: PluginOwner) -> Iterator[None]:
    token = _current.set(owner)
    try:
        yield
    finally:
        _current.reset(token)


def _package(entry: EntryPoint) -> str:
    dist = getattr(entry, "dist", None)
    return dist.name if dist is not None else entry.value.split(":")[0].split(".")[0]


def load_plugins() -> dict[str, PluginOwner]:
    """Load every installed plug-in once (later calls return what was loaded): namespace → owner."""
    global _loaded, _failed
    with _lock:
        if _failed is not None:
            raise _failed
        if _loaded is not None:
            return _loaded
        try:
            _loaded = _load_all()
        except PluginError as exc:
            _failed = exc
            raise
        return _loaded


def _load_all() -> dict[str, PluginOwner]:
    """Check every declared namespace first (nothing is imported when two packages claim one), then load each."""
    owners: dict[str, PluginOwner] = {}
    entries = sorted(entry_points(group=GROUP), key=lambda e: (e.name, e.value))
    for entry in entries:
        owner = PluginOwner(entry.name, _package(entry))
        if "/" in entry.name or not entry.name.strip():
            raise PluginError(f"plug-in {owner.package}: entry point name {entry.name!r} is not a namespace "
                              "(no '/'). Fix: name the entry point after your package.")
        if entry.name == BUILT_IN:
            raise PluginError(f"plug-in {owner.package} claims the namespace {BUILT_IN!r}, which is skillbench's "
                              "own. Fix: name the entry point after your package.")
        held = owners.get(entry.name)
        if held is not None and held.package != owner.package:
            raise PluginError(f"plug-in namespace {entry.name!r} is declared by both {held.package} and "
                              f"{owner.package}. Fix: uninstall one, or rename one's entry point.")
        owners[entry.name] = owner
    for entry in entries:
        owner = owners[entry.name]
        with loading(owner):
            try:
                loaded = entry.load()
                if callable(loaded):
                    loaded()
            except SkillbenchError:
                raise
            except Exception as exc:
                raise PluginError(f"plug-in {owner.package} ({entry.name} = {entry.value}) failed to load: "
                                  f"{type(exc).__name__}: {exc}") from exc
    return owners
