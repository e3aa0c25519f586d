"""A sweep's budget is this run's (issue 41 item 4): what the other jobs of this run spend, read from the jobs of this
process at once and from the files other processes keep current; an earlier run's files are never this run's (the
parallel launcher's rerun read a stale stopped.json and refused to start a job: reliability review N7)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from skillbench.core.records import Usage
from skillbench.engine.budget import SPENDING_FILE, BudgetGuard, SweepSpend
from skillbench.engine.progress import Progress


def _job_file(sweep: Path, name: str, run: str, spent: float, state: str = "running") -> Path:
    job = sweep / name
    job.mkdir(parents=True, exist_ok=True)
    (job / SPENDING_FILE).write_text(json.dumps({"run": run, "spent_usd": spent, "state": state, "reached_at": None}))
    return job


def test_an_earlier_runs_files_are_not_this_runs_spend_nor_its_stop(tmp_path: Path) -> None:
    earlier = _job_file(tmp_path, "1_job", "run-before", 50.0, "stopped")
    (earlier / "stopped.json").write_text(json.dumps({"reason": "budget", "spent_usd": 50.0}))
    (earlier / "summary.json").write_text(json.dumps({"cost_usd": 7.0}))
    spend = SweepSpend(tmp_path, tmp_path / "0_job", "run-now")
    assert spend.spent() == 0.0 and not spend.stopped()


def test_a_running_job_elsewhere_is_read_at_every_check_and_its_end_is_kept(tmp_path: Path) -> None:
    spend = SweepSpend(tmp_path, tmp_path / "0_job", "run")
    _job_file(tmp_path, "1_job", "run", 0.10)
    assert spend.spent() == 0.10
    _job_file(tmp_path, "1_job", "run", 0.25)  # its next call, at once: no scan interval for a job already known
    assert spend.spent() == 0.25 and not spend.stopped()
    _job_file(tmp_path, "1_job", "run", 0.30, "stopped")
    assert spend.spent() == 0.30 and spend.stopped()
    _job_file(tmp_path, "2_job", "run", 0.05)  # a job started elsewhere is found at the next scan
    time.sleep(0.06)
    assert spend.spent() == 0.35


def test_a_cap_found_by_one_job_stops_the_other_jobs_of_its_process_at_once(tmp_path: Path) -> None:
    stopped: list[str] = []
    guards = []
    for name in ("0_a", "1_b"):
        progress = Progress(total=4)
        guard = BudgetGuard(1.0, progress, SweepSpend(tmp_path, tmp_path / name, "run-cap"))
        guard.stop_conversations = lambda name=name: stopped.append(name)
        progress.on_observe = guard.observed
        guards.append((progress, guard))
    (first, guard_a), (second, guard_b) = guards
    first.observe("agent", Usage(calls=1, cost_usd=0.6))
    assert guard_a.may_send() and guard_b.may_send() and not stopped
    second.observe("agent", Usage(calls=1, cost_usd=0.5))  # this run has spent 1.1 of 1.0
    assert stopped == ["1_b", "0_a"]  # both stopped in the same check, before either sends again
    assert not guard_a.may_send() and not guard_b.may_send()
    assert guard_a.reached_at is not None and guard_b.reached_at is not None
    written = json.loads((tmp_path / "0_a" / SPENDING_FILE).read_text())
    assert written["state"] == "stopped" and written["spent_usd"] == 0.6 and written["run"] == "run-cap"
    assert SweepSpend(tmp_path, tmp_path / "2_c", "run-cap").stopped()  # the next job of the run does not start
