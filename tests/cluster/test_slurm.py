"""The grid on a real SLURM controller and node (issue 44): ``hydra/launcher=slurm`` as a user runs it, and the
cluster's faults, each injected through SLURM itself (scontrol, scancel, a drained or lost node, the time limit).

Every sweep is the shipped preset with the overrides a user of a small cluster gives (partition, one CPU and 1 GB a
task) on simulated models; ``mock.latency_ms`` makes each job last long enough (about 2 s a conversation, one at a
time) for a fault to land in the middle of it. After every fault: no finished row lost, none twice, every line
whole, and the rerun (or SLURM's own requeue) completes the sweep from the store.

Nothing here relies on the machine being idle (CI runs these on a busy 2-core machine): a test waits for what it
needs to see (rows on disk, a state in ``slurm_tasks.json`` or the queue), never for a fixed time, and where a step
must happen while the array is still queued, a task is held (``scontrol hold``) until the test releases it.

Marked ``slurm``; skipped (saying why) without root or without the packages (tests/support/slurm.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from skillbench.core.scheduler import ENDED_STATES
from skillbench.engine.results import ResultRow
from tests.reliability.harness import skillbench_lines
from tests.support.ratelimited_stub import rate_limited_stub
from tests.support.slurm import PARTITION, SlurmCluster

pytestmark = pytest.mark.slurm

# The shipped preset with what a user of a small cluster overrides; polled every second here (5 s by default), and a
# task that ended without a result is concluded 1 s after the queue says so (15 s by default, for a shared
# filesystem's caches; the test cluster's folders are local).
PRESET = ["hydra/launcher=slurm", f"hydra.launcher.partition={PARTITION}", "hydra.launcher.cpus_per_task=1",
          "hydra.launcher.mem_gb=1", "hydra.launcher.poll_s=1", "hydra.launcher.result_grace_s=1"]
SCENARIOS = 6  # of benchmark=smoke's 14: each fault needs rows before it and conversations after it, no more
TWO_JOBS = ["agent=sim_careful,sim_sloppy", "judge=sim_balanced", "benchmark=smoke", f"benchmark.limit={SCENARIOS}"]
ONE_JOB = ["agent=sim_careful", "judge=sim_balanced", "benchmark=smoke", f"benchmark.limit={SCENARIOS}"]
# Two jobs of one agent, for a sweep whose second job waits its turn (array_parallelism=1): once it runs it judges the
# first job's rollouts, read from the store, so it ends seconds after it starts.
IN_TURN = ["agent=sim_careful", "judge=sim_balanced,sim_strict", "benchmark=smoke", f"benchmark.limit={SCENARIOS}",
           "hydra.launcher.array_parallelism=1"]
SLOW = ["run.scenario_concurrency=1", "mock.latency_ms=300"]  # ~2 s a conversation: a job lasts ~12 s
NO_REPORT = ["hydra.callbacks.report.enabled=false"]  # for sweeps whose test asserts nothing of the report


def _args(tmp_path: Path, *extra: str) -> list[str]:
    return [*extra, *PRESET, f"store.root={tmp_path / 'store'}", f"hydra.sweep.dir={tmp_path / 'sweep'}", "-m"]


def _launch(cluster: SlurmCluster, tmp_path: Path, args: list[str]) -> subprocess.Popen[str]:
    """The launching process, as a user starts it on the login node (its own session: signals reach only it)."""
    return subprocess.Popen([sys.executable, "-m", "skillbench", *args], cwd=tmp_path, env=cluster.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _run(cluster: SlurmCluster, tmp_path: Path, args: list[str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillbench", *args], cwd=tmp_path, env=cluster.env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def _rows(job_dir: Path) -> list[ResultRow]:
    """The job's rows; every line must be a whole row (nothing half-written)."""
    path = job_dir / "results.jsonl"
    data = path.read_text() if path.exists() else ""
    assert not data or data.endswith("\n"), f"{path}: a line cut short"
    return [ResultRow.model_validate_json(line) for line in data.splitlines()]


def _said(row: ResultRow) -> tuple:
    """What a row says (its timings and cache hits differ when a rerun reads it back from the store)."""
    return row.scenario_id, row.trial, row.rollout_key, row.verdict_key, row.passed, row.termination


