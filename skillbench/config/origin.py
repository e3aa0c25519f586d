"""Where a composed config's value was set, for its error messages: on the command line, by the sweep, in the
experiment preset, in the config-group file Hydra chose (in skillbench's conf/ or a ``--config-dir``), or in
the primary config. Hydra keeps no provenance per value; the later a source is applied, the more it decides:
command line (and sweep values) > experiment preset > group file > conf/config.yaml."""

from __future__ import annotations

import importlib.resources
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillbench.core.yamlfile import load_yaml

PRIMARY_CONFIG = "conf/config.yaml"
_OWN_CONF = "skillbench.conf"  # skillbench's packaged config (pkg://skillbench/conf or pkg://skillbench.conf)


def override_key(override: str) -> str:
    """The dotted key an override sets (``+a.b=1`` → ``a.b``)."""
    return override.split("=", 1)[0].lstrip("+~")


def _relates(set_key: str, key: str) -> bool:
    """Setting ``set_key`` set ``key``: the same key, an ancestor of it, or a part of it."""
    return set_key == key or key.startswith(set_key + ".") or set_key.startswith(key + ".")


def _global_package(text: str) -> bool:
    """Whether a config file's header (its leading comment lines) says ``# @package _global_``."""
    for line in text.splitlines():
        if not line.startswith("#"):
            return False
        if line.split()[1:3] == ["@package", "_global_"]:
            return True
    return False


def _holds(data: Any, key: str) -> bool:
    """Whether nested mappings ``data`` set ``key`` (or an ancestor or a part of it)."""
    node = data
    for part in key.split("."):
        if not isinstance(node, Mapping):
            return True  # an ancestor of the key is set to a value: it set the key
        if part not in node:
            return False
        node = node[part]
    return True


@dataclass(frozen=True)
class ConfigOrigin:
    """The sources of one composed job's values, as Hydra recorded them in its ``hydra`` node."""

    choices: Mapping[str, str | None] = field(default_factory=dict)  # hydra.runtime.choices
    command_line: Sequence[str] = ()  # the overrides as typed (hydra.overrides.task of the run or sweep)
    sweep: Sequence[str] = ()  # a sweep job's own overrides beyond them (hydra.sweeper.params)
    sources: Sequence[tuple[str, str]] = ()  # Hydra's search path: (scheme, path), in its order

    @classmethod
    def of(cls, hydra: Any, job_overrides: Sequence[str] | None = None,
           choices: Mapping[str, str | None] | None = None) -> ConfigOrigin:
        """From a composed config's ``hydra`` node (a run's, or a sweep's master with one job's overrides and
        choices). Any node that lacks the fields gives an origin that names files by choice alone."""
        def select(path: str) -> Any:
            node = hydra
            for part in path.split("."):
                node = node.get(part) if isinstance(node, Mapping) or hasattr(node, "get") else None
                if node is None:
                    return None
            return node

        typed = [str(item) for item in select("overrides.task") or []]
        typed_keys = {override_key(item) for item in typed}
        job = [str(item) for item in (job_overrides if job_overrides is not None else typed)]
        sources = [(str(s.get("schema")), str(s.get("path"))) for s in select("runtime.config_sources") or []]
        return cls(choices=dict(choices if choices is not None else select("runtime.choices") or {}),
                   command_line=typed, sweep=[item for item in job if override_key(item) not in typed_keys],
                   sources=sources)

    def _sets(self, overrides: Sequence[str], key: str) -> bool:
        """A value override (not a config-group choice such as ``agent=gpt5``) among ``overrides`` set ``key``."""
        for item in overrides:
            name, _, value = item.partition("=")
            name = name.lstrip("+~")
            if name in self.choices and not value.lstrip().startswith("{"):
                continue
            if _relates(name, key):
                return True
        return False

    def _find(self, group: str, choice: str) -> tuple[str, Path | None]:
        """The file a group option was read from (as messages show it) and its path when it can be read."""
        relative = f"{group}/{choice}.yaml"
        for scheme, path in self.sources:
            if scheme == "file":
                found = Path(path) / relative
                if found.is_file():
                    return str(found), found
            elif scheme == "pkg":
                module = path.replace("/", ".")
                try:
                    found_pkg = importlib.resources.files(module) / relative
                except (ModuleNotFoundError, ValueError):
                    continue
                if found_pkg.is_file():
                    shown = f"conf/{relative}" if module == _OWN_CONF else f"pkg://{path}/{relative}"
                    return shown, Path(str(found_pkg))
        return f"conf/{relative}", None

    def file(self, group: str) -> str:
        """The file a config group's values came from (its chosen option), else the primary config."""
        choice = self.choices.get(group)
        return self._find(group, choice)[0] if choice else PRIMARY_CONFIG

    def _experiment_sets(self, key: str) -> str | None:
        """The experiment preset's file when it sets ``key``."""
        choice = self.choices.get("experiment")
        if not choice:
            return None
        shown, path = self._find("experiment", choice)
        try:
            text = path.read_text(encoding="utf-8") if path is not None else ""
            data = load_yaml(text) or {}
        except Exception:  # unreadable here: Hydra read it, so its own error would have come first
            return None
        if not _global_package(text):
            data = {"experiment": data}
        return shown if isinstance(data, Mapping) and _holds({k: v for k, v in data.items() if k != "defaults"}, key) else None

    def where(self, key: str) -> str:
        """Where the value at dotted ``key`` was set, as an error message says it: ``on the command line``,
        ``in the sweep (hydra.sweeper.params)``, ``in <file>``."""
        if self._sets(self.command_line, key):
            return "on the command line"
        if self._sets(self.sweep, key):
            return "in the sweep (hydra.sweeper.params)"
        experiment = self._experiment_sets(key)
        if experiment is not None:
            return f"in {experiment}"
        return f"in {self.file(key.split('.', 1)[0])}"
