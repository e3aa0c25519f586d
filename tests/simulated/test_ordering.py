"""The default simulated grid on the starter benchmark: believable, clearly ordered, judges mostly agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.engine import run_job
from skillbench.report.stats import cohen_kappa
from tests.conftest import compose_config
from tests.simulated.harness import AGENTS, JUDGES, grid


@pytest.fixture(scope="module")
def verdicts() -> dict[str, dict[str, list[bool]]]:
    return grid("starter", seeds=(0,))


def rate(values: list[bool]) -> float:
    return sum(values) / len(values)


def test_pass_rates_are_clearly_ordered_under_the_paper_rule(verdicts: dict[str, dict[str, list[bool]]]) -> None:
    for judge in JUDGES:
        careful, sloppy, reckless = (rate(verdicts[agent][judge]) for agent in AGENTS)
        assert careful >= 0.85, (judge, careful)
        assert careful - sloppy >= 0.2, (judge, careful, sloppy)
        assert sloppy - reckless >= 0.2, (judge, sloppy, reckless)
        assert reckless <= 0.35, (judge, reckless)


def test_judges_agree_mostly_but_not_perfectly(verdicts: dict[str, dict[str, list[bool]]]) -> None:
    every = {judge: [v for agent in AGENTS for v in verdicts[agent][judge]] for judge in JUDGES}
    kappas = [cohen_kappa(every[a], every[b]) for i, a in enumerate(JUDGES) for b in JUDGES[i + 1 :]]
    assert all(k is not None and k > 0.6 for k in kappas), kappas
    assert any(k < 1.0 for k in kappas), kappas


def test_strict_is_not_more_generous_than_lenient(verdicts: dict[str, dict[str, list[bool]]]) -> None:
    for agent in AGENTS:
        assert rate(verdicts[agent]["judge-strict"]) <= rate(verdicts[agent]["judge-lenient"])


def test_simulated_agents_are_ordered_by_quality_in_whole_jobs(tmp_path: Path) -> None:
    store = tmp_path / "store"
    rates = {
        agent: run_job(compose_config(f"store.root={store}", f"agent={agent}"), tmp_path / agent).pass_rate
        for agent in ("sim_careful", "sim_sloppy", "sim_reckless")
    }
    assert rates["sim_careful"] > rates["sim_sloppy"] > rates["sim_reckless"], rates
