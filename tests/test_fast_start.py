"""Fast start: help and report commands, and fully cached jobs, import none of the heavy libraries.

Checked with ``python -X importtime`` in a fresh interpreter (what a user's shell pays), not timed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("litellm", "mcp", "matplotlib", "scipy", "pandas")


def _imported(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> set[str]:
    """Top-level packages a fresh interpreter imported while running ``python -X importtime ARGS``."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
        env=env,
    )
    assert result.returncode in (0, 2), result.stderr[-3000:]
    return {m.group(1) for m in re.finditer(r"^import time:.*\|\s+([\w.]+)$", result.stderr, re.M)}


@pytest.mark.parametrize(
    "args",
    [
        ["-m", "skillbench", "--help"],
        ["-m", "skillbench.cli", "--help"],
        ["-m", "skillbench.cli", "report", "--help"],
        ["-m", "skillbench.cli", "rescore", "--help"],
        ["-m", "skillbench.cli", "diff", "--help"],
    ],
    ids=lambda a: " ".join(a[1:]),
)
def test_help_imports_nothing_heavy(args: list[str], tmp_path: Path) -> None:
    assert _imported(args, tmp_path).isdisjoint(HEAVY)


def test_a_fully_cached_job_does_not_import_litellm(tmp_path: Path) -> None:
    job = ["-m", "skillbench", "benchmark=smoke", "benchmark.limit=2", f"store.root={tmp_path / 'store'}"]
    assert "litellm" in _imported([*job, "hydra.run.dir=first"], tmp_path)  # it did call the (simulated) models
    assert "litellm" not in _imported([*job, "hydra.run.dir=second"], tmp_path)
    usage = json.loads((tmp_path / "second" / "summary.json").read_text())["usage"]
    assert usage["agent"]["calls"] == usage["judge"]["calls"] == 0 < usage["agent"]["cache_hits"]


def test_the_dry_run_of_the_paper_grid_does_not_import_litellm(tmp_path: Path) -> None:
    # Prices come from litellm's bundled price map file; importing litellm was most of the dry run's time.
    args = ["-m", "skillbench", "experiment=paper_grid", "run.dry_run=true", f"store.root={tmp_path / 'store'}"]
    assert _imported(args, tmp_path).isdisjoint(HEAVY)


def test_the_preflight_refusal_of_the_paper_grid_does_not_import_litellm(tmp_path: Path) -> None:
    # No keys, no servers: refused in a few seconds. Shipped model strings need no routing check by litellm.
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.endswith("_API_BASE")}
    args = ["-m", "skillbench", "experiment=paper_grid", "run.probe_timeout_s=1", f"store.root={tmp_path / 'store'}"]
    assert _imported(args, tmp_path, env).isdisjoint(HEAVY)
    assert not (tmp_path / "outputs").exists()
