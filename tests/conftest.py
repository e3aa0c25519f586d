"""Shared fixtures. Tests are offline: simulated models, or a stub server on 127.0.0.1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Before any test module imports litellm itself (tests/models/test_abandoned_calls.py does, at collection): without
# it litellm fetches its price map from GitHub at import. The product sets it in models/litellm_setup.py.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.support.collection import COLLECTED_MODULES
from tests.support.toy_domain import (  # fixtures of the toy domain, used across folders
    make_toy,
    toy_state,
    toy_tools,
)

REPO = Path(__file__).resolve().parents[1]
# The public data sets (STAR, ABCD) some tests read; never shipped, never a default at run time. A checkout
# beside ../shared finds them there; elsewhere name the folder with SKILLBENCH_TEST_DATA. Absent: those tests
# skip, naming the folder they looked in.
SHARED_DATA = Path(os.environ.get("SKILLBENCH_TEST_DATA") or REPO.parent / "shared" / "data")



class _ModuleRecorder:
    def __init__(self, seen: set[Path]) -> None:
        self.seen = seen

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        path = Path(report.fspath) if report.fspath else None
        if path is not None and path.name.startswith("test_") and path.suffix == ".py":
            self.seen.add(path.resolve())


def pytest_configure(config: pytest.Config) -> None:
    config.stash[COLLECTED_MODULES] = set()
    config.pluginmanager.register(_ModuleRecorder(config.stash[COLLECTED_MODULES]), "skillbench-module-recorder")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Tests run in parallel workers (pytest-xdist, `-n auto --dist loadgroup` in pyproject.toml). The real-SLURM tests
    # share one cluster (a session fixture) and the real-server tests each start a CPU-bound llama.cpp server: each
    # family runs in one worker, one test after the other.
    for item in items:
        for family in ("slurm", "realserver"):
            if item.get_closest_marker(family):
                item.add_marker(pytest.mark.xdist_group(family))


def compose_config(*overrides: str):
    """The validated RunConfig for these overrides, composed from the packaged Hydra config."""
    from hydra import compose, initialize_config_module

    from skillbench.config import validate_config

    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        cfg = compose("config", overrides=list(overrides), return_hydra_config=False)
    return validate_config(cfg)


@pytest.fixture
def store_root(tmp_path: Path) -> Path:
    return tmp_path / "store"


__all__ = ["compose_config", "make_toy", "store_root", "toy_state", "toy_tools"]
