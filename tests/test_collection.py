"""The guard against tests that exist on disk but never run (pytest's default ``norecursedirs`` once hid
``tests/build/``: 40 tests that CI never collected).

The root conftest records every test module pytest collected in this session (skipped modules included);
this test compares that with the ``test_*.py`` files on disk under the paths the session was asked to run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.collection import COLLECTED_MODULES

REPO = Path(__file__).resolve().parents[1]


def _requested_roots(config: pytest.Config) -> list[Path]:
    roots = []
    for arg in config.args:
        path = Path(arg.split("::")[0])
        path = path if path.is_absolute() else Path(config.invocation_params.dir) / path
        if path.exists():
            roots.append(path.resolve())
    return roots


def test_every_test_file_on_disk_is_collected(request: pytest.FixtureRequest) -> None:
    roots = [root for root in _requested_roots(request.config) if root.is_dir()]
    if not roots:
        pytest.skip("only single files were asked for; the guard checks folders")
    on_disk = {p.resolve() for root in roots for p in root.rglob("test_*.py") if "__pycache__" not in p.parts}
    assert on_disk, f"no test file found under {roots}: the guard would prove nothing"
    collected = request.config.stash[COLLECTED_MODULES]
    missing = sorted(str(p.relative_to(REPO)) for p in on_disk - collected)
    assert not missing, (
        f"{len(missing)} test file(s) on disk were never collected (a norecursedirs pattern, a folder name or a "
        f"missing __init__.py hides them): {missing}. Fix: pyproject.toml [tool.pytest.ini_options] norecursedirs."
    )
