"""Reports, rescore and diff over a real sweep with repeated trials (simulated models, smoke benchmark)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from skillbench.engine import run_job
from skillbench.engine.trials import mean_pass_at_k, mean_pass_hat_k, task_counts
from skillbench.report import diff_runs, load_results
from skillbench.report.build import ReportContext
from skillbench.report.cli import rescore_main
from skillbench.report.diff import diff_markdown
from skillbench.report.tables import TABLES
from skillbench.report.write import make_report
from tests.conftest import compose_config

AGENTS = ("sim_careful", "sim_reckless")


@pytest.fixture(scope="module")
def trial_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """<root>/sweep/<i>_<agent>_sim_balanced: 4 smoke scenarios × 3 trials per agent."""
    root = tmp_path_factory.mktemp("trials")
    for i, agent in enumerate(AGENTS):
        cfg = compose_config(
            f"agent={agent}", "judge=sim_balanced", "benchmark=smoke", "benchmark.limit=4", "run.trials=3",
            f"store.root={root / 'store'}",
        )
        run_job(cfg, root / "sweep" / f"{i}_{agent}_sim_balanced")
    return root / "sweep"


def test_frame_has_one_row_per_scenario_and_trial(trial_sweep: Path) -> None:
    frame = load_results(trial_sweep)
    assert len(frame) == 2 * 4 * 3
    assert sorted(frame["trial"].unique()) == [0, 1, 2]
    assert not frame.duplicated(["agent_label", "judge_label", "scenario_id", "trial"]).any()


def test_pass_k_table_matches_the_estimators_and_is_written_everywhere(trial_sweep: Path, tmp_path: Path) -> None:
    report, written = make_report([trial_sweep], tmp_path / "report", formats=["md", "csv", "json", "html"])
    context = ReportContext.of(report)
    table = TABLES.get("pass_k").build(context)
    assert table is not None
    frame = context.frame
    by_key = {(r[0], r[2]): dict(zip(table.data_headers, r, strict=True)) for r in table.data}  # (agent, k) → row
    for agent in AGENTS:
        rows = frame[frame["agent"] == agent]
        counts = task_counts(zip(rows["scenario_id"], [None if v is None or v != v else bool(v) for v in rows["passed"]], strict=True))
        for k in (1, 2, 3):
            row = by_key[(agent, k)]
            assert row["scenarios"] == 4 and row["trials"] == 3 and row["max_k"] == 3
            assert row["pass_hat_k"] == pytest.approx(mean_pass_hat_k(counts, k))
            assert row["pass_at_k"] == pytest.approx(mean_pass_at_k(counts, k))
            low, high = row["pass_hat_k_ci_low"], row["pass_hat_k_ci_high"]
            assert low is not None and high is not None and low <= row["pass_hat_k"] + 1e-9 <= high + 2e-9
    careful, reckless = by_key[("sim_careful", 3)]["pass_hat_k"], by_key[("sim_reckless", 3)]["pass_hat_k"]
    assert careful > reckless
    markdown = Path(written["markdown"]).read_text()
    assert "pass^3" in markdown and "pass@3" in markdown
    with (tmp_path / "report" / "pass_k.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == 2 * 3
    assert (tmp_path / "report" / "trial_consistency.csv").exists()
    html = Path(written["html"]).read_text()
    assert 'id="pass_k"' in html and "· trial 2" in html


def test_a_report_without_trials_has_no_trial_table(trial_sweep: Path, tmp_path: Path) -> None:
    cfg = compose_config("benchmark=smoke", "benchmark.limit=2", f"store.root={tmp_path / 'store'}")
    run_job(cfg, tmp_path / "single")
    report, _ = make_report([tmp_path / "single"], tmp_path / "report", formats=["json"])
    assert TABLES.get("pass_k").build(ReportContext.of(report)) is None


def test_rescore_keeps_trials_and_recomputes_pass_k(trial_sweep: Path, tmp_path: Path) -> None:
    out = tmp_path / "rescored"
    assert rescore_main([str(trial_sweep), "pass_rule=strict", "--out", str(out), "--quiet"]) == 0
    summaries = [json.loads(p.read_text()) for p in out.glob("**/summary.json")]
    assert len(summaries) == 2
    for summary in summaries:
        assert summary["trials"] == 3 and set(summary["pass_hat_k"]) == {"1", "2", "3"}
        assert summary["pass_hat_k"]["1"] == pytest.approx(summary["pass_rate"])
    frame = load_results(out)
    assert sorted(frame["trial"].unique()) == [0, 1, 2] and len(frame) == 24


def test_diff_pairs_two_agents_by_judge_scenario_and_trial(trial_sweep: Path) -> None:
    careful, reckless = sorted(trial_sweep.glob("0_*"))[0], sorted(trial_sweep.glob("1_*"))[0]
    diff = diff_runs(careful, reckless)
    (cell,) = diff.cells
    assert cell.presence == "both" and cell.agent == "sim_careful → sim_reckless"
    assert cell.shared == 12 and cell.mcnemar_p is not None
    assert any("skillbench compare" in w for w in diff.warnings)
    assert {flip.trial for flip in diff.flips} <= {0, 1, 2}
    assert "skillbench compare" in diff_markdown(diff)


def test_a_sweep_with_trials_logs_its_pass_k_table(trial_sweep: Path, tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    import logging
    import shutil

    from skillbench.report.callback import ReportCallback

    copy = tmp_path / "sweep"
    shutil.copytree(trial_sweep, copy)
    with caplog.at_level(logging.INFO, logger="skillbench.report"):
        ReportCallback(formats=["md"], draws=50)._build(copy)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "Table 1b" in logged and "SIMULATED" in logged
    assert all(f"pass^{k}" in logged for k in (1, 2, 3))
    careful = next(line for line in logged.splitlines() if line.startswith("| sim_careful"))
    reckless = next(line for line in logged.splitlines() if line.startswith("| sim_reckless"))
    assert logged.index(careful) < logged.index(reckless)  # Table 1 order: best first


def test_report_json_keeps_pass_k_so_a_read_back_report_shows_it(trial_sweep: Path, tmp_path: Path) -> None:
    import shutil

    from skillbench.report import build_report, load_jobs
    from skillbench.report.write import markdown

    copy = tmp_path / "sweep"
    shutil.copytree(trial_sweep, copy)
    report, _ = build_report(load_jobs([copy]), draws=50)
    assert {(r.agent, r.k) for r in report.trials} == {(a, k) for a in AGENTS for k in (1, 2, 3)}
    again = type(report).model_validate_json(report.model_dump_json())
    shutil.rmtree(copy)
    md = markdown(again)
    assert "## Table 1b" in md and "pass^3" in md


def test_breakdowns_compare_rows_with_rows_and_test_scenarios_once(trial_sweep: Path) -> None:
    """A group's Pass % and its Rest % count the same unit (every scored trial, as Table 1); the flag's test counts
    each scenario once (the decision audit's "42.9 vs 23.3" mixed the two)."""
    from skillbench.report import build_report, load_jobs

    report, frame = build_report(load_jobs([trial_sweep]), draws=50)
    scored = frame[frame["passed"].notna()]
    checked = 0
    for rate in report.breakdowns:
        if rate.breakdown != "path":
            continue
        cell = scored[(scored["agent_label"] == rate.agent) & (scored["judge_label"] == rate.judge)]
        group, rest = cell[cell["path"] == rate.group], cell[cell["path"] != rate.group]
        assert rate.n == len(group) and rate.pass_rate == pytest.approx(group["passed"].astype(bool).mean())
        assert rate.rest_n == len(rest)
        if len(rest):
            assert rate.rest_pass_rate == pytest.approx(rest["passed"].astype(bool).mean())
        assert rate.scenarios == group["scenario_id"].nunique() and rate.rest_scenarios == rest["scenario_id"].nunique()
        checked += 1
    assert checked
