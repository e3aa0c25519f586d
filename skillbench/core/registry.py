"""A tiny name → object registry: components are looked up by the name a config gives, never by if/else."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class UnknownComponentError(KeyError):
    """Raised when a config names a component that is not registered."""

    def __str__(self) -> str:  # KeyError quotes its message; show it plainly
        return str(self.args[0])


class Registry(Generic[T]):
    """Maps names to registered objects of one extension point (e.g. mock response modes)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        def decorator(obj: T) -> T:
            if name in self._items:
                raise ValueError(f"{self.kind} {name!r} is registered twice")
            self._items[name] = obj
            return obj

        return decorator

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            choices = ", ".join(sorted(self._items)) or "none"
            raise UnknownComponentError(f"unknown {self.kind} {name!r}; registered: {choices}") from None

    def names(self) -> list[str]:
        return sorted(self._items)

    def unregister(self, name: str) -> T:
        """Remove a registration (tests, and plugins that replace a built-in)."""
        try:
            return self._items.pop(name)
        except KeyError:
            raise UnknownComponentError(f"unknown {self.kind} {name!r}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._items))
