"""hydra/launcher=inflight: a whole sweep's jobs side by side in one process and one event loop.

Real Hydra, real simulated models: the same rows and the same sweep report as the basic launcher, a rerun that
resumes (no model call), one skillbench.log per job with that job's lines only. (The budget stop in an inflight
sweep: tests/engine/test_budget_cap.py.)
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.signals import interruptible

SWEEP = ["agent=sim_careful,sim_sloppy", "judge=sim_balanced,sim_strict", "benchmark=smoke", "benchmark.limit=3"]
# What a row scores and how it is keyed; timings and cost/latency measurements may differ between runs.
SCORED = ("scenario_id", "trial", "agent", "judge", "rollout_key", "verdict_key", "termination", "turns",
          "tool_calls", "rule_checks", "rule_passed", "scores", "passed", "infra_error", "judge_error")


def _sweep(cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(exist_ok=True)
    result = subprocess.run(
        [sys.executable, "-m", "skillbench", *SWEEP, "hydra.sweep.dir=sweep", f"store.root={cwd / 'store'}", *extra, "-m"],
        cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _rows(sweep: Path) -> dict[str, list[dict]]:
    rows = {}
    for job in sorted(p for p in sweep.iterdir() if (p / "results.jsonl").exists()):
        lines = [json.loads(line) for line in (job / "results.jsonl").read_text().splitlines()]
        rows[job.name] = sorted(({k: row.get(k) for k in SCORED} for row in lines), key=lambda r: r["scenario_id"])
    return rows


def _agent_calls(sweep: Path) -> int:
    return sum(json.loads(p.read_text())["usage"]["agent"]["calls"] for p in sweep.glob("*/summary.json"))


def _report(sweep: Path) -> dict:
    report = json.loads((sweep / "report" / "report.json").read_text())
    return {key: report[key] for key in ("counts", "table1", "table2") if key in report}


def test_an_inflight_sweep_matches_the_basic_launcher_and_its_rerun_resumes(tmp_path: Path) -> None:
    basic, inflight = tmp_path / "basic", tmp_path / "inflight"
    _sweep(basic)
    first = _sweep(inflight, "hydra/launcher=inflight")
    assert "4 finished, 0 failed, 0 crashed, 0 stopped" in first.stderr
    rows = _rows(inflight / "sweep")
    assert len(rows) == 4 and all(len(job_rows) == 3 for job_rows in rows.values())
    assert rows == _rows(basic / "sweep")
    assert _report(inflight / "sweep") == _report(basic / "sweep")
    assert _report(inflight / "sweep")["counts"]["jobs_finished"] == 4
    # Jobs side by side that share an agent make each rollout once, as one after the other do.
    assert _agent_calls(inflight / "sweep") == _agent_calls(basic / "sweep") > 0
    # Each job's log is its own (records routed by job while the cores run side by side).
    for job in rows:
        log = (inflight / "sweep" / job / "skillbench.log").read_text()
        number = int(job.split("_")[0]) + 1
        starts = re.findall(r"job (\d) of 4[^:]*: starting 3 conversation", log)
        assert starts == [str(number)], (job, starts)

    _sweep(inflight, "hydra/launcher=inflight")  # the same sweep again: everything comes from the store
    for job in rows:
        summary = json.loads((inflight / "sweep" / job / "summary.json").read_text())
        assert summary["llm_calls"] == 0 and summary["scenarios"] == 3
    assert _rows(inflight / "sweep") == rows


def test_the_inflight_preset_composes() -> None:
    from hydra import compose, initialize_config_module

    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        cfg = compose("config", overrides=["hydra/launcher=inflight"], return_hydra_config=True)
    assert cfg.hydra.launcher._target_.endswith("inflight_launcher.InflightLauncher")
    assert cfg.hydra.launcher.max_jobs_in_flight == 16
    # The report's imports are warmed while the jobs run (they wait on model APIs), not after the last one.
    module, _, function = cfg.hydra.launcher.while_jobs_run.partition(":")
    assert callable(getattr(importlib.import_module(module), function))


def test_ctrl_c_in_an_inflight_sweep_ends_every_running_job_and_starts_no_other(tmp_path: Path) -> None:
    # Two of four jobs in flight; SIGINT as from a terminal: the running two keep their whole rows and say so
    # (interrupted.json), the two not started leave no folder, the sweep ends with its report and exit 130.
    import signal
    import time

    sweep = tmp_path / "sweep"
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillbench", *SWEEP[:2], "benchmark=full", "benchmark.limit=60",
         "run.scenario_concurrency=2", f"store.root={tmp_path / 'store'}", f"hydra.sweep.dir={sweep}",
         "hydra/launcher=inflight", "hydra.launcher.max_jobs_in_flight=2", "-m"],
        cwd=tmp_path, stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=interruptible,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not any(p.stat().st_size for p in sweep.glob("*/results.jsonl")):
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr and "sweep interrupted" in stderr
    jobs = sorted(p.name for p in sweep.glob("*_sim_*"))
    assert [name.split("_")[0] for name in jobs] == ["0", "1"], jobs  # jobs 3 and 4 never started: no folder
    for name in jobs:
        assert json.loads((sweep / name / "interrupted.json").read_text())["signal"] == "SIGINT"
        rows = (sweep / name / "results.jsonl").read_text().splitlines()
        assert all(json.loads(line)["scenario_id"] for line in rows)  # whole rows only
