"""`skillbench rescore` (another pass rule, no model calls) and `skillbench diff` (what changed and why)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from scipy import stats as scipy_stats

from skillbench.cli import main as skillbench_main
from skillbench.config.schema import PassRuleConfig
from skillbench.core.rubric import JudgeScores
from skillbench.report import ReportError, diff_runs, load_jobs
from skillbench.report.diff import diff_markdown
from skillbench.report.model import Report
from skillbench.report.rescore import compose_overrides, resolve_rules
from tests.support.nonempty import nonempty

from .conftest import preset, write_sweep


@pytest.fixture
def sweep(grid: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "sweep"
    shutil.copytree(grid, copy)
    return copy


def _rescore(sweep: Path, *overrides: str) -> tuple[Report, Path]:
    out = sweep.parent / ("rescored_" + "_".join(o.replace("=", "-") for o in overrides))
    code = skillbench_main(
        [
            "rescore",
            str(sweep),
            *overrides,
            "--out",
            str(out),
            "--formats",
            "json",
            "--draws",
            "50",
            "--quiet",
        ]
    )
    assert code == 0
    return Report.model_validate_json((out / "report.json").read_text()), out


def test_stricter_rule_never_raises_a_pass_rate(sweep: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = load_jobs([sweep])
    report, out = _rescore(sweep, "pass_rule=strict")
    assert "No model calls" in capsys.readouterr().out
    assert report.rescore is not None and report.rescore["model_calls"] == 0
    assert report.pass_rules == ["strict"]
    lowered = 0
    for job in original:
        before = job.summary.pass_rate
        after = report.cell(job.agent, job.judge).pass_rate
        assert after <= before + 1e-12
        lowered += after < before
    assert lowered > 0
    for change in nonempty(report.rescore["changes"], "rescorechanges"):
        assert change["fail_to_pass"] == 0
    # The rescored copies are ordinary job folders: they can be reported on and diffed.
    assert len(load_jobs([out])) == len(original)
    assert all((job.path / "summary.json").exists() for job in load_jobs([out]))


def test_rescore_with_the_stored_rule_is_the_identity(sweep: Path) -> None:
    report, out = _rescore(sweep, "pass_rule=paper")
    for change in nonempty(report.rescore["changes"], "rescorechanges"):
        assert change["pass_rate_before"] == change["pass_rate_after"]
        assert change["pass_to_fail"] == change["fail_to_pass"] == 0
    assert diff_runs(sweep, out).flips == []


def test_dotted_override_changes_each_jobs_own_rule(tmp_path: Path) -> None:
    strict = write_sweep(
        tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=4, rule=preset("strict")
    )
    rules = resolve_rules(load_jobs([strict]), ["pass_rule.min_workflow_adherence=5"])
    (rule,) = rules.values()
    assert rule.min_workflow_adherence == 5
    assert rule.min_tool_use_correctness == 4 and rule.min_guardrail_compliance == 5  # still strict otherwise
    assert rule.name == "strict+min_workflow_adherence=5"
    # A preset replaces the stored rule; dotted overrides then apply on top of the preset, and label it (issue 30).
    rules = resolve_rules(load_jobs([strict]), ["pass_rule=lenient", "pass_rule.min_workflow_adherence=5"])
    (rule,) = rules.values()
    assert rule.name == "lenient+min_workflow_adherence=5" and rule.min_workflow_adherence == 5 and rule.min_guardrail_compliance == 3


def test_compose_uses_the_packaged_presets() -> None:
    composed = PassRuleConfig.model_validate(compose_overrides(["pass_rule=strict"]))  # `expected` expanded
    assert composed.model_dump(mode="json") == preset("strict").model_dump(mode="json")
    assert compose_overrides([])["name"] == "paper"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["pass_rule.min_guardrail=5"], "pass_rule.min_guardrail"),
        (["pass_rule=nope"], "pass_rule/nope"),
        (["agent=gpt5"], "rescore changes only the pass rule"),
        (["pass_rule.min_guardrail_compliance=7"], "pass_rule.min_guardrail_compliance"),
        ([], "no pass-rule override"),
    ],
)
def test_bad_overrides_name_the_key(grid: Path, overrides: list[str], message: str) -> None:
    with pytest.raises(ReportError, match=message.replace(".", r"\.")):
        resolve_rules(load_jobs([grid]), overrides)


def test_rescore_cli_error_is_one_line(grid: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert skillbench_main(["rescore", str(grid), "pass_rule.min_guardrail=5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("skillbench rescore: error:") and "Traceback" not in err


def test_diff_of_a_run_with_itself_shows_no_change(
    grid: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    diff = diff_runs(grid, grid)
    assert diff.identical and not diff.config_changes and not diff.flips and not diff.availability
    assert all(c.delta == 0 and c.mcnemar_p == 1.0 for c in nonempty(diff.cells, "cells"))
    target = tmp_path / "d.json"
    assert skillbench_main(["diff", str(grid), str(grid), "--json", str(target), "--exit-code"]) == 0
    assert "No changes" in capsys.readouterr().out
    assert json.loads(target.read_text())["identical"] is True


def test_diff_against_another_pass_rule_explains_every_flip(
    sweep: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = _rescore(sweep, "pass_rule=strict")
    capsys.readouterr()
    diff = diff_runs(sweep, out)
    assert not diff.identical
    (change,) = diff.config_changes
    assert change.group == "pass_rule" and change.a == ["paper"] and change.b == ["strict"]
    assert change.fields["paper→strict.min_guardrail_compliance"] == {"a": 4, "b": 5}
    assert diff.flips
    for flip in diff.flips:
        assert flip.a is True and flip.b is False
        assert any(w.startswith("B fails on:") for w in flip.why)
        assert "pass rule: paper → strict" in flip.why
    for cell in nonempty(diff.cells, "cells"):
        assert cell.a_fail_b_pass == 0
        assert cell.mcnemar_p == pytest.approx(
            scipy_stats.binomtest(cell.a_pass_b_fail, cell.a_pass_b_fail, 0.5).pvalue
            if cell.a_pass_b_fail
            else 1.0
        )
    assert sum(c.a_pass_b_fail for c in diff.cells) == len(diff.flips)
    assert skillbench_main(["diff", str(sweep), str(out), "--json", str(out / "d.json"), "--exit-code"]) == 1
    assert "Flipped verdicts" in capsys.readouterr().out


def test_diff_explains_changed_scores_checks_and_transcripts(tmp_path: Path) -> None:
    a = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=12, stamp="a")
    changed: dict[str, str] = {}

    def hook(agent, judge, scenario, row):
        if row.passed and not changed:
            changed[scenario] = "scores"
            scores = JudgeScores.model_validate({**row.scores.model_dump(), "workflow_adherence": 2})
            return row.model_copy(
                update={"scores": scores, "passed": False, "fail_reasons": ["workflow_adherence=2 < 4"]}
            )
        if row.passed is False and len(changed) == 1:
            changed[scenario] = "judge error"
            return row.model_copy(
                update={"scores": None, "passed": None, "judge_error": "timeout", "fail_reasons": []}
            )
        return row

    b = write_sweep(
        tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=12, stamp="b", hook=hook
    )
    diff = diff_runs(a, b)
    (flip,) = diff.flips
    assert "workflow_adherence: " in " ".join(flip.why) and "→ 2" in " ".join(flip.why)
    (lost,) = diff.availability
    assert lost.b is None and any("judge error: none → timeout" in w for w in lost.why)
    assert diff.cells[0].verdicts_lost == 1
    c = write_sweep(
        tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=12, stamp="c", seed=1
    )
    diff = diff_runs(a, c)
    assert {ch.group for ch in diff.config_changes} == {"run"}
    assert all(any(w.startswith("different transcript") for w in f.why) for f in nonempty(diff.flips, "flips"))


def test_diff_lists_cells_present_on_one_side(tmp_path: Path) -> None:
    a = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=4, stamp="a")
    b = write_sweep(
        tmp_path, agents=["sim_careful", "sim_sloppy"], judges=["sim_balanced"], scenarios=4, stamp="b"
    )
    diff = diff_runs(a, b)
    presence = {(c.agent, c.presence) for c in diff.cells}
    assert presence == {("sim_careful", "both"), ("sim_sloppy", "only_b")}
    assert diff.config_changes[0].group == "agent" and diff.config_changes[0].b == [
        "sim_careful",
        "sim_sloppy",
    ]
    assert not diff.identical


def test_diff_warns_when_the_runs_used_different_benchmark_versions(tmp_path: Path) -> None:
    def version(tag: str):
        return lambda agent, judge, scenario, row: row.model_copy(update={"benchmark_version": tag})

    a = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=4, stamp="a", hook=version("v1"))
    same = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=4, stamp="s", hook=version("v1"))
    other = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=4, stamp="o", hook=version("v2"))
    assert diff_runs(a, same).warnings == []
    diff = diff_runs(a, other)
    (warning,) = diff.warnings
    assert "A: v1" in warning and "B: v2" in warning
    assert f"**Warning**: {warning}" in diff_markdown(diff)
