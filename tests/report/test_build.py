"""Report tables on synthetic sweeps: agreement with summary.json, errors, missing cells, statistics."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from skillbench.engine.results import SUMMARY_FILE, JobSummary, ResultRow
from skillbench.report import build_report, diff_runs, load_jobs, load_results
from skillbench.report.frame import COLUMNS, jobs_frame
from tests.support.nonempty import nonempty

from .conftest import (
    AGENT_SKILL,
    JUDGE_BIAS,
    make_row,
    preset,
    run_config,
    write_job,
    write_rollouts,
    write_sweep,
)


@pytest.fixture(scope="module")
def built(grid: Path):
    jobs = load_jobs([grid])
    report, frame = build_report(jobs, draws=500)
    return jobs, report, frame


def test_load_results_has_one_row_per_scenario_agent_judge(grid: Path) -> None:
    frame = load_results(grid)
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) == 3 * 3 * 24
    assert not frame.duplicated(["agent", "judge", "scenario_id"]).any()
    assert str(frame["passed"].dtype) == "boolean"
    errors = frame[frame["passed"].isna()]
    assert set(errors["status"]) == {"judge_error", "infra_error"}
    assert len(errors) == 1 + 3  # one judge error; one infra error under each of 3 judges


def test_table1_agrees_with_every_summary_json(built) -> None:
    jobs, report, _ = built
    for job in nonempty(jobs, "jobs"):
        summary = JobSummary.model_validate_json((job.path / SUMMARY_FILE).read_text())
        cell = report.cell(summary.agent, summary.judge)
        assert cell.pass_rate == pytest.approx(summary.pass_rate)
        assert (cell.scored, cell.passed, cell.judge_errors, cell.infra_errors) == (
            summary.scored,
            summary.passed,
            summary.judge_errors,
            summary.infra_errors,
        )
        row = next(r for r in report.table1 if r.agent == summary.agent)
        assert row.rule_pass_rate == pytest.approx(summary.rule_pass_rate)
    assert not [n for n in report.notes if "summary.json says" in n]


def test_table1_means_order_and_errors_not_counted_as_failures(built) -> None:
    _, report, frame = built
    for row in nonempty(report.table1, "Table 1 rows"):
        rates = [r for r in row.pass_rates.values() if r is not None]
        assert row.mean_pass_rate == pytest.approx(np.mean(rates))
        assert row.mean_ci_low <= row.mean_pass_rate <= row.mean_ci_high
    means = [r.mean_pass_rate for r in report.table1]
    assert means == sorted(means, reverse=True)
    assert [r.agent for r in report.table1] == sorted(AGENT_SKILL, key=AGENT_SKILL.get, reverse=True)
    cell = report.cell("sim_sloppy", "sim_strict")
    assert (cell.scenarios, cell.scored, cell.judge_errors) == (24, 23, 1)
    sub = frame[(frame.agent == "sim_sloppy") & (frame.judge == "sim_strict")]
    assert cell.passed == int(sub["passed"].sum())
    assert any("judge error" in note for note in report.notes)
    assert report.counts["judge_errors"] == 1 and report.counts["infra_errors"] == 3


def test_table2_averages_judges(built) -> None:
    _, report, frame = built
    row = next(r for r in report.table2 if r.agent == "sim_careful")
    per_judge = [
        frame[(frame.agent == "sim_careful") & (frame.judge == j)]["workflow_adherence"]
        .dropna()
        .astype(float)
        .mean()
        for j in JUDGE_BIAS
    ]
    assert row.means["workflow_adherence"] == pytest.approx(np.mean(per_judge))
    assert set(row.per_judge) == set(JUDGE_BIAS)


def test_table3_matches_sklearn_on_shared_transcripts(built) -> None:
    _, report, frame = built
    for pair in nonempty(report.table3, "Table 3 pairs"):
        a = frame[(frame.judge == pair.judge_a) & frame.passed.notna()].set_index(["agent", "scenario_id"])[
            "passed"
        ]
        b = frame[(frame.judge == pair.judge_b) & frame.passed.notna()].set_index(["agent", "scenario_id"])[
            "passed"
        ]
        shared = a.index.intersection(b.index)
        assert pair.n == len(shared)
        assert pair.kappa == pytest.approx(cohen_kappa_score(list(a[shared]), list(b[shared])))
        assert pair.agreement == pytest.approx(float((a[shared] == b[shared]).mean()))
    assert report.panel.mean_kappa == pytest.approx(np.mean([p.kappa for p in report.table3]))
    # 72 transcripts: the infra-error one has no verdict at all, the judge-error one only two of three.
    assert report.panel.fleiss_items == 72 - 2
    assert report.panel.alpha_items == 72 - 1
    assert -1 <= report.panel.fleiss_kappa <= 1 and -1 <= report.panel.krippendorff_alpha <= 1


def test_strictness_and_ranking(built) -> None:
    _, report, _ = built
    by_judge = {s.judge: s for s in report.strictness_judges}
    assert by_judge["sim_strict"].strictest_for == 3
    assert by_judge["sim_lenient"].most_lenient_for == 3
    assert by_judge["sim_strict"].mean_offset_points < 0 < by_judge["sim_lenient"].mean_offset_points
    careful = next(s for s in report.strictness_models if s.agent == "sim_careful")
    rates = report.table1[0].pass_rates
    assert careful.spread_points == pytest.approx((max(rates.values()) - min(rates.values())) * 100)
    assert report.ranking.same_top_under_every_judge is True
    assert report.ranking.top_by_mean == ["sim_careful"]
    assert all(p.tau is None or -1 <= p.tau <= 1 for p in nonempty(report.ranking.pairs, "judge pairs"))
    assert len(report.adjacent) == 2


def test_bootstrap_is_seeded_and_shares_get_exact_intervals(grid: Path) -> None:
    jobs = load_jobs([grid])
    first, _ = build_report(jobs, draws=300, seed=7)
    second, _ = build_report(jobs, draws=300, seed=7)
    other, _ = build_report(jobs, draws=300, seed=8)
    # differences are bootstrapped (paired draws): seeded
    assert [d.ci_low for d in first.adjacent] == [d.ci_low for d in second.adjacent]
    assert [d.ci_low for d in first.adjacent] != [d.ci_low for d in other.adjacent]
    # a pass rate is a share: its exact interval needs no draws, so no seed moves it
    assert [c.ci_low for c in first.cells] == [c.ci_low for c in other.cells]
    for cell in nonempty(first.cells, "cells"):
        assert cell.ci_low <= cell.pass_rate <= cell.ci_high
        assert cell.ci_low < cell.ci_high  # never a point, 0 % and 100 % included


def test_missing_and_unfinished_cells_are_shown_not_dropped(tmp_path: Path) -> None:
    sweep = write_sweep(tmp_path, scenarios=6)
    shutil.rmtree(sweep / "8_sim_reckless_sim_strict")  # never ran
    (sweep / "3_sim_sloppy_sim_lenient" / SUMMARY_FILE).unlink()  # crashed: no summary.json
    with (sweep / "3_sim_sloppy_sim_lenient" / "skillbench.log").open("a") as log:
        log.write("[2026-01-01 00:00:05][skillbench.engine][ERROR] job failed: endpoint unreachable\n")
    report, frame = build_report(load_jobs([sweep]), draws=100)
    missing = report.cell("sim_reckless", "sim_strict")
    unfinished = report.cell("sim_sloppy", "sim_lenient")
    assert missing.status == "missing" and missing.pass_rate is None
    assert unfinished.status == "unfinished" and unfinished.pass_rate is None
    assert "endpoint unreachable" in (unfinished.note or "")
    assert ((frame.agent == "sim_sloppy") & (frame.judge == "sim_lenient")).sum() == 0
    row = next(r for r in report.table1 if r.agent == "sim_sloppy")
    assert row.judges_in_mean == 2
    assert report.counts["cells_missing"] == 1 and report.counts["jobs_unfinished"] == 1
    assert any(n.startswith("missing cell sim_reckless × sim_strict") for n in report.notes)
    assert any(n.startswith("unfinished cell sim_sloppy × sim_lenient") for n in report.notes)
    # The API can still read the partial rows on request.
    assert len(load_results(sweep, unfinished=True)) == len(frame) + 6


def test_several_sweeps_and_duplicates(tmp_path: Path) -> None:
    first = write_sweep(tmp_path, agents=["sim_careful"], scenarios=5, stamp="a")
    second = write_sweep(
        tmp_path, agents=["sim_careful", "sim_sloppy"], judges=["sim_balanced"], scenarios=5, stamp="b"
    )
    report, frame = build_report(load_jobs([first, second]), draws=50)
    assert len(frame) == 3 * 5 + 5  # the repeated cell counts once
    assert report.counts["duplicates_dropped"] == 5
    assert report.cell("sim_sloppy", "sim_lenient").status == "missing"
    # A folder of sweeps works too.
    assert len(load_jobs([tmp_path])) == 3 + 2


def test_a_scenario_in_two_jobs_of_one_cell_keeps_the_newer_jobs_row(tmp_path: Path) -> None:
    """A re-run next to an earlier run of the same cell: each scenario counts once, from the job that
    finished last, whichever order the folders are found in."""
    store = tmp_path / "store"
    config = run_config("sim_careful", "sim_balanced", store, preset("paper"))
    scenarios = [f"happy_path_{i:03d}" for i in range(4)]
    write_rollouts(store, "sim_careful", scenarios)

    def rows(passed: bool, names: list[str]) -> list[ResultRow]:
        made = [make_row("sim_careful", "sim_balanced", n, rule=preset("paper"), scores=None) for n in names]
        return [row.model_copy(update={"passed": passed}) for row in made]

    newer = write_job(tmp_path / "a_newer", config, rows(True, scenarios[:3]), finished_at="2026-01-02T00:00:00+00:00")
    older = write_job(tmp_path / "b_older", config, rows(False, scenarios), finished_at="2026-01-01T00:00:00+00:00")
    for order in ([newer, older], [older, newer]):
        frame = jobs_frame(load_jobs(order))
        assert frame["scenario_id"].tolist() == scenarios  # sorted, each once
        assert frame["job"].tolist() == [str(newer)] * 3 + [str(older)]
        assert frame["passed"].tolist() == [True, True, True, False]


def test_a_judge_explanation_holding_unicode_line_separators_reads_back_whole(tmp_path: Path) -> None:
    """JSON writes U+2028, U+2029 and U+0085 raw; a reader splitting lines at them would call the job unreadable."""
    explanation = "Verified the caller.\u2028Then changed the booking.\u2029Confirmed\x85done."

    def hook(agent: str, judge: str, scenario: str, row: ResultRow) -> ResultRow:
        return row.model_copy(update={"scores": row.scores.model_copy(update={"explanation": explanation})})

    sweep = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=3, hook=hook)
    (job,) = load_jobs([sweep])
    assert job.status == "finished" and job.problems == []
    assert [row.scores.explanation for row in job.rows] == [explanation] * 3


def test_differing_settings_get_separate_labels(tmp_path: Path) -> None:
    paper = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=5, stamp="p")
    strict = write_sweep(
        tmp_path,
        agents=["sim_careful"],
        judges=["sim_balanced"],
        scenarios=5,
        stamp="s",
        rule=preset("strict"),
    )
    report, frame = build_report(load_jobs([paper, strict]), draws=50)
    assert sorted(report.agents) == ["sim_careful · pass_rule=paper", "sim_careful · pass_rule=strict"]
    assert report.counts["duplicates_dropped"] == 0 and len(frame) == 10
    # Same-named rule with one field changed: the field shows in the label.
    tweaked = preset("paper").model_copy(update={"min_guardrail_compliance": 5})
    other = write_sweep(
        tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=5, stamp="t", rule=tweaked
    )
    report, _ = build_report(load_jobs([paper, other]), draws=50)
    assert "sim_careful · pass_rule=paper(min_guardrail_compliance=5)" in report.agents


def test_an_agent_program_is_labelled_by_what_differs_not_by_settings_both_hold(tmp_path: Path) -> None:
    """A plain agent and the same agent run as a program both hold ``models: {}``: the labels and `diff` name the program and its
    source hash, never ``models`` (a plain agent's identity leaves the program fields out; its config holds them)."""
    plain = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=3, stamp="p")
    programmed = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=3, stamp="q")
    [job] = [folder for folder in programmed.iterdir() if folder.is_dir()]
    config = json.loads((job / "config.json").read_text())
    assert config["agent"]["models"] == {}
    config["agent"].update(program={"_target_": "myagents.NoRepeatRefused"}, program_source="sha256:6936")
    (job / "config.json").write_text(json.dumps(config))
    report, _ = build_report(load_jobs([plain, programmed]), draws=20)
    assert sorted(report.agents) == [
        "sim_careful(program=null,program_source=null)",
        'sim_careful(program={"_target_": "myagents.NoRepeatRefused"},program_source="sha256:6936")',
    ]
    [agent] = [change for change in diff_runs(plain, programmed).config_changes if change.group == "agent"]
    assert sorted(agent.fields) == ["sim_careful.program", "sim_careful.program_source"]  # `diff` says the same


