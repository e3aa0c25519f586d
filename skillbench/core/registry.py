"""A tiny name → object registry: components are looked up by the name a config gives, never by if/else."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from skillbench.core.plugins import BUILT_IN, current_owner

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
        self._owners: dict[str, str] = {}  # name -> the package that registered it

    def register(self, name: str) -> Callable[[T], T]:
        """Register under ``name``; while a plug-in loads, under ``<its namespace>/<name>``."""
        owner = current_owner()
        if owner is not None and not name.startswith(owner.namespace + "/"):
            name = f"{owner.namespace}/{name}"
        package = owner.package if owner is not None else BUILT_IN

        def decorator(obj: T) -> T:
            if name in self._items:
                first = self._owners.get(name, BUILT_IN)
                both = f"by both {first} and {package}" if first != package else f"twice by {package}"
                raise ValueError(f"{self.kind} {name!r} is registered {both}")
            self._items[name] = obj
            self._owners[name] = package
            return obj

        return decorator

    def registered_name(self, name: str) -> str:
        """The name a registration under ``name`` gets right now (namespaced while a plug-in loads)."""
        owner = current_owner()
        return f"{owner.namespace}/{name}" if owner is not None and "/" not in name else name

    def owner(self, name: str) -> str:
        """The package that registered ``name`` (``skillbench`` for the built-ins)."""
        return self._owners.get(name, BUILT_IN)

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            choices = ", ".join(sorted(self._items)) or "none"
            raise UnknownComponentError(f"unknown {self.kind} {name!r}; registered: {choices}") from None

    def names(self) -> list[str]:
        return sorted(self._items)

    def values(self) -> list[T]:
        """Registered objects in registration order (the order an ordered extension point runs in)."""
        return list(self._items.values())

    def unregister(self, name: str) -> T:
        """Remove a registration (tests, and plugins that replace a built-in)."""
        try:
            self._owners.pop(name, None)
            return self._items.pop(name)
        except KeyError:
            raise UnknownComponentError(f"unknown {self.kind} {name!r}") from None

    @contextlib.contextmanager
    def registered(self, name: str, obj: T) -> Iterator[T]:
        """``obj`` registered under ``name`` for the duration of a ``with`` block (tests)."""
        self.register(name)(obj)
        try:
            yield obj
        finally:
            self.unregister(name)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._items))
