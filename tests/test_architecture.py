"""The declared layering (pyproject.toml [tool.importlinter], docs/architecture.md) holds, and the contract bites."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` with the project's contracts over the ``skillbench`` package found under ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
         "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root, env=env, capture_output=True, text=True, timeout=120,
    )


def _copy_sources(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "skillbench", tmp_path / "skillbench", ignore=shutil.ignore_patterns("data", "conf", "__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_layering_contract_is_kept() -> None:
    result = _lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


@pytest.mark.parametrize(
    ("module", "upward"),
    [
        ("core/records.py", "import skillbench.report"),  # the bottom layer reaching the top
        ("prompts/judge.py", "from skillbench.evaluation import judge as _judge"),
        ("models/client.py", "import skillbench.rollout.orchestrator"),
        ("models/litellm_setup.py", "import skillbench.simulated.provider"),  # the product reaching into the plugin
        ("simulated/base.py", "import skillbench.engine"),  # the plugin reaching the engine
        # inside the report: the context importing a table family back, even from inside a function (a cycle)
        ("report/build.py", "def _lazy() -> None:\n    import skillbench.report.breakdowns"),
        ("report/figures/cells.py", "from skillbench.report.build import ReportContext"),  # a figure reaching the context
        ("plan/hydra_errors.py", "def _lazy() -> None:\n    import skillbench.plan.callback"),  # the cut plan cycle
        ("mining/compare.py", "from skillbench.mining.cli import mine_main"),  # the cut mining cycle
    ],
)
def test_an_upward_import_breaks_the_contract(tmp_path: Path, module: str, upward: str) -> None:
    root = _copy_sources(tmp_path)
    target = root / "skillbench" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{upward}  # deliberate violation\n", encoding="utf-8")
    result = _lint_imports(root)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout
    assert module.replace("/", ".").removesuffix(".py") in result.stdout
