"""Clean source rollouts for the lab's tests: three stored sim_careful rollouts of the starter benchmark
(committed in tests/support/lab_sources.jsonl so the tests need no rollouts of their own)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.benchmark import load_benchmark
from skillbench.benchmark.loader import Benchmark
from skillbench.core.records import Rollout
from skillbench.lab.labelled import make_case
from skillbench.lab.perturb import Case
from tests.support.nonempty import nonempty

SOURCES = Path(__file__).resolve().parents[1] / "support" / "lab_sources.jsonl"


@pytest.fixture(scope="session")
def starter() -> Benchmark:
    return load_benchmark("starter")


@pytest.fixture(scope="session")
def source_rollouts() -> list[Rollout]:
    return [Rollout.model_validate_json(line) for line in SOURCES.read_text().splitlines()]


@pytest.fixture(scope="session")
def cases(starter: Benchmark, source_rollouts: list[Rollout]) -> list[Case]:
    found = [make_case(starter, rollout) for rollout in source_rollouts]
    assert all(nonempty(found, "source rollouts")), "every source rollout makes a case"
    return [case for case in found if case is not None]
