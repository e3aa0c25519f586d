"""Every reader says what it skipped (issue 42, item 5): a job whose rows disagree with its own summary.json (an emptied
results.jsonl whose summary says 4) is damaged input, exit 4, in report, rescore, diff and compare; compare says why
nothing could be compared ("share no judge"), warns when the benchmark differs between the runs, and names the jobs it
left out. (The viewer: tests/view/test_viewer.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.cli import main as cli_main
from skillbench.engine.results import ResultRow
from skillbench.report.compare import compare_markdown, compare_runs
from skillbench.report.jobs import load_jobs
from tests.report.conftest import RowHook, write_sweep


@pytest.fixture
def emptied(tmp_path: Path) -> tuple[Path, Path]:
    """Two 2 × 1 sweeps; in the second, sim_sloppy's results.jsonl is emptied (its summary still says 4 scenarios)."""
    whole = write_sweep(tmp_path, agents=["sim_careful", "sim_sloppy"], judges=["sim_balanced"], scenarios=4, stamp="a")
    cut = write_sweep(tmp_path, agents=["sim_careful", "sim_sloppy"], judges=["sim_balanced"], scenarios=4, stamp="b")
    (cut / "1_sim_sloppy_sim_balanced" / "results.jsonl").write_text("")
    return whole, cut


def test_rows_that_disagree_with_their_summary_are_damaged_input(emptied: tuple[Path, Path], tmp_path: Path) -> None:
    whole, cut = emptied
    [job] = [job for job in load_jobs([cut]) if job.disagreements]
    assert job.disagreements[0] == f"{job.path}: results.jsonl has 0 rows but summary.json says 4 scenarios"
    assert not any(job.disagreements for job in load_jobs([whole]))


@pytest.mark.parametrize("command", ["report", "rescore", "diff", "compare"])
def test_every_reader_exits_4_on_an_emptied_results_file(emptied: tuple[Path, Path], tmp_path: Path, command: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    whole, cut = emptied
    args = {
        "report": ["report", str(cut), "--out", str(tmp_path / "r"), "--formats", "md", "--quiet"],
        "rescore": ["rescore", str(cut), "pass_rule=strict", "--out", str(tmp_path / "s"), "--formats", "md", "--quiet"],
        "diff": ["diff", str(whole), str(cut)],
        "compare": ["compare", str(whole), str(cut)],
    }[command]
    assert cli_main(args) == 4
    err = capsys.readouterr().err
    assert f"damaged input: {cut / '1_sim_sloppy_sim_balanced'}: results.jsonl has 0 rows but summary.json says 4" in err
    assert "rows disagree with their summary.json" in err and "(exit 4)" in err


def test_compare_says_no_common_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    careful = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=4, stamp="c")
    sloppy = write_sweep(tmp_path, agents=["sim_sloppy"], judges=["sim_strict"], scenarios=4, stamp="s")
    assert cli_main(["compare", str(careful), str(sloppy)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "nothing to compare: sim_careful and sim_sloppy share no judge (sim_careful: sim_balanced; sim_sloppy: " \
           "sim_strict)" in line and "Fix:" in line


def test_compare_warns_on_differing_benchmark_versions(tmp_path: Path) -> None:
    def version(tag: str) -> RowHook:
        return lambda agent, judge, scenario, row: row.model_copy(update={"benchmark_version": tag})

    a = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced"], scenarios=4, stamp="a", hook=version("v1"))
    b = write_sweep(tmp_path, agents=["sim_sloppy"], judges=["sim_balanced"], scenarios=4, stamp="b", hook=version("v2"))
    same = write_sweep(tmp_path, agents=["sim_sloppy"], judges=["sim_balanced"], scenarios=4, stamp="c",
                       hook=version("v1"))
    assert compare_runs([a, same])[0].warnings == []
    comparison, _ = compare_runs([a, b])
    [warning] = comparison.warnings
    assert warning.startswith("benchmark 'starter' differs between the compared runs (sim_careful: v1; sim_sloppy: v2)")
    assert f"**Warning**: {warning}" in compare_markdown(comparison)


def test_compare_names_the_jobs_it_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = write_sweep(tmp_path, agents=["sim_careful", "sim_sloppy", "sim_reckless"], judges=["sim_balanced"],
                        scenarios=4)
    unfinished = sweep / "2_sim_reckless_sim_balanced"
    (unfinished / "summary.json").unlink()
    comparison, _ = compare_runs([sweep])
    assert comparison.agents == ["sim_careful", "sim_sloppy"]
    assert comparison.warnings == [f"left out: {unfinished} did not finish (4 whole row(s) kept): left out until it "
                                   "finishes"]
    (sweep / "1_sim_sloppy_sim_balanced" / "summary.json").unlink()  # one agent is left: the refusal says why
    assert cli_main(["compare", str(sweep)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "only one agent (sim_careful)" in line
    assert f"left out: {sweep / '1_sim_sloppy_sim_balanced'} did not finish" in line


def test_a_panel_over_members_with_different_rows_agrees_with_its_own_summary(tmp_path: Path) -> None:
    """A panel's rows are the union of its members' (scenario, trial): its summary counts them, so reading a rescore's
    output back is not damaged input."""
    def drop_one(agent: str, judge: str, scenario: str, row: ResultRow) -> ResultRow | None:
        return None if judge == "sim_balanced" and scenario.endswith("_000") else row

    sweep = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced", "sim_strict"], scenarios=4,
                        hook=drop_one)
    out = tmp_path / "rescored"
    assert cli_main(["rescore", str(sweep), "pass_rule.panel=majority", "--out", str(out), "--formats", "md",
                     "--quiet"]) == 0
    [panel] = [job for job in load_jobs([out]) if job.judge == "panel_majority"]
    assert len(panel.rows) == 4 and panel.summary is not None and panel.summary.scenarios == 4
    assert not panel.disagreements
