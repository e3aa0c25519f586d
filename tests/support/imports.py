"""Imports written inside functions, found by an ``ast`` scan of the product (``skillbench/``, ``hydra_plugins/``).

Shared by ``tests/test_lazy_imports.py`` (every one resolves, and each is the one listed in docs/architecture.md) and
``benchmarks/lazy_imports.py`` (what each would cost at its module's top).
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ARCHITECTURE = REPO / "docs" / "architecture.md"
LAZY_SECTION = "### Lazy imports that remain"
OURS = {"skillbench", "hydra_plugins"}


@dataclass(frozen=True, order=True)
class LazyImport:
    """One module imported inside a function: ``path`` (from the repository root), the function, the module."""

    path: str
    function: str
    module: str
    line: int = 0  # not part of what the doc lists
    names: tuple[str, ...] = ()  # ``from module import names`` ("" for ``import module``)

    @property
    def key(self) -> tuple[str, str, str]:
        return self.path, self.function, self.module


def _counted(module: str) -> bool:
    """A skillbench or hydra_plugins module, or any third-party one (the standard library is never heavy)."""
    top = module.split(".")[0]
    return top in OURS or top not in sys.stdlib_module_names


def lazy_imports(root: Path = REPO) -> list[LazyImport]:
    """Every import of a skillbench/hydra_plugins or third-party module written inside a function (nested ones under
    their outermost function)."""
    found: list[LazyImport] = []
    for path in sorted([*(root / "skillbench").rglob("*.py"), *(root / "hydra_plugins").rglob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        seen: set[int] = set()
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if id(node) in seen:
                    continue
                seen.add(id(node))
                where = str(path.relative_to(root))
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and _counted(node.module):
                    names = tuple(a.name for a in node.names)
                    found.append(LazyImport(where, function.name, node.module, node.lineno, names))
                elif isinstance(node, ast.Import):
                    found += [LazyImport(where, function.name, a.name, node.lineno) for a in node.names if _counted(a.name)]
    return found


_ROW = re.compile(r"^\| `(?P<path>[^`]+)` `(?P<function>[^`]+)` \| (?P<modules>[^|]+) \|")


def documented_lazy_imports(text: str | None = None) -> set[tuple[str, str, str]]:
    """(path, function, module) of every row of docs/architecture.md's "Lazy imports that remain" table."""
    text = ARCHITECTURE.read_text(encoding="utf-8") if text is None else text
    section = text.split(LAZY_SECTION, 1)[1].split("\n#", 1)[0]
    rows = [_ROW.match(line) for line in section.splitlines()]
    return {(row["path"], row["function"], module) for row in rows if row
            for module in re.findall(r"`([^`]+)`", row["modules"])}
