"""The command line before Hydra parses it: a bad one is one line with the fix and exit 2; --cfg on a sweep notes it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillbench.plan.hydra_errors import argv_problem, sweep_note

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--fooo"], "unknown flag --fooo. Fix: use one of Hydra's flags"),
        (["--mutlirun"], "unknown flag --mutlirun: did you mean --multirun?"),
        (["agent=gpt5", "-m", "judge=gpt5"], "override judge=gpt5 comes after -m; Hydra reads overrides only before "
         "its flags. Fix: put -m after the overrides: python -m skillbench agent=gpt5 judge=gpt5 -m"),
        (["-m", "--cfg", "job"], "-m and --cfg cannot be combined"),
        (["experiment=paper_grid", "-m", "--cfg", "job"], "Fix: drop -m to see a config"),
        (["--cfg", "joob"], "--cfg joob: not one of job, hydra, all. Fix: --cfg job."),
        (["--cfg", "job", "--info"], "--cfg and --info cannot be combined"),
        (["--resolve"], "--resolve works only with --cfg"),
    ],
)
def test_a_bad_command_line_is_one_line_with_the_fix(argv: list[str], expected: str) -> None:
    problem = argv_problem(argv)
    assert problem is not None and expected in problem and "\n" not in problem


@pytest.mark.parametrize("argv", [[], ["-m", "agent=a,b"], ["agent=gpt5", "-m"], ["--cfg", "job", "agent=gpt5"],
                                  ["--help"], ["--info", "defaults"], ["run.dry_run=true"]])
def test_a_good_command_line_is_left_to_hydra(argv: list[str]) -> None:
    assert argv_problem(argv) is None


def test_cfg_on_a_sweeping_experiment_says_what_the_sweep_replaces() -> None:
    note = sweep_note(["experiment=paper_grid", "--cfg", "job"])
    assert note == (
        "note: experiment=paper_grid sweeps agent (17 values) and judge (5 values) in hydra.sweeper.params, which "
        "--cfg does not apply: the agent and judge below are defaults, not a job's. One job's config: "
        "python -m skillbench experiment=paper_grid agent=gpt5 judge=gpt5 --cfg job"
    )
    assert "sweeps judge (5 values)" in (sweep_note(["experiment=paper_grid", "agent=gpt5", "--cfg", "job"]) or "")
    assert sweep_note(["experiment=paper_grid", "agent=gpt5", "judge=gpt5", "--cfg", "job"]) is None  # one job
    assert sweep_note(["--cfg", "job"]) is None


@pytest.mark.parametrize("args", [["-m", "--cfg", "job"], ["--fooo"], ["agent=gpt5", "-m", "judge=gpt5"]])
def test_the_entry_point_exits_2_with_one_line_and_no_folder(tmp_path: Path, args: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HYDRA_FULL_ERROR": "0"}
    result = subprocess.run([sys.executable, "-m", "skillbench", *args], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("skillbench: ") and "Fix:" in line, result.stderr
    assert not list(tmp_path.iterdir())
