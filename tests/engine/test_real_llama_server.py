"""A real model on a real server: llama.cpp's own server (xllamacpp, extra ``realserver``) serving SmolLM2-135M-Instruct
on 127.0.0.1 as agent, user simulator and judge, one short job through the CLI, then the report.

Only plumbing and classification are asserted, never quality or text (llama.cpp's output changes with threads and
batching): the preflight probe passes, every row is in exactly one outcome class, judge errors carry their raw
replies, what answered is recorded, the report builds. Skipped when xllamacpp is not installed; deselect with
``-m "not realserver"``. Its timings are printed (``-s``) and measured in docs/real-servers.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skillbench.engine import RESULTS_FILE, ResultRow
from tests.support.llama_server import REPO, SERVED_NAME, llama_server, server_available

pytestmark = [pytest.mark.realserver,
              pytest.mark.skipif(server_available() is not None, reason=str(server_available()))]

# As small as a real conversation gets: one scenario, two agent turns, short caps (replies get cut: that is a
# classification to check too), one judge attempt.
JOB = ["experiment=cpu_server", "benchmark.scenarios=[hc-resched-happy-01]", "run.max_turns=2",
       "agent.params.max_tokens=48", "user_sim.params.max_tokens=32", "judge.params.max_tokens=96",
       "judge.max_parse_retries=0"]


def _outcomes(row: ResultRow) -> list[str]:
    # A judge error on a row a hard check already failed (a model error) is scored as a fail: one class, "scored".
    return [name for name, on in (("infra", row.infra_error is not None and row.passed is None),
                                  ("judge", row.judge_error is not None and row.passed is None),
                                  ("scored", row.passed is not None)) if on]


def test_one_short_job_on_a_real_llama_cpp_server(tmp_path: Path) -> None:
    started = time.monotonic()
    with llama_server(slots=2, threads=2) as base_url:
        ready = time.monotonic() - started
        env = {**os.environ, "SKILLBENCH_CPU_API_BASE": base_url, "SKILLBENCH_CPU_MODEL": SERVED_NAME,
               "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        run = tmp_path / "run"
        job = subprocess.run([sys.executable, "-m", "skillbench", *JOB, f"store.root={tmp_path / 'store'}",
                              f"hydra.run.dir={run}"], cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
        job_s = time.monotonic() - started - ready
    assert "preflight passed" in job.stderr, job.stderr[-3000:]
    # 0: scored; 1: nothing scored (a 135M judge rarely returns the rubric) with the judge named and the fix given.
    assert job.returncode in (0, 1), job.stderr[-3000:]
    if job.returncode == 1:
        assert "gave no usable verdict" in job.stderr and "rerun the same command" in job.stderr, job.stderr[-2000:]
    [row] = [ResultRow.model_validate_json(line) for line in (run / RESULTS_FILE).read_text().splitlines()]
    assert len(_outcomes(row)) == 1, _outcomes(row)
    assert row.infra_error is None, row.infra_error  # a working server is never an infrastructure error
    if row.judge_error is not None:  # the evidence is kept: a reason and each attempt's raw reply
        assert row.judge_error_reason is not None and row.judge_attempts
        assert all(a.reply or a.reason in ("empty", "refused") for a in row.judge_attempts)
    if row.termination == "model_error":
        assert row.termination_detail.startswith("agent: ")
    assert {server.model for server in row.served_by["agent"]} == {SERVED_NAME}  # what answered is recorded
    assert row.served_by["agent"][0].fingerprint  # llama.cpp reports its build
    report_started = time.monotonic()
    report = subprocess.run([sys.executable, "-m", "skillbench.cli", "report", str(run), "--quiet"], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=300)
    report_s = time.monotonic() - report_started
    assert report.returncode == 0, report.stderr[-2000:]
    assert (run / "report" / "report.md").exists() or any(run.rglob("report.md"))
    print(f"\nreal llama.cpp server: ready in {ready:.1f} s, job {job_s:.1f} s "
          f"({row.termination}, {'judge error: ' + str(row.judge_error_reason) if row.judge_error else 'scored'}), "
          f"report {report_s:.1f} s")
