"""Every import written inside a function resolves.

Lazy imports (start-up time, fault paths) run only when their function does: a name moved elsewhere breaks such an
import silently until the rare path runs (a killed worker's bookkeeping once imported a writer that had moved).
This imports each of them, in every product module and Hydra plugin.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from tests.support.nonempty import nonempty

REPO = Path(__file__).resolve().parents[1]


def _lazy_imports() -> list[tuple[str, int, str, str]]:
    found = []
    for path in [*(REPO / "skillbench").rglob("*.py"), *(REPO / "hydra_plugins").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                        and node.module.split(".")[0] in {"skillbench", "hydra_plugins"}):
                    found += [(str(path.relative_to(REPO)), node.lineno, node.module, a.name) for a in node.names]
    return found


def test_every_import_inside_a_function_resolves() -> None:
    broken = []
    for where, line, module, name in nonempty(_lazy_imports(), "lazy imports"):
        if name != "*" and not hasattr(importlib.import_module(module), name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                broken.append(f"{where}:{line}: from {module} import {name}")
    assert not broken, broken
