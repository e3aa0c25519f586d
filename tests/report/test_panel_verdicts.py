"""Panel verdicts: a vote of judges (majority, unanimous) or of one judge's samples, as a rescore (no model call)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.cli import main as cli_main
from skillbench.core.rubric import JudgeScores
from skillbench.engine import run_job
from skillbench.evaluation.pass_rule import apply_pass_rule, decide
from skillbench.report import load_jobs, load_results
from skillbench.report.callback import ReportCallback
from skillbench.report.compare import compare_runs
from skillbench.report.panel_verdicts import panel_row
from skillbench.report.transcripts import TranscriptFinder
from tests.conftest import compose_config

JUDGES = ("sim_balanced", "sim_lenient", "sim_strict")


@pytest.fixture(scope="module")
def grid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sim_sloppy and sim_reckless × three judges (3 samples each) on 6 smoke scenarios."""
    root = tmp_path_factory.mktemp("panel")
    sweep = root / "sweep"
    for i, (agent, judge) in enumerate([(a, j) for a in ("sim_sloppy", "sim_reckless") for j in JUDGES]):
        cfg = compose_config(
            f"agent={agent}", f"judge={judge}", "judge.samples=3", "benchmark=smoke", "benchmark.limit=6",
            f"store.root={root / 'store'}",
        )
        run_job(cfg, sweep / f"{i}_{agent}_{judge}")
    return sweep


def _scores(outcome: str, adherence: int = 5) -> JudgeScores:
    return JudgeScores(
        task_completion=outcome, workflow_adherence=adherence, tool_use_correctness=5, guardrail_compliance=5,
        communication_quality=5, resolution_efficiency=5, hallucinated_action=False, explanation="x",
    )


def test_sample_votes_decide_each_sample(grid: Path) -> None:
    rule = compose_config().pass_rule
    samples = [_scores("success"), _scores("success"), _scores("failure")]
    majority = rule.model_copy(update={"sample_vote": "majority"})
    unanimous = rule.model_copy(update={"sample_vote": "unanimous"})
    assert decide([], _scores("success"), samples, majority).passed is True
    refused = decide([], _scores("success"), samples, unanimous)
    assert refused.passed is False and refused.reasons[0] == "1 of 3 judge samples fail (unanimous vote)"
    assert decide([], _scores("success"), samples, rule) == apply_pass_rule([], _scores("success"), rule)


def test_panel_row_votes(grid: Path) -> None:
    row = load_jobs([grid])[0].rows[0]
    yes, no, none = (row.model_copy(update={"passed": v}) for v in (True, False, None))
    assert panel_row({"a": yes, "b": yes, "c": no}, "majority", "panel_majority", "r").passed is True
    assert panel_row({"a": yes, "b": no}, "majority", "panel_majority", "r").passed is False  # a tie fails
    assert panel_row({"a": yes, "b": none, "c": no}, "majority", "p", "r").passed is False
    assert panel_row({"a": yes, "b": none}, "majority", "p", "r").passed is True
    unanimous = panel_row({"a": yes, "b": none}, "unanimous", "p", "r")
    assert unanimous.passed is None and unanimous.judge_error == "panel: no verdict from b"
    failed = panel_row({"a": yes, "b": no, "c": no}, "unanimous", "p", "r")
    assert failed.passed is False and failed.fail_reasons == ["b fails", "c fails"] and failed.usage == {}


@pytest.mark.parametrize("how", ["majority", "unanimous"])
def test_rescore_adds_a_panel_column_with_its_agreement(grid: Path, tmp_path: Path, how: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rescored"
    assert cli_main(["rescore", str(grid), f"pass_rule.panel={how}", "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "No model calls" in printed and f"panel_{how}" in printed
    frame = load_results(out)
    panel = frame[frame["judge"] == f"panel_{how}"]
    assert len(panel) == 2 * 6
    members = frame[frame["judge"] != f"panel_{how}"]
    for (agent, scenario), group in members.groupby(["agent", "scenario_id"]):
        votes = group["passed"].astype(bool).tolist()
        expected = sum(votes) * 2 > len(votes) if how == "majority" else all(votes)
        (verdict,) = panel[(panel["agent"] == agent) & (panel["scenario_id"] == scenario)]["passed"].tolist()
        assert verdict == expected
    report = json.loads((out / "report.json").read_text())
    row = next(r for r in report["table1"] if r["agent"] == "sim_sloppy")
    assert f"panel_{how}" in row["pass_rates"] and row["judges_in_mean"] == 3  # the panel is not in the mean
    assert {p["judge_a"] for p in report["table3"]} | {p["judge_b"] for p in report["table3"]} == set(JUDGES)
    agreement = (out / "panel_agreement.csv").read_text().splitlines()
    assert len(agreement) == 1 + 3 * 3  # header + 3 members × (2 agents + all)
    comparison, _ = compare_runs([out], draws=100)
    assert comparison.ranking and all(f"panel_{how}:" in v.line for v in comparison.verdicts)


def test_rescore_with_sample_votes_reads_the_stored_samples(grid: Path, tmp_path: Path) -> None:
    out = tmp_path / "unanimous_samples"
    assert cli_main(["rescore", str(grid), "pass_rule.sample_vote=unanimous", "--out", str(out), "--quiet"]) == 0
    before = {(r.agent, r.judge, r.scenario_id): r for job in load_jobs([grid]) for r in job.rows}
    finder = TranscriptFinder(load_jobs([grid]))
    changed = 0
    for job in load_jobs([out]):
        for row in job.rows:
            old = before[(row.agent, row.judge, row.scenario_id)]
            verdict = next(j for j in load_jobs([grid]) if j.agent == row.agent and j.judge == row.judge)
            samples = finder.load_verdict(verdict.path, old.verdict_key).samples
            rule = compose_config().pass_rule
            expected = all(apply_pass_rule(old.rule_checks, s, rule).passed for s in samples)
            assert row.passed is expected
            changed += row.passed != old.passed
            assert not (old.passed is False and row.passed is True)  # unanimous never passes more
    assert changed > 0  # the simulated judges' samples do disagree on some transcripts


def test_a_sweep_with_a_panel_rule_gets_its_panel_column(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    for i, judge in enumerate(JUDGES[:2]):
        cfg = compose_config(
            "agent=sim_sloppy", f"judge={judge}", "benchmark=smoke", "benchmark.limit=3", "pass_rule.panel=majority",
            f"store.root={tmp_path / 'store'}",
        )
        run_job(cfg, sweep / f"{i}_sim_sloppy_{judge}")
    ReportCallback(formats=["md", "csv"], draws=50)._build(sweep)
    assert (sweep / "0_panel_majority_sim_sloppy" / "summary.json").exists()
    assert "panel_majority" in (sweep / "report" / "report.md").read_text()
