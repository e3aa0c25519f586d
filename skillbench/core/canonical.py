"""The canonical JSON text of a value: the one text every content hash is taken over (``skillbench.store.keys``).

Sorted keys, no spaces, UTF-8 kept as is, ``str()`` for what JSON cannot hold. A text can be assembled from parts
already encoded (:func:`canonical_object`, :func:`canonical_array`) byte for byte as :func:`canonical_json` would
write the whole, so content encoded once (a loaded benchmark's records) is never encoded again per key.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any


def canonical_json(value: Any) -> str:
    """``value`` as canonical JSON text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def canonical_object(members: Mapping[str, str]) -> str:
    """The canonical text of an object whose member values are given as canonical texts already: the same bytes as
    ``canonical_json`` of the object holding those values."""
    return "{" + ",".join(f"{canonical_json(name)}:{members[name]}" for name in sorted(members)) + "}"


def canonical_array(items: Iterable[str]) -> str:
    """The canonical text of a list whose items are given as canonical texts already."""
    return "[" + ",".join(items) + "]"
