"""Every name a user gives is checked before it is used (issue 42, item 4): a panel's members and size in a run, a
sweep and a rescore are refused with one line and exit 2, and nothing is written, not even a half folder. (Check
names: tests/config/test_mock_modes.py for runs and sweeps, tests/report/test_rescore_diff.py for rescore.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillbench.cli import main as cli_main
from skillbench.config.schema import RunConfig
from skillbench.core.errors import ConfigError
from skillbench.engine.names import panel_problems
from tests.conftest import compose_config
from tests.report.conftest import preset, write_sweep

REPO = Path(__file__).resolve().parents[2]


def _skillbench(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HYDRA_FULL_ERROR": "0", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run([sys.executable, "-m", "skillbench", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["pass_rule.panel=majority", "pass_rule.panel_judges=[sim_balanced]"],
         "a panel votes over two or more judges; this names 1"),
        (["pass_rule.panel=majority", "pass_rule.panel_judges=[sim_balanced,sim_balanced]"],
         "names judge 'sim_balanced' twice"),
        (["pass_rule.panel_judges=[sim_balanced,sim_strict]"], "pass_rule.panel is null, so no panel would be formed"),
    ],
)
def test_a_panel_list_that_cannot_be_meant_is_refused(overrides: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=r"at 'pass_rule\.panel_judges'") as refused:
        compose_config(*overrides)
    assert message in str(refused.value)


def test_panel_members_and_size_are_checked_against_the_jobs() -> None:
    def job(judge: str, *overrides: str) -> RunConfig:
        return compose_config("agent=sim_careful", f"judge={judge}", "pass_rule.panel=majority", *overrides)

    members = "pass_rule.panel_judges=[sim_balanced,sim_strict,nosuch]"
    [unknown] = panel_problems([job("sim_balanced", members), job("sim_strict", members)], sweep=True)
    assert unknown == ("config error at 'pass_rule.panel_judges': unknown judge 'nosuch' (judges of sim_careful in this "
                       "sweep: sim_balanced, sim_strict). Fix: name only judges of this sweep, or add judge 'nosuch' to it.")
    near = "pass_rule.panel_judges=[sim_balanced,sim_stric]"
    [typo] = panel_problems([job("sim_balanced", near), job("sim_strict", near)], sweep=True)
    assert typo.endswith("Fix: did you mean 'sim_strict'?")
    [alone] = panel_problems([job("sim_balanced")], sweep=False)
    assert "a majority panel votes over at least two judges of an agent; sim_careful has one in this run" in alone
    assert panel_problems([job("sim_balanced"), job("sim_strict")], sweep=True) == []
    assert panel_problems([compose_config("judge=sim_balanced")], sweep=False) == []  # no panel asked for


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["judge=sim_balanced,sim_strict", "pass_rule.panel=majority",
          "pass_rule.panel_judges=[sim_balanced,sim_strict,nosuch]", "-m"], "unknown judge 'nosuch'"),
        (["judge=sim_balanced", "pass_rule.panel=majority"], "sim_careful has one in this run (sim_balanced)"),
        (["judge=sim_balanced", "pass_rule.panel=majority", "run.preflight=false"], "sim_careful has one in this run"),
    ],
    ids=["sweep-unknown-member", "run-one-judge", "run-one-judge-no-preflight"],
)
def test_a_run_or_sweep_with_an_impossible_panel_exits_2_writing_nothing(tmp_path: Path, args: list[str],
                                                                          named: str) -> None:
    result = _skillbench(tmp_path, "agent=sim_careful", "benchmark=smoke", "benchmark.limit=1",
                         f"store.root={tmp_path / 'store'}", *args)
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("skillbench: config error") and named in line and "Fix:" in line
    # no file at all (without the preflight, Hydra's empty parents outputs/runs/ stay, as for every refused run)
    assert not [path for path in tmp_path.rglob("*") if path.is_file()]


def test_a_sweep_without_its_preflight_keeps_its_results_and_exits_2_when_its_report_refuses_a_name(
        tmp_path: Path) -> None:
    # Without the preflight no job knows the sweep's other judges, so the report at the sweep's end is the first to
    # see the unknown member. The jobs' results are kept; the sweep ends with the report's refusal and exit 2 (it
    # once ended 0, its report missing, with the refusal only in Hydra's log line above the summary).
    sweep = tmp_path / "sweep"
    result = _skillbench(tmp_path, "agent=sim_careful", "benchmark=smoke", "benchmark.limit=1", "run.preflight=false",
                         "judge=sim_balanced,sim_strict", "pass_rule.panel=majority",
                         "pass_rule.panel_judges=[sim_balanced,sim_strict,nosuch]", f"store.root={tmp_path / 'store'}",
                         f"hydra.sweep.dir={sweep}", "-m")
    assert result.returncode == 2, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("skillbench: the sweep's report was not built (ReportError: pass_rule.panel_judges: "
                           "unknown judge 'nosuch'") and last.endswith(f"build the report with: skillbench report {sweep}")
    assert len(list(sweep.glob("*/summary.json"))) == 2 and not (sweep / "report").exists()


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        (["pass_rule.panel=majority", "pass_rule.panel_judges=[sim_balanced,sim_strict,nosuch]"],
         "pass_rule.panel_judges: unknown judge 'nosuch' (judges of sim_careful in these runs: sim_balanced, sim_strict)"),
        (["pass_rule.panel=unanimous", "pass_rule.panel_judges=[sim_balanced]"],
         "a panel votes over two or more judges; this names 1"),
    ],
)
def test_a_refused_rescore_leaves_no_folder(tmp_path: Path, overrides: list[str], named: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    sweep = write_sweep(tmp_path, agents=["sim_careful"], judges=["sim_balanced", "sim_strict"], scenarios=4)
    out = tmp_path / "rescored"
    assert cli_main(["rescore", str(sweep), *overrides, "--out", str(out), "--quiet"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert named in line and "Fix:" in line
    assert not out.exists()


def test_a_rescore_panel_of_one_judge_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = write_sweep(tmp_path, agents=["sim_careful", "sim_sloppy"], judges=["sim_balanced"], scenarios=4,
                        rule=preset("paper"))
    out = tmp_path / "rescored"
    assert cli_main(["rescore", str(sweep), "pass_rule.panel=majority", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "pass_rule.panel needs at least two judges per agent; sim_careful has sim_balanced" in err
    assert not out.exists()
