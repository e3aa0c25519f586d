"""YAML as skillbench reads it: safe, and a mapping that names the same key twice is an error.

PyYAML keeps the last of two equal keys without a word, so a second ``objective:`` silently wins.
Every benchmark and config file skillbench reads itself goes through :func:`load_yaml`; Hydra's own
config files are read by OmegaConf, which already refuses duplicate keys.
"""

from __future__ import annotations

from typing import Any

import yaml

# libyaml's parser when PyYAML was built with it (about 7x faster on the full benchmark); the
# constructor, where duplicates are caught, is Python either way.
_BASE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping names one key twice."""


class StrictSafeLoader(_BASE):  # type: ignore[misc, valid-type]
    """The safe loader, refusing a mapping that names one key twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # '<<' merges are allowed to repeat keys by definition
            # A plain scalar key is compared by tag and text (cheap); anything else as constructed.
            key = (key_node.tag, key_node.value) if isinstance(key_node, yaml.ScalarNode) else self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:
                continue  # an unhashable key: the base constructor reports it
            if first is not None:
                raise DuplicateKeyError(
                    "while constructing a mapping", node.start_mark,
                    f"found duplicate key {self.construct_object(key_node)!r} (first on line {first.start_mark.line + 1})", key_node.start_mark,
                )
            seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str) -> Any:
    """Parse YAML text safely; raises :class:`yaml.YAMLError` (e.g. :class:`DuplicateKeyError`)."""
    return yaml.load(text, Loader=StrictSafeLoader)


def describe_yaml_error(exc: yaml.YAMLError) -> str:
    """' line N is not valid YAML (<problem>)' for a YAML error (the mark of the problem, else of the context)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f" line {mark.line + 1}" if mark is not None else ""
    return f"{where} is not valid YAML ({getattr(exc, 'problem', None) or exc})"
