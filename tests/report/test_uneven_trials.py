"""Repeated trials with judge errors among them (the decision audit's case): a stub judge on 127.0.0.1 gives no verdict
on about one transcript in five, so scenarios end with different numbers of scored trials. Every k of a cell is still
computed on one stated set of scenarios, pass@k never falls as k grows, and the tables say why k stops where it does."""

from __future__ import annotations

import itertools
import json
import logging
from pathlib import Path

import pytest

from skillbench.engine import RESULTS_FILE, ResultRow, run_job
from skillbench.engine.trials import pass_at_k, pass_hat_k, task_counts, trial_population
from skillbench.report.build import ReportContext
from skillbench.report.tables import TABLES
from skillbench.report.write import make_report
from tests.conftest import compose_config
from tests.support.flaky_judge import STUB_JUDGE, flaky_judge
from tests.support.openai_stub import stub_server


@pytest.fixture(scope="module")
def uneven(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("uneven")
    log = logging.getLogger("skillbench")
    handler = logging.FileHandler(root / "job.log")
    log.addHandler(handler)
    previous = log.level
    log.setLevel(logging.INFO)
    with stub_server(flaky_judge(), models=(STUB_JUDGE,)) as server:
        cfg = compose_config(
            "agent=sim_sloppy", "benchmark=smoke", "run.trials=3", "judge=custom", f"judge.model=hosted_vllm/{STUB_JUDGE}",
            f"judge.api_base={server.base_url}", "judge.rubric_version=v2", "judge.name=stubjudge",
            f"store.root={root / 'store'}",
        )
        try:
            run_job(cfg, root / "sweep" / "0_sim_sloppy_stubjudge")
        finally:
            log.removeHandler(handler)
            log.setLevel(previous)
            handler.close()
    return root / "sweep"


def _rows(sweep: Path) -> list[ResultRow]:
    return [ResultRow.model_validate_json(line) for line in (sweep / "0_sim_sloppy_stubjudge" / RESULTS_FILE).read_text().splitlines()]


def test_the_stub_judge_leaves_scenarios_with_uneven_scored_trials(uneven: Path) -> None:
    rows = _rows(uneven)
    assert len(rows) == 14 * 3
    unscored = sum(row.passed is None for row in rows)
    assert 3 <= unscored <= 15  # about one in five
    population = trial_population(task_counts((r.scenario_id, r.passed) for r in rows), planned=3)
    assert population.short and population.max_k < 3  # the case the audit found: k's that used to shift sets


def test_every_k_is_on_one_stated_population_and_pass_at_k_never_falls(uneven: Path, tmp_path: Path) -> None:
    rows = _rows(uneven)
    population = trial_population(task_counts((r.scenario_id, r.passed) for r in rows), planned=3)
    summary = json.loads((uneven / "0_sim_sloppy_stubjudge" / "summary.json").read_text())
    assert list(summary["pass_hat_k"]) == ["1", "2", "3"]
    for k in (1, 2, 3):  # the job's summary and the report's table are one computation
        expected = population.mean(pass_hat_k, k)
        assert summary["pass_hat_k"][str(k)] == (None if expected is None else pytest.approx(expected))
        assert (summary["pass_hat_k"][str(k)] is None) == (k > population.max_k)
    report, written = make_report([uneven], tmp_path / "report", formats=["md", "csv", "json"])
    context = ReportContext.of(report)
    rates = sorted(report.trials, key=lambda r: r.k)
    assert {r.scenarios for r in rates} == {population.scenarios}  # one n for every k, stated
    assert {r.max_k for r in rates} == {population.max_k} and rates[0].short == population.short
    known = [r.pass_at_k for r in rates if r.pass_at_k is not None]
    assert len(known) == population.max_k
    assert all(a <= b + 1e-12 for a, b in itertools.pairwise(known))
    for rate in rates:  # an interval is never a point, even for a rate of 0
        if rate.pass_hat_k is not None:
            assert rate.pass_hat_k_ci_low < rate.pass_hat_k_ci_high
            assert rate.pass_at_k == pytest.approx(population.mean(pass_at_k, rate.k))
    table = TABLES.get("pass_k").build(context)
    assert table is not None
    [line] = table.display
    assert line[2] == str(population.scenarios) and line[3] == f"3 (k ≤ {population.max_k})"
    notes = " ".join(table.footnotes)
    assert f"k stops at {population.max_k}" in notes and next(iter(population.short)) in notes
    cell = context.cell("sim_sloppy", "stubjudge")
    assert cell.scored == population.scored and cell.passed == population.passes
    if abs(rates[0].pass_hat_k - cell.pass_rate) > 5e-4:  # uneven scored trials: the two weights are named
        assert "weighs each of the" in notes and f"({cell.passed}/{cell.scored})" in notes
    markdown = Path(written["markdown"]).read_text()
    assert "Scenarios" in markdown and "k stops at" in markdown


def test_the_job_log_names_the_population_and_the_cap(uneven: Path) -> None:
    text = (uneven.parent / "job.log").read_text()
    line = next(line for line in text.splitlines() if line.startswith("trials: 3 per scenario"))
    assert "over 14 scenario(s) with a scored trial" in line and "k stops at" in line
    assert "pass^3" not in line  # no estimate above the cap, not even as n/a