def test_single_judge_and_zero_variance_judges(tmp_path: Path) -> None:
    def everyone_passes(agent, judge, scenario, row):
        return row.model_copy(update={"passed": True, "fail_reasons": []})

    sweep = write_sweep(tmp_path, agents=["sim_careful"], scenarios=4, hook=everyone_passes)
    report, _ = build_report(load_jobs([sweep]), draws=50)
    assert all(
        p.kappa is None and p.agreement == 1.0 and "undefined" in (p.note or "") for p in nonempty(report.table3, "pairs")
    )
    assert report.panel.mean_kappa is None and report.panel.fleiss_kappa is None
    one = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=4, stamp="one")
    report, _ = build_report(load_jobs([one]), draws=50)
    assert report.table3 == [] and report.panel.fleiss_kappa is None
    assert report.ranking.same_top_under_every_judge is None


def test_engine_job_error_and_damaged_files(tmp_path: Path) -> None:
    sweep = write_sweep(
        tmp_path, agents=["sim_careful", "sim_sloppy"], judges=["sim_balanced", "sim_strict"], scenarios=4
    )
    # The engine caught an exception: job_error.json, no summary.json.
    failed = sweep / "1_sim_careful_sim_strict"
    (failed / SUMMARY_FILE).unlink()
    (failed / "job_error.json").write_text(
        '{"error": "judge endpoint refused", "type": "InfrastructureError"}'
    )
    # A crash before config.json and results.jsonl: only Hydra's files remain.
    crashed = sweep / "2_sim_sloppy_sim_balanced"
    for name in ("config.json", "results.jsonl", SUMMARY_FILE):
        (crashed / name).unlink()
    # A finished job with a corrupt row is unreadable, not silently partial.
    damaged = sweep / "3_sim_sloppy_sim_strict"
    with (damaged / "results.jsonl").open("a") as handle:
        handle.write('{"scenario_id": "cut sho\n')
    report, _ = build_report(load_jobs([sweep]), draws=20)
    assert report.cell("sim_careful", "sim_strict").note.endswith(
        "InfrastructureError: judge endpoint refused"
    )
    assert report.cell("sim_sloppy", "sim_balanced").status == "unfinished"
    assert report.cell("sim_sloppy", "sim_strict").status == "ok"
    assert report.cell("sim_sloppy", "sim_strict").scenarios == 4
    assert report.counts["lines_damaged"] == 1
    assert any("results.jsonl:5: not a result row, skipped" in n for n in report.notes)
    assert report.cell("sim_careful", "sim_balanced").status == "ok"


def test_loaded_rows_share_their_fields_set_invisibly(grid: Path) -> None:
    """Loaded rows share pydantic's fields-set (memory at scale); equal to freshly parsed rows, and a
    copy with an update leaves the other rows' set alone."""
    from skillbench.engine.results import RESULTS_FILE, ResultRow

    job = load_jobs([grid])[0]
    fresh = [ResultRow.model_validate_json(line) for line in (job.path / RESULTS_FILE).read_text().splitlines()]
    assert job.rows == fresh
    first, second = job.rows[0], job.rows[1]
    assert first.model_fields_set is second.model_fields_set
    assert first.model_fields_set == fresh[0].model_fields_set
    before = set(second.model_fields_set)
    changed = first.model_copy(update={"passed": None})
    assert changed.passed is None and first.passed is not None
    assert second.model_fields_set == before
    assert json.loads(first.model_dump_json()) == json.loads(fresh[0].model_dump_json())
