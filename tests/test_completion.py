"""Tab completion for both entry points, through Hydra's completion protocol, as bash runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Sets COMP_* as bash would for the line typed so far, calls the installed function, prints the candidates.
HARNESS = r"""
eval "$("$PY" -m skillbench -sc install=bash)"
try() {
    COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$COMP_LINE"
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); [[ "$COMP_LINE" == *" " ]] && COMP_CWORD=${#COMP_WORDS[@]}
    _skillbench_completion; echo "$1 -> ${COMPREPLY[*]}"
}
try "$PY -m skillbench agent=gp"
try "skillbench run judge=sim"
try "skillbench run agent=gpt5 run.bud"
try "skillbench re"
try "$PY other.py agent="
"""


def test_completion_offers_config_options_for_python_m_and_skillbench_run(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    if shutil.which("bash") is None or not (bin_dir / "skillbench").exists():
        pytest.skip("needs bash and the installed `skillbench` command next to this Python")
    env = os.environ | {"PY": sys.executable, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(REPO)}
    result = subprocess.run(["bash", "-c", HARNESS], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    answers = dict(line.split(" -> ", 1) for line in result.stdout.splitlines())
    assert set(answers[f"{sys.executable} -m skillbench agent=gp"].split()) >= {"agent=gpt5", "agent=gpt5_mini"}
    assert answers["skillbench run judge=sim"].split() == ["judge=sim_balanced", "judge=sim_lenient", "judge=sim_strict"]
    assert answers["skillbench run agent=gpt5 run.bud"] == "run.budget_usd="
    assert answers["skillbench re"].split() == ["report", "rescore"]
    assert answers[f"{sys.executable} other.py agent="] == ""  # another program: left to bash's default
