"""Imports written inside functions: each resolves, and each is the one docs/architecture.md lists with its reason.

Lazy imports (start-up time) run only when their function does: a name moved elsewhere breaks such an import silently
until the rare path runs (a killed worker's bookkeeping once imported a writer that had moved). And a lazy import can
hide a cycle, or outlive its reason: the architecture page lists every one with why it waits, and this compares that
list with the code, so neither can drift.
"""

from __future__ import annotations

import importlib

from tests.support.imports import LAZY_SECTION, documented_lazy_imports, lazy_imports
from tests.support.nonempty import nonempty


def test_every_import_inside_a_function_resolves() -> None:
    broken = []
    for found in nonempty(lazy_imports(), "lazy imports"):
        try:
            module = importlib.import_module(found.module)
        except ImportError:
            if found.module.split(".")[0] in {"skillbench", "hydra_plugins"}:
                broken.append(f"{found.path}:{found.line}: import {found.module}")
            continue  # an optional extra that is not installed (pyarrow, textual): its function says so
        for name in found.names:
            if name != "*" and not hasattr(module, name):
                try:
                    importlib.import_module(f"{found.module}.{name}")
                except ImportError:
                    broken.append(f"{found.path}:{found.line}: from {found.module} import {name}")
    assert not broken, broken


def test_the_architecture_page_lists_every_lazy_import_and_no_other() -> None:
    in_code = {found.key for found in lazy_imports()}
    in_doc = set(nonempty(documented_lazy_imports(), f"rows of docs/architecture.md {LAZY_SECTION!r}"))
    unlisted, stale = sorted(in_code - in_doc), sorted(in_doc - in_code)
    assert not unlisted and not stale, (
        f"docs/architecture.md {LAZY_SECTION!r} is out of date. Written inside a function but not listed (move it to "
        f"the module's top, or list it with why it must wait): {unlisted}. Listed but not in the code: {stale}"
    )


def test_the_comparison_sees_a_new_lazy_import_and_a_stale_row() -> None:
    page = (
        f"{LAZY_SECTION}\n\n| where | imports | why |\n|---|---|---|\n"
        "| `skillbench/cli.py` `main` | `skillbench.config.secrets`, `pandas` | a reason |\n\n## Next\n"
        "| `skillbench/x.py` `f` | `skillbench.y` | a row of another section |\n"
    )
    assert documented_lazy_imports(page) == {("skillbench/cli.py", "main", "skillbench.config.secrets"),
                                             ("skillbench/cli.py", "main", "pandas")}
