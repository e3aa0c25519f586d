"""Guards against vacuous checks: ``all(...)`` over an empty collection, or a loop of asserts that never runs,
passes whatever the code does. Wrap the collection: ``assert all(ok(x) for x in nonempty(rows, "rows"))``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")


def nonempty(items: Iterable[T], what: str = "items") -> list[T]:
    """The items as a list, asserted to hold at least one (naming ``what`` when there is none)."""
    found = list(items)
    assert found, f"no {what}: a check over them would pass vacuously"
    return found
