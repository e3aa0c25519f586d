"""End to end on a real offline sweep of the engine (simulated 3 × 3 grid), with the report callback
(registered in conf/config.yaml, so a plain sweep writes the report).

Takes ~15 s (nine engine jobs); part of the default suite, as every test is (it once ran only with
SKILLBENCH_INTEGRATION=1, so CI never ran it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from skillbench.engine.results import SUMMARY_FILE, JobSummary
from skillbench.report import Report, diff_runs, load_jobs
from skillbench.report.html import decode_transcripts
from skillbench.report.rescore import rescore_jobs, resolve_rules
from tests.support.nonempty import nonempty


def test_report_of_a_real_sim_grid(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable, "-m", "skillbench", "experiment=sim_grid", "benchmark=smoke", "benchmark.limit=4",
            "hydra.sweep.dir=sweep", "-m",
        ],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    sweep = tmp_path / "sweep"
    report = Report.model_validate_json((sweep / "report" / "report.json").read_text())
    assert report.counts["jobs_finished"] == 9
    for job in nonempty(sweep.glob("*_sim_*"), "glob"):
        summary = JobSummary.model_validate_json((job / SUMMARY_FILE).read_text())
        cell = report.cell(summary.agent, summary.judge)
        assert (cell.scored, cell.passed) == (summary.scored, summary.passed)
    html = "".join(decode_transcripts((sweep / "report" / "report.html").read_text()).values())
    assert "not found in the artifact store" not in html and 'class="msg user"' in html
    # The engine's verdicts are exactly the pass rule applied to the stored checks and scores.
    jobs = load_jobs([sweep])
    rescored = rescore_jobs(jobs, resolve_rules(jobs, ["pass_rule=paper"]), tmp_path / "same")
    assert [r.passed for j in rescored for r in j.rows] == [r.passed for j in jobs for r in j.rows]
    assert diff_runs(sweep, sweep).identical
