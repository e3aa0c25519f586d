"""The simulated models' domain vocabulary (``vocabulary.yaml``), read once per process."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

VOCABULARY_FILE = Path(__file__).with_name("vocabulary.yaml")


@cache
def vocabulary() -> dict[str, Any]:
    return yaml.safe_load(VOCABULARY_FILE.read_text(encoding="utf-8"))


def phrases(section: str) -> dict[str, tuple[str, ...]]:
    """A mapping section as word → phrases (tuples: the readers only iterate them)."""
    return {key: tuple(values) for key, values in vocabulary()[section].items()}