def _whole(job_dir: Path) -> set[tuple]:
    rows = _rows(job_dir)
    said = {_said(row) for row in rows}
    assert len(said) == len(rows) == len({(r.scenario_id, r.trial) for r in rows}), "a row written twice"
    return said


def _complete(job_dir: Path, before: set[tuple], scenarios: int = SCENARIOS) -> None:
    """The job has every row once, and every row it held before the fault says the same (nothing lost or changed)."""
    after = _whole(job_dir)
    assert before <= after and len(after) == scenarios, (len(before), len(after))


def _row_count(results: Path) -> int:
    return results.read_bytes().count(b"\n") if results.exists() else 0


def _wait_rows(job_dir: Path, at_least: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while _row_count(job_dir / "results.jsonl") < at_least:
        assert time.monotonic() < deadline, f"no {at_least} rows in {job_dir} after {timeout:.0f} s"
        time.sleep(0.2)


def _tasks(sweep: Path, timeout: float = 120) -> list[dict]:
    """The sweep's slurm_tasks.json (written by the launching process once the array is submitted)."""
    deadline = time.monotonic() + timeout
    while not (sweep / "slurm_tasks.json").exists():
        assert time.monotonic() < deadline, "no slurm_tasks.json"
        time.sleep(0.1)
    return json.loads((sweep / "slurm_tasks.json").read_text())


@dataclass
class UnderWay:
    """A slowed sweep launched and some rows into one of its jobs."""

    args: list[str]  # its command's arguments (a rerun repeats them)
    proc: subprocess.Popen[str]  # the launching process
    sweep: Path
    tasks: list[str]  # its SLURM array tasks, by job number
    job_dir: Path  # the folder of the job that has the rows
    before: set[tuple]  # the rows that job held then

    @property
    def array(self) -> str:
        return self.tasks[0].split("_")[0]


def _under_way(cluster: SlurmCluster, tmp_path: Path, jobs: list[str], *extra: str, job: int = 0,
               rows: int = 2) -> UnderWay:
    """Launch the slowed sweep of ``jobs`` and wait until job number ``job`` holds ``rows`` rows."""
    args = _args(tmp_path, *jobs, *SLOW, *extra)
    proc = _launch(cluster, tmp_path, args)
    sweep = tmp_path / "sweep"
    tasks = [t["task"] for t in _tasks(sweep)]
    job_dir = _job_dir(sweep, job)
    _wait_rows(job_dir, rows)
    return UnderWay(args, proc, sweep, tasks, job_dir, _whole(job_dir))


def _job_dir(sweep: Path, job: int, timeout: float = 300) -> Path:
    """The folder of the sweep's job number ``job``, once its task has made it."""
    deadline = time.monotonic() + timeout
    while not (found := sorted(sweep.glob(f"{job}_*"))):
        assert time.monotonic() < deadline, f"no folder of job {job} in {sweep} after {timeout:.0f} s"
        time.sleep(0.2)
    return found[0]


def _running(cluster: SlurmCluster, task: str) -> bool:
    return cluster.tasks().get(task, ("",))[0] == "RUNNING"


def _hold(cluster: SlurmCluster, task: str) -> None:
    """Keep a task that waits its turn queued until :func:`_release`, however slow the machine: what a test does
    while "the array is still queued" then holds by construction, not by the task's speed."""
    cluster.run("scontrol", "hold", task)


def _release(cluster: SlurmCluster, task: str) -> None:
    cluster.run("scontrol", "release", task)


def _summaries(sweep: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(sweep.glob("*/summary.json"))}


def _model_calls(summary: dict) -> int:
    return sum(role["calls"] for role in summary["usage"].values())


def _stored_rollouts(store: Path) -> int:
    return len(list((store / "rollouts").rglob("*.json")))


def _finish(proc: subprocess.Popen[str], timeout: float = 600) -> tuple[int, str]:
    """The launching process's exit code and stderr, once it has ended; what it said is shown with -s."""
    _, err = proc.communicate(timeout=timeout)
    print("\n" + "\n".join(line for line in err.splitlines() if line.startswith(("skillbench:", "  "))))
    assert "Traceback" not in err, err[-4000:]
    assert "sacct" not in err and "Bypassing" not in err, err[-4000:]  # no submitit noise about accounting
    return proc.returncode, err


# ------------------------------------------------------------------------------------------------ end to end


def test_a_sweep_runs_as_slurm_array_tasks_into_one_store_and_its_rerun_calls_no_model(
        cluster: SlurmCluster, tmp_path: Path) -> None:
    args = _args(tmp_path, *TWO_JOBS)
    started = time.monotonic()
    first = _run(cluster, tmp_path, args)
    wall = time.monotonic() - started
    assert first.returncode == 0, first.stderr[-4000:]
    assert "Traceback" not in first.stderr and "sacct" not in first.stderr and "Bypassing" not in first.stderr
    sweep = tmp_path / "sweep"
    tasks = _tasks(sweep)
    assert [(t["job"], t["state"], t["node"], t["outcome"]) for t in tasks] == [
        (0, "COMPLETED", cluster.node, "finished"), (1, "COMPLETED", cluster.node, "finished")]
    array = tasks[0]["task"].split("_")[0]
    assert [t["task"] for t in tasks] == [f"{array}_0", f"{array}_1"]
    for task in tasks:  # each ran as its SLURM array task (its log names it) and wrote its own folder
        log = (sweep / task["log"]).read_text()
        assert f"job_id={task['task']}" in log and "Job completed successfully" in log, log[-2000:]
        assert len(_whole(sweep / task["folder"])) == SCENARIOS
    lines = skillbench_lines(first.stderr)
    assert any(f"as SLURM array {array}" in line for line in lines)
    assert "skillbench: sweep: 2 job(s): 2 finished, 0 failed, 0 crashed, 0 stopped" in first.stderr
    assert f"  #1   {array}_1" in first.stderr  # the table of tasks: state, node, outcome, folder, log
    report = json.loads((sweep / "report" / "report.json").read_text())
    assert report["counts"]["jobs_finished"] == 2
    summaries = _summaries(sweep)
    assert len(summaries) == 2 and all(_model_calls(s) > 0 for s in summaries.values())
    assert _stored_rollouts(tmp_path / "store") == 2 * SCENARIOS  # rows in the shared store, each made once
    print(f"\nend to end: 2 array tasks, report included, in {wall:.1f} s")

    # The same command into the same folder (its report left out): everything from the store.
    rerun = _run(cluster, tmp_path, _args(tmp_path, *TWO_JOBS, *NO_REPORT))
    assert rerun.returncode == 0, rerun.stderr[-4000:]
    again = _summaries(sweep)
    assert all(_model_calls(s) == 0 for s in again.values()), {k: s["usage"] for k, s in again.items()}
    assert all(s["usage"]["agent"]["cache_hits"] > 0 and s["scored"] == SCENARIOS for s in again.values())


# ---------------------------------------------------------------------------------------------------- faults


def test_a_task_requeued_or_told_its_time_limit_is_near_resumes_from_the_store_with_no_row_lost_or_repeated(
        cluster: SlurmCluster, tmp_path: Path) -> None:
    # Two independent faults in one sweep, one a task, each injected once its job has rows, each ending with SLURM
    # running the task again:
    # - `scontrol requeue`, as preemption with PreemptMode=REQUEUE does (SIGTERM, then back to the queue);
    # - SIGUSR2, what --signal=USR2@<signal_delay_s> sends before the time limit (sent here by scancel --signal): with
    #   a resubmission allowed (max_num_timeout=1) the job stops cleanly and the task requeues itself.
    # SIGUSR2 goes to the task that runs under the array's own job id: it once requeued itself by that id, which
    # requeued every task of the array, so the other task here was requeued twice.
    args = _args(tmp_path, *TWO_JOBS, *SLOW, "hydra.launcher.max_num_timeout=1", *NO_REPORT)
    proc = _launch(cluster, tmp_path, args)
    sweep = tmp_path / "sweep"
    tasks = [t["task"] for t in _tasks(sweep)]
    array = tasks[0].split("_")[0]
    cluster.wait_until(lambda: all(_running(cluster, task) for task in tasks), "both tasks to run")
    job_ids = dict(line.split("|") for line in cluster.run(
        "squeue", "--noheader", "--array", f"--jobs={array}", "--format=%i|%A").split())
    [warned] = [job for job, task in enumerate(tasks) if job_ids[task] == array]
    preempted = 1 - warned
    faults = {preempted: ("scontrol", "requeue", tasks[preempted]), warned: ("scancel", "--signal=USR2", tasks[warned])}
    before: dict[int, set[tuple]] = {}
    deadline = time.monotonic() + 300
    while len(before) < len(faults):
        assert time.monotonic() < deadline, f"jobs {sorted(set(faults) - set(before))} have no rows after 300 s"
        for job, command in faults.items():
            folders = sorted(sweep.glob(f"{job}_*"))
            results = folders[0] / "results.jsonl" if folders else None
            if job not in before and results is not None and _row_count(results) >= 2:
                before[job] = _whole(results.parent)
                cluster.run(*command)
        time.sleep(0.2)
    code, err = _finish(proc)
    assert code == 0, err[-4000:]
    records = {t["job"]: t for t in _tasks(sweep)}
    for job, task in enumerate(tasks):
        assert f"job #{job} (SLURM task {task}) was requeued" in err
        assert (records[job]["requeued"], records[job]["outcome"]) == (1, "finished"), records[job]  # once each
        assert "Restarts=1" in cluster.run("scontrol", "show", "job", task)
        job_dir = sweep / records[job]["folder"]
        _complete(job_dir, before[job])
        summary = json.loads((job_dir / "summary.json").read_text())
        assert summary["usage"]["judge"]["calls"] <= SCENARIOS - len(before[job])  # resumed from the store, not redone
    log = (sweep / records[warned]["log"]).read_text()
    assert "stopped: its SLURM time limit is near (SIGUSR2)" in log and "requeued (restart 1 of at most 1)" in log
    assert _stored_rollouts(tmp_path / "store") == 2 * SCENARIOS


def test_a_task_at_its_time_limit_keeps_its_rows_and_the_rerun_completes_it(
        cluster: SlurmCluster, tmp_path: Path) -> None:
    # One job of all 14 smoke scenarios at ~13 s each against a 1-minute limit (the shortest SLURM has): SLURM sends
    # SIGTERM at the limit (its check runs every ~30 s, so 60-95 s after the start) and SIGKILL KillWait (5) seconds
    # later, which may come before the job has unwound on a busy machine: the job's marker is written as SIGTERM
    # arrives. The advance notice (SIGUSR2: sent here once the job has a row, as SLURM sends it signal_delay_s before
    # the limit) finds no resubmission allowed: the job goes on to the limit.
    scenarios = 14
    job = ["agent=sim_careful", "judge=sim_balanced", "benchmark=smoke", "mock.latency_ms=4000", *NO_REPORT]
    args = _args(tmp_path, *job, "run.scenario_concurrency=1", "hydra.launcher.timeout_min=1")
    started = time.monotonic()
    proc = _launch(cluster, tmp_path, args)
    sweep = tmp_path / "sweep"
    [task] = _tasks(sweep)
    job_dir = sweep / "0_sim_careful_sim_balanced"
    _wait_rows(job_dir, 1)
    cluster.run("scancel", "--signal=USR2", task["task"])
    code, err = _finish(proc)
    wall = time.monotonic() - started
    [task] = _tasks(sweep)
    assert code == 1, err[-4000:]  # a stopped job is not a result
    assert (task["state"], task["reason"], task["outcome"]) == ("TIMEOUT", "TimeLimit", "stopped")
    marker = json.loads((job_dir / "interrupted.json").read_text())
    kept = _whole(job_dir)
    # The marker counts the rows on disk when it was written: as SIGTERM arrived, and again once the job has unwound
    # unless SIGKILL came first; a conversation that ended in between is a whole row the marker may not count.
    assert marker["signal"] == "SIGTERM" and 0 < marker["rows_kept"] <= len(kept) < scenarios
    line = next(line for line in skillbench_lines(err) if f"(SLURM task {task['task']})" in line)
    assert "TIMEOUT (TimeLimit)" in line and f"{len(kept)} finished row(s) kept" in line
    assert "by rerunning: python -m skillbench" in line and task["log"] in line
    assert "1 stopped" in err
    assert "SLURM says the time limit is near (SIGUSR2)" in (sweep / task["log"]).read_text()  # and it went on
    # Nothing half-written where a reader looks: every artifact in the store is whole. (SIGKILL after KillWait may
    # come before the job has unwound, even mid-write: that leaves at most a hidden temporary file, which nothing reads.)
    for artifact in (tmp_path / "store").rglob("*.json"):
        json.loads(artifact.read_text())
    assert all(leftover.name.startswith(".") for leftover in (tmp_path / "store").rglob("*.tmp"))
    print(f"\ntime limit: the job stopped with {len(kept)} rows after {wall:.0f} s")

    # With room this time, and the rest of its conversations at once (neither changes a result: the rows are reused).
    rerun = _run(cluster, tmp_path, _args(tmp_path, *job, f"run.scenario_concurrency={scenarios}",
                                          "hydra.launcher.timeout_min=10"))
    assert rerun.returncode == 0, rerun.stderr[-4000:]
    _complete(job_dir, kept, scenarios)
    assert not (job_dir / "interrupted.json").exists()
    summary = json.loads((job_dir / "summary.json").read_text())
    assert summary["usage"]["judge"]["calls"] == scenarios - len(kept)  # the kept rows came from the store


def test_scancel_of_one_task_stops_only_its_job_and_the_rerun_completes_the_sweep(
        cluster: SlurmCluster, tmp_path: Path) -> None:
    run = _under_way(cluster, tmp_path, TWO_JOBS, job=1)
    sweep, task, job_dir = run.sweep, run.tasks[1], run.job_dir
    cluster.run("scancel", task)
    code, err = _finish(run.proc)
    assert code == 1, err[-4000:]
    kept = _whole(job_dir)
    line = next(line for line in skillbench_lines(err) if f"(SLURM task {task})" in line)
    assert "CANCELLED" in line and "its job stopped (terminated, SIGTERM)" in line and "by rerunning" in line
    assert "sweep: 2 job(s): 1 finished, 0 failed, 0 crashed, 1 stopped" in err
    report = json.loads((sweep / "report" / "report.json").read_text())
    assert report["counts"]["jobs_finished"] == 1
    rerun = _run(cluster, tmp_path, run.args)
    assert rerun.returncode == 0, rerun.stderr[-4000:]
    _complete(job_dir, kept)
    assert json.loads((sweep / "report" / "report.json").read_text())["counts"]["jobs_finished"] == 2


def test_scancel_of_the_whole_array_records_the_job_that_never_started_and_the_rerun_completes_both(
        cluster: SlurmCluster, tmp_path: Path) -> None:
    run = _under_way(cluster, tmp_path, IN_TURN)  # the second job waits its turn
    sweep = run.sweep
    cluster.run("scancel", run.array)
    code, err = _finish(run.proc)
    assert code == 1, err[-4000:]
    tasks = {t["job"]: t for t in _tasks(sweep)}
    assert (tasks[0]["state"], tasks[0]["outcome"]) == ("CANCELLED", "stopped")
    assert (tasks[1]["state"], tasks[1]["outcome"]) == ("CANCELLED", "not started")
    never = sweep / tasks[1]["folder"]
    assert json.loads((never / "job_error.json").read_text())["error"].endswith("before it started")
    assert (never / ".hydra" / "config.yaml").exists() and not (never / "results.jsonl").exists()
    assert "sweep: 2 job(s): 0 finished, 0 failed, 1 crashed, 1 stopped" in err
    assert (sweep / "report" / "report.json").exists()
    rerun = _run(cluster, tmp_path, _args(tmp_path, *IN_TURN, *SLOW, *NO_REPORT))
    assert rerun.returncode == 0, rerun.stderr[-4000:]
    assert all(len(_whole(sweep / t["folder"])) == SCENARIOS for t in tasks.values())


def test_a_drained_node_lets_its_task_finish_and_holds_the_next_until_it_is_resumed(
        cluster: SlurmCluster, tmp_path: Path) -> None:
    run = _under_way(cluster, tmp_path, IN_TURN, *NO_REPORT)
    sweep, waiting = run.sweep, run.tasks[1]
    cluster.run("scontrol", "update", f"nodename={cluster.node}", "state=drain", "reason=maintenance")
    try:
        cluster.wait_until(lambda: (run.job_dir / "summary.json").exists(), "job 0 to finish")
        # The launching process says why the task waits before it records the reason in slurm_tasks.json.
        cluster.wait_until(lambda: "DRAINED" in _tasks(sweep)[1]["reason"], "the launching process to see the reason")
    finally:
        cluster.resume_node()
    code, err = _finish(run.proc)
    assert code == 0, err[-4000:]
    line = next(line for line in skillbench_lines(err) if f"(SLURM task {waiting}) waits" in line)
    assert "Nodes required for job are DOWN, DRAINED" in line and "sinfo -R" in line
    assert [len(_whole(job)) for job in sorted(sweep.glob("[01]_sim_*"))] == [SCENARIOS, SCENARIOS]


def test_a_lost_node_requeues_its_task_which_resumes_from_the_store_when_the_node_is_back(
        cluster: SlurmCluster, tmp_path: Path) -> None:
    run = _under_way(cluster, tmp_path, ONE_JOB, *NO_REPORT)
    [task] = run.tasks
    killed = cluster.lose_node()  # slurmd and the task's processes, SIGKILL: no handler runs, nothing is marked
    assert killed
    cluster.wait_until(lambda: cluster.node_state().startswith("down"), "the controller to mark the node down", 90)
    cluster.wait_until(lambda: cluster.tasks().get(task, ("",))[0] == "PENDING", "SLURM to requeue the task", 60)
    cluster.start_node()  # the node is back (ReturnToService=2)
    code, err = _finish(run.proc)
    assert f"job #0 (SLURM task {task}) was requeued" in err
    if code != 0:
        # The requeued run failed too (twice in 7 runs here, under load: its step was cancelled 7-10 s after it
        # started, cause not established; docs/cluster.md): the launching process says so, the rerun completes it.
        line = next(line for line in skillbench_lines(err) if f"(SLURM task {task}) " in line and "ended" in line)
        assert "ended before its job finished" in line and "finished row(s) kept" in line and "by rerunning" in line
        rerun = _run(cluster, tmp_path, run.args)
        assert rerun.returncode == 0, rerun.stderr[-4000:]
    print(f"\nlost node: completed by {'the rerun' if code else 'SLURM requeueing the task'}")
    _complete(run.job_dir, run.before)


def test_the_launching_process_killed_leaves_the_array_running_its_folder_owned_and_the_report_buildable(
        cluster: SlurmCluster, tmp_path: Path) -> None:
    run = _under_way(cluster, tmp_path, IN_TURN)
    args, proc, sweep, array = run.args, run.proc, run.sweep, run.array
    _hold(cluster, run.tasks[1])  # the array stays queued until released below, however long the steps take
    os.kill(proc.pid, signal.SIGKILL)  # the login node's process is gone; the array is not
    proc.communicate(timeout=60)
    assert any(state not in ENDED_STATES for state, _ in cluster.tasks(array).values())

    second = _run(cluster, tmp_path, args)  # another launch into the same sweep while its array runs: refused
    assert second.returncode == 2, second.stderr[-3000:]
    [line] = skillbench_lines(second.stderr)
    assert f"SLURM job(s) {array} of the sweep launched by pid {proc.pid}" in line and f"scancel {array}" in line
    assert not list(sweep.glob("*/job_error.json"))  # it wrote nothing

    report = subprocess.run([sys.executable, "-m", "skillbench.cli", "report", str(sweep), "--quiet"], cwd=tmp_path,
                            env=cluster.env, capture_output=True, text=True, timeout=300, check=False)
    assert report.returncode == 0, report.stderr[-3000:]
    # What is not in it yet, and why: the array still writes the sweep.
    assert f"still being written by SLURM job(s) {array}" in report.stderr and "still queued or running" in report.stderr

    _release(cluster, run.tasks[1])
    cluster.wait_until(lambda: all(state in ("COMPLETED",) for state, _ in cluster.tasks(array).values()),
                       "the array to end", 300)
    final = subprocess.run([sys.executable, "-m", "skillbench.cli", "report", str(sweep), "--quiet"], cwd=tmp_path,
                           env=cluster.env, capture_output=True, text=True, timeout=300, check=False)
    assert final.returncode == 0 and "still being written" not in final.stderr, final.stderr[-3000:]
    assert json.loads((sweep / "report" / "report.json").read_text())["counts"]["jobs_finished"] == 2
    # The array has ended: the folder is free, and everything is stored.
    rerun = _run(cluster, tmp_path, _args(tmp_path, *IN_TURN, *SLOW, *NO_REPORT))
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert all(_model_calls(s) == 0 for s in _summaries(sweep).values())


def test_sigterm_to_the_launching_process_stops_the_watching_not_the_array(cluster: SlurmCluster, tmp_path: Path) -> None:
    # The whole smoke benchmark (~30 s): still running long after the launching process has gone; cancelled below.
    run = _under_way(cluster, tmp_path, ["agent=sim_careful", "judge=sim_balanced", "benchmark=smoke"], rows=1)
    sweep, array = run.sweep, run.array
    os.kill(run.proc.pid, signal.SIGTERM)  # as `kill`, or the end of a login session's job
    code, err = _finish(run.proc, timeout=120)
    assert code == 143, err[-3000:]
    [line] = [line for line in skillbench_lines(err) if "stops watching" in line]
    assert line.startswith("skillbench: terminated (SIGTERM)") and f"scancel {array}" in line
    assert "crashed" not in err and not (sweep / "report").exists()  # no report counting running jobs as crashed
    assert any(state == "RUNNING" for state, _ in cluster.tasks(array).values())  # the array runs on
    cluster.run("scancel", array)


def test_a_folder_whose_owner_is_another_hosts_slurm_job_is_refused_whatever_its_pid(
        cluster: SlurmCluster, tmp_path: Path) -> None:
    # The owner's lock was taken on another node (so no flock here holds it) and its pid is this very process's: only
    # the scheduler knows it is alive. Once its job ends, the folder is free.
    job = cluster.run("sbatch", "--parsable", "--output=/dev/null", "--wrap", "sleep 300").strip()
    cluster.wait_until(lambda: _running(cluster, job), "the owner's job to run")
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    (sweep / ".skillbench.lock").write_text(json.dumps({
        "pid": os.getpid(), "host": "node-elsewhere", "started": "2026-12-05T09:00:00+00:00", "kind": "sweep",
        "command": "python -m skillbench ... -m", "planned": 2, "scheduler_jobs": [job]}))
    args = _args(tmp_path, "agent=sim_careful,sim_sloppy", "judge=sim_balanced", "benchmark=smoke", "benchmark.limit=1",
                 *NO_REPORT)
    refused = _run(cluster, tmp_path, args)
    assert refused.returncode == 2, refused.stderr[-3000:]
    [line] = skillbench_lines(refused.stderr)
    assert f"SLURM job(s) {job} of the sweep launched by pid {os.getpid()} on node-elsewhere" in line
    cluster.run("scancel", job)
    cluster.wait_until(lambda: cluster.tasks(job).get(job, ("CANCELLED",))[0] == "CANCELLED", "the job to end")
    allowed = _run(cluster, tmp_path, args)
    assert allowed.returncode == 0, allowed.stderr[-3000:]


def test_the_report_as_its_own_job_lets_the_launching_process_return_at_once(
        cluster: SlurmCluster, tmp_path: Path) -> None:
    # Two conversations of ~2 s each: the array outlasts this process by seconds, and the report job (which waits for
    # it) is held until the second launch has been refused.
    args = _args(tmp_path, "agent=sim_careful,sim_sloppy", "judge=sim_balanced", "benchmark=smoke", "benchmark.limit=2",
                 *SLOW, "hydra.launcher.report_job=true")
    started = time.monotonic()
    submitted = _run(cluster, tmp_path, args)
    returned_s = time.monotonic() - started
    assert submitted.returncode == 0, submitted.stderr[-3000:]
    lines = skillbench_lines(submitted.stderr)
    report_line = next(line for line in lines if line.startswith("skillbench: report: SLURM job"))
    report_job = report_line.split("SLURM job ")[1].split()[0]
    _hold(cluster, report_job)
    sweep = tmp_path / "sweep"
    assert not (sweep / "report").exists()  # not built by this process
    refused = _run(cluster, tmp_path, args)  # the jobs own the folder now
    assert refused.returncode == 2 and "still queued or running" in refused.stderr, refused.stderr[-3000:]
    _release(cluster, report_job)
    cluster.wait_until(lambda: cluster.tasks(report_job).get(report_job, ("",))[0] == "COMPLETED",
                       "the report job to end", 300)
    assert json.loads((sweep / "report" / "report.json").read_text())["counts"]["jobs_finished"] == 2
    log = (sweep / ".submitit" / f"report_{report_job}.log").read_text()
    assert "Report written to" in log
    print(f"\nreport_job: the launching process returned after {returned_s:.1f} s")


# ------------------------------------------------------------------------------------- one provider limit


def test_array_tasks_share_one_providers_rate_limit_through_the_store(cluster: SlurmCluster, tmp_path: Path) -> None:
    # Three array tasks (two at a time on the node's two CPUs) judge through one endpoint that allows 60 requests a
    # minute (1 a second, burst 1) and states its limits; the adaptive limiter's state is shared through the store.
    with rate_limited_stub(requests_per_minute=60, retry_after_s=1, models=("google/gemma-4-31B-it",)) as judge:
        args = _args(tmp_path, "agent=sim_careful,sim_sloppy,sim_reckless", "judge=gemma4",
                     f"judge.api_base={judge.base_url}", "judge.max_retries=0", "benchmark=smoke", "benchmark.limit=6",
                     *NO_REPORT)
        started = time.monotonic()
        done = _run(cluster, tmp_path, args)
        wall = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-4000:]
    summaries = _summaries(tmp_path / "sweep")
    assert len(summaries) == 3 and all(s["scored"] == 6 and s["infra_errors"] == 0 for s in summaries.values())
    judged = sum(s["usage"]["judge"]["calls"] for s in summaries.values())
    shared = sum(s["usage"]["judge"]["cache_hits"] for s in summaries.values())  # a transcript two agents both wrote
    assert judged == len(judge.accepted) and judged + shared == 18  # nothing lost, nothing asked twice
    times = sorted(judge.accepted)
    span = times[-1] - times[0]
    assert len(times) <= 1 + span * 1.0 + 1e-9  # the endpoint's limit: burst 1, then 1 a second
    # Sent (answered or refused) at about the allowed rate: each task paced by the limiter state they share. Three
    # tasks each pacing itself alone at 1/s would send ~3/s, two thirds of it refused.
    sent = len(judge.accepted) + len(judge.refused)
    assert len(judge.refused) < len(judge.accepted) / 3, (len(judge.refused), len(judge.accepted))
    # Together they sent at no more than the allowed rate: one a second, on the turns handed out under the lease's
    # lock, but for the other two tasks' first requests (a process's first may leave up to a second after its turn).
    sent_times = sorted(judge.accepted + judge.refused)
    assert sent <= 1 + (sent_times[-1] - sent_times[0]) * 1.0 + 2, (sent, sent_times[-1] - sent_times[0])
    state = [json.loads(p.read_text()) for p in (tmp_path / "store" / ".limits").glob("*.json")]
    assert [entry["learned_rpm"] for entry in state] == [60.0]  # the limit the tasks learned and shared
    print(f"\nrate limit: 3 array tasks, {len(times)} judge calls answered over {span:.1f} s (allowed "
          f"{1 + span:.1f}), {len(judge.refused)} refused (429) of {sent} sent ({sent / span:.2f}/s for 1/s); "
          f"{shared} verdict(s) shared through the store; sweep {wall:.0f} s")
