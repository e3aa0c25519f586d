"""The grid beyond one process: the parallel preset (skillbench's fork launcher), submitit launchers (local end
to end; the SLURM preset composed).

The sweep tests run four engine jobs in parallel processes and check they share one artifact store: every
rollout is made once, exactly as many agent calls as a sequential (basic launcher) sweep.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.nonempty import nonempty
from tests.support.signals import interruptible


def _parallel_sweep_until_a_row(tmp_path: Path, *extra: str, **popen: object) -> subprocess.Popen[str]:
    """A two-job simulated sweep on the parallel launcher, returned once a job has written its first row."""
    import time

    sweep = tmp_path / "sweep"
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillbench", "agent=sim_careful,sim_sloppy", "judge=sim_balanced", "benchmark=full",
         "run.scenario_concurrency=2", f"store.root={tmp_path / 'store'}", f"hydra.sweep.dir={sweep}",
         "hydra/launcher=parallel", *extra, "-m"],
        cwd=tmp_path, stderr=subprocess.PIPE, text=True, **popen,  # type: ignore[call-overload]
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not any(p.stat().st_size for p in sweep.glob("*/results.jsonl")):
        time.sleep(0.1)
    return proc


def _stored_agent_calls(store: Path) -> int:
    return sum(json.loads(p.read_text())["usage"]["agent"]["calls"] for p in (store / "rollouts").rglob("*.json"))


def _needs_submitit() -> None:
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher", reason="needs the skillbench[slurm] extra")

SWEEP = ["agent=sim_careful,sim_sloppy", "judge=sim_balanced,sim_strict", "benchmark=smoke", "benchmark.limit=3"]


def _sweep(cwd: Path, *extra: str) -> list[dict]:
    cwd.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "skillbench", *SWEEP, "hydra.sweep.dir=sweep", f"store.root={cwd / 'store'}", *extra, "-m"],
        cwd=cwd, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return [json.loads(p.read_text()) for p in sorted((cwd / "sweep").glob("*_sim_*/summary.json"))]


def test_submitit_local_sweep_shares_one_store_and_writes_the_report(tmp_path: Path) -> None:
    # The SLURM code path without a cluster: every cell in its own process through submitit. Each agent's
    # rollouts are made once between its two cells (the stored rollouts' calls are all the agent calls made).
    _needs_submitit()
    summaries = _sweep(tmp_path / "submitit", "hydra/launcher=local")
    assert len(summaries) == 4 and all(s["scenarios"] == 3 and s["infra_errors"] == 0 for s in summaries)
    store = tmp_path / "submitit" / "store"
    assert len(list((store / "rollouts").rglob("*.json"))) == 6
    assert sum(s["usage"]["agent"]["calls"] for s in summaries) == _stored_agent_calls(store) > 0
    for agent in ("sim_careful", "sim_sloppy"):
        mine = [s for s in summaries if s["agent"] == agent]
        assert sum(s["usage"]["agent"]["cache_hits"] for s in mine) > 0  # the other cell reused them
    report = json.loads((tmp_path / "submitit" / "sweep" / "report" / "report.json").read_text())
    assert report["counts"]["jobs_finished"] == 4


def test_slurm_preset_composes(monkeypatch: pytest.MonkeyPatch) -> None:
    _needs_submitit()
    from hydra import compose, initialize_config_module

    monkeypatch.setenv("SKILLBENCH_SLURM_PARTITION", "cpu_short")
    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        cfg = compose("config", overrides=["hydra/launcher=slurm", "experiment=paper_grid"], return_hydra_config=True)
    launcher = cfg.hydra.launcher
    assert launcher._target_.endswith("SlurmLauncher")
    assert (launcher.partition, launcher.cpus_per_task, launcher.timeout_min) == ("cpu_short", 4, 240)
    assert len(cfg.hydra.sweeper.params.agent.split(",")) * len(cfg.hydra.sweeper.params.judge.split(",")) == 85


def test_slurms_advance_notice_is_never_asked_for_within_a_tasks_start_up() -> None:
    # slurmctld sends --signal=USR2@<d> as soon as its 30-s time-limit check finds a task within d + 30 s of its limit
    # (measured on the test cluster: docs/cluster.md); a task still starting has no handler, and SIGUSR2 kills it.
    _needs_submitit()
    from hydra_plugins.skillbench_plugins._slurm import NOTICE_START_S, SLURM_LIMIT_CHECK_S, notice_delay_s

    assert notice_delay_s(240 * 60, 120) == 120 and notice_delay_s(0, 120) == 120  # the preset's; no limit
    assert notice_delay_s(60, 30) == 1 and notice_delay_s(120, 120) == 60
    for limit_min in (1, 2, 3, 10):
        for asked in (1, 30, 60, 90, 120, 600):
            delay = notice_delay_s(limit_min * 60, asked)
            assert 1 <= delay <= asked  # 0 would be no notice at all
            assert limit_min * 60 - delay - SLURM_LIMIT_CHECK_S >= NOTICE_START_S - 1  # its earliest, after the start


def test_parallel_preset_forks_warm_workers_that_split_shared_conversations(tmp_path: Path) -> None:
    # Two judges per agent run at once in two forked workers: they share each agent's conversations, which are
    # made once (the stored rollouts' calls are all the agent calls the jobs made), and the report is written.
    summaries = _sweep(tmp_path / "parallel", "hydra/launcher=parallel", "hydra.launcher.n_jobs=2")
    assert len(summaries) == 4 and all(s["scenarios"] == 3 and s["infra_errors"] == 0 for s in summaries)
    store = tmp_path / "parallel" / "store"
    assert len(list((store / "rollouts").rglob("*.json"))) == 6
    assert sum(s["usage"]["agent"]["calls"] for s in summaries) == _stored_agent_calls(store) > 0
    report = json.loads((tmp_path / "parallel" / "sweep" / "report" / "report.json").read_text())
    assert report["counts"]["jobs_finished"] == 4


def test_the_parallel_preset_is_the_fork_launcher_with_the_engine_preloaded_and_the_report_warmed() -> None:
    import importlib

    from hydra import compose, initialize_config_module

    with initialize_config_module(version_base="1.3", config_module="skillbench.conf"):
        launcher = compose("config", overrides=["hydra/launcher=parallel"], return_hydra_config=True).hydra.launcher
    assert launcher._target_ == "hydra_plugins.skillbench_plugins.fork_launcher.ForkLauncher"
    for target in (launcher.preload, launcher.while_workers_run):
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), target


def test_ctrl_c_in_a_parallel_sweep_lets_each_worker_end_its_job_and_exits_130(tmp_path: Path) -> None:
    import signal

    sweep = tmp_path / "sweep"
    proc = _parallel_sweep_until_a_row(tmp_path, "benchmark.limit=60", start_new_session=True, preexec_fn=interruptible)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the launcher and its workers all get it
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr and "sweep interrupted" in stderr
    marked = list(sweep.glob("*/interrupted.json"))
    assert marked and all(json.loads(p.read_text())["rows_kept"] >= 0 for p in marked)
    for job in nonempty(sweep.glob("*_sim_*"), "job folders"):
        rows = (job / "results.jsonl").read_text().splitlines()
        assert all(json.loads(line)["scenario_id"] for line in rows)  # whole rows only


def test_a_killed_parallel_worker_loses_only_its_job_and_the_sweep_goes_on(tmp_path: Path) -> None:
    import signal

    sweep = tmp_path / "sweep"
    proc = _parallel_sweep_until_a_row(tmp_path, "benchmark.limit=40", "hydra.launcher.n_jobs=1")
    [worker] = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()  # n_jobs=1: one worker
    os.kill(int(worker), signal.SIGKILL)  # as the out-of-memory killer would
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 1, stderr[-3000:]
    assert "Traceback" not in stderr
    assert "its worker process died (exit -9); the sweep goes on" in stderr
    assert "2 job(s): 1 finished, 0 failed, 1 crashed" in stderr
    killed = json.loads((sweep / "0_sim_careful_sim_balanced" / "job_error.json").read_text())
    assert killed["type"] == "WorkerDied"
    assert (sweep / "1_sim_sloppy_sim_balanced" / "summary.json").exists()  # a fresh worker ran the next job
    assert (sweep / "report" / "report.json").exists()
