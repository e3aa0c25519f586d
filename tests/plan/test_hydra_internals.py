"""Hydra's private API is used in one module only, and only with the hydra-core it was read against.

``skillbench/plan/hydra_internals.py`` holds every use of ``hydra._internal`` (its docstring says what each is for).
When hydra-core moves, these tests fail first, naming that module, so the uses are read again before a user meets a
changed private function at run time.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import hydra
import pytest

from skillbench.plan import hydra_internals
from skillbench.plan.hydra_internals import HYDRA_VERSION, hydra_version_problem

REPO = Path(__file__).resolve().parents[2]
ADAPTER = "skillbench/plan/hydra_internals.py"


def test_the_installed_hydra_is_the_one_the_internals_module_was_written_for() -> None:
    assert hydra_version_problem() is None, hydra_version_problem()


def test_another_hydra_version_is_refused_naming_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hydra, "__version__", "1.4.0")
    problem = hydra_version_problem() or ""
    assert "hydra-core 1.4.0 is installed" in problem and "skillbench.plan.hydra_internals" in problem
    assert ADAPTER in problem.replace("\\", "/") and f"hydra-core=={HYDRA_VERSION}" in problem


def test_the_pin_says_the_same_version_and_why() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    dependencies = tomllib.loads(pyproject)["project"]["dependencies"]
    assert f"hydra-core=={HYDRA_VERSION}" in dependencies
    pin = pyproject.index(f'"hydra-core=={HYDRA_VERSION}"')
    assert ADAPTER in pyproject[pyproject.rindex("\n\n", 0, pin) : pin]  # the reason, written beside the pin
    assert re.search(rf"^hydra-core=={re.escape(HYDRA_VERSION)} ", (REPO / "requirements.lock").read_text(), re.M)


def _private_hydra_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                 else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        found += [f"{path.relative_to(REPO)}:{node.lineno}" for name in names if name.startswith("hydra._internal")]  # type: ignore[attr-defined]
    return found


def test_no_other_module_imports_hydras_private_api() -> None:
    files = [p for folder in ("skillbench", "hydra_plugins", "benchmarks", "tests") for p in (REPO / folder).rglob("*.py")]
    users = [where for path in files for where in _private_hydra_imports(path)]
    assert users and all(where.startswith(ADAPTER) for where in users), users
    assert Path(hydra_internals.__file__).resolve() == REPO / ADAPTER
