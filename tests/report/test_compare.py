"""`skillbench compare`: paired verdicts per pair and judge, Holm, ranking; the same agent twice is not distinguishable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.cli import main as cli_main
from skillbench.engine import run_job
from skillbench.report.compare import compare_runs
from skillbench.report.stats import holm
from tests.conftest import compose_config
from tests.support.nonempty import nonempty


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A 2 agents × 2 judges sweep on smoke (14 scenarios), and sim_careful again with another seed."""
    root = tmp_path_factory.mktemp("compare")
    store = f"store.root={root / 'store'}"
    sweep = root / "sweep"
    for i, (agent, judge) in enumerate(
        [(a, j) for a in ("sim_careful", "sim_reckless") for j in ("sim_balanced", "sim_strict")]
    ):
        run_job(compose_config(f"agent={agent}", f"judge={judge}", "benchmark=smoke", store), sweep / f"{i}_{agent}_{judge}")
    careful_a = root / "careful_seed0"
    careful_b = root / "careful_seed1"
    run_job(compose_config("agent=sim_careful", "benchmark=smoke", store), careful_a / "0_sim_careful_sim_balanced")
    run_job(compose_config("agent=sim_careful", "benchmark=smoke", "run.seed=1", store), careful_b / "0_sim_careful_sim_balanced")
    again = root / "careful_again"  # the same config once more: the same stored rollouts and verdicts
    run_job(compose_config("agent=sim_careful", "benchmark=smoke", store), again / "0_sim_careful_sim_balanced")
    return {"sweep": sweep, "careful_a": careful_a, "careful_b": careful_b, "again": again}


def test_holm_matches_a_hand_computed_example() -> None:
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


def test_a_better_agent_wins_under_every_judge_and_ranks_first(runs: dict[str, Path]) -> None:
    comparison, _ = compare_runs([runs["sweep"]], draws=300)
    assert comparison.judges == ["sim_balanced", "sim_strict"]
    (verdict,) = comparison.verdicts
    assert (verdict.higher, verdict.lower) == ("sim_careful", "sim_reckless")
    assert verdict.judges_for_higher == 2 and verdict.line.startswith("sim_careful > sim_reckless under 2/2 judges (Holm")
    for test in nonempty(comparison.tests, "tests"):
        assert test.scenarios == 14 and test.significant
        assert test.p_adjusted is not None and test.p_value is not None and test.p_adjusted >= test.p_value
        assert test.ci_low is not None and test.ci_low > 0 and test.difference == pytest.approx(test.rate_a - test.rate_b)
        assert len(test.a_better) > len(test.b_better)
    assert [r.agent for r in comparison.ranking] == ["sim_careful", "sim_reckless"]
    assert comparison.ranking[0].rank_low == comparison.ranking[0].rank_high == 1


def test_two_runs_of_the_same_agent_are_not_distinguishable(runs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    out = runs["careful_a"].parent / "cmp.json"
    assert cli_main(["compare", str(runs["careful_a"]), str(runs["careful_b"]), "--draws", "200", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "sim_careful · run(seed=0)" in text and "sim_careful · run(seed=1)" in text  # labels name the difference
    assert "not distinguishable" in text
    saved = json.loads(out.read_text())
    (verdict,) = saved["verdicts"]
    assert verdict["judges_for_higher"] == verdict["judges_for_lower"] == 0
    assert saved["correction"].startswith("Holm")
    # Identical configs in two folders: told apart by folder name, every verdict equal, p = 1.
    comparison, _ = compare_runs([runs["careful_a"], runs["again"]], draws=200)
    assert comparison.agents == ["sim_careful @careful_again", "sim_careful @careful_seed0"]
    (test,) = comparison.tests
    assert test.a_better == test.b_better == [] and test.p_value == 1.0 and test.difference == 0.0
    assert "not distinguishable" in comparison.verdicts[0].line


def test_compare_of_one_agent_is_one_clear_error(runs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["compare", str(runs["careful_a"])]) == 2
    err = capsys.readouterr().err
    assert "only one agent" in err and err.count("\n") == 1
