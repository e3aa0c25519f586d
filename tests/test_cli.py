"""The command line as a user runs it: sweeps, bad input, exit codes, folders left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.nonempty import nonempty

REPO = Path(__file__).resolve().parents[1]


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HYDRA_FULL_ERROR": "0"}
    return subprocess.run(
        [sys.executable, "-m", "skillbench", *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )


def summaries(sweep: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(sweep.glob("*/summary.json"))}


def test_sim_grid_sweep_generates_each_rollout_once(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    args = ("agent=glob(sim_*)", "judge=glob(sim_*)", "benchmark=smoke", f"hydra.sweep.dir={sweep}", "-m")
    result = run(tmp_path, *args)
    assert result.returncode == 0, result.stderr[-2000:]
    jobs = summaries(sweep)
    assert len(jobs) == 9
    assert all(name.split("_", 1)[1].startswith("sim_") for name in jobs)  # <num>_<agent>_<judge>
    for agent in ("sim_careful", "sim_sloppy", "sim_reckless"):
        mine = [s for s in jobs.values() if s["agent"] == agent]
        generating = [s for s in mine if s["usage"]["agent"]["calls"] > 0]
        assert len(generating) == 1  # the other judges' jobs reuse the stored rollouts
        reusing = nonempty([s for s in mine if s not in generating], f"{agent} jobs that reuse rollouts")
        assert all(s["usage"]["agent"]["calls"] == 0 and s["usage"]["user"]["calls"] == 0 for s in reusing)

    again = run(tmp_path, *args[:-1], f"hydra.sweep.dir={tmp_path / 'again'}", "-m")
    assert again.returncode == 0
    assert all(s["llm_calls"] == 0 for s in nonempty(summaries(tmp_path / "again").values(), "rerun jobs"))

    rescored = run(tmp_path, *args[:-1], f"hydra.sweep.dir={tmp_path / 'relaxed'}", "pass_rule.min_workflow_adherence=2", "-m")
    assert rescored.returncode == 0
    relaxed = summaries(tmp_path / "relaxed")
    assert all(s["llm_calls"] == 0 for s in nonempty(relaxed.values(), "rescored jobs"))
    assert [s["pass_rate"] for s in relaxed.values()] != [s["pass_rate"] for s in jobs.values()]
    assert not (tmp_path / "outputs" / "multirun").exists()  # every sweep went where hydra.sweep.dir said


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("pass_rule.min_workflow_adherence=abc", "config error on the command line at 'pass_rule.min_workflow_adherence'"),
        ("+agent.temprature=0.2", "agent.temprature"),
        ("benchmark.paths=[no_such_path]", "benchmark"),
    ],
)
def test_bad_override_one_error_no_output(tmp_path: Path, override: str, expected: str) -> None:
    result = run(tmp_path, override)
    assert result.returncode != 0
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]  # no output folder, no partial results


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (["mock.response_mode=statefull"], ["on the command line", "mock.response_mode", "'statefull'", "llm, stateful, static"]),
        (["pass_rule.hard_checks=[target_state]"], ["on the command line", "pass_rule.hard_checks", "'target_state'"]),
        (["mock.response_mode=statefull", "-m"], ["unknown mock response mode 'statefull'"]),
    ],
)
def test_unknown_registry_name_one_line_exit_2_no_folder(tmp_path: Path, overrides: list[str], expected: list[str]) -> None:
    result = run(tmp_path, *overrides)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("skillbench: "), result.stderr
    assert all(part in lines[0] for part in expected), lines[0]
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]  # no output folder, no partial results


def test_malformed_benchmark_file_names_the_file(tmp_path: Path) -> None:
    import shutil

    bench = tmp_path / "bench"
    shutil.copytree(REPO / "skillbench" / "benchmark" / "data" / "starter", bench)
    skill = next((bench / "skills").glob("*.yaml"))
    skill.write_text(skill.read_text().replace("category:", "categroy:"))
    result = run(tmp_path, f"benchmark.source={bench}", "-m")
    assert result.returncode == 2
    assert skill.name in result.stderr and "categroy" in result.stderr and "Fix:" in result.stderr
    assert "Traceback" not in result.stderr
    leftovers = list((tmp_path / "outputs").rglob("*")) if (tmp_path / "outputs").exists() else []
    assert not [p for p in leftovers if p.is_file()]


@pytest.mark.parametrize(("argv", "expected"), [(["reprot"], "unknown command 'reprot': did you mean report? Fix: "),
                                                (["--fooo"], "unknown command '--fooo'. Fix: ")])
def test_an_unknown_subcommand_is_one_line_with_the_fix(argv: list[str], expected: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from skillbench.cli import main

    assert main(argv) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"skillbench: {expected}skillbench <benchmark|compare|diff|import|judges|mine|")
