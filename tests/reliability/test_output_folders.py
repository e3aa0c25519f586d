"""Exclusive output folders (issue 30 item 1): a live folder has one owner; finished results are never overwritten.

Every refusal is one ``skillbench:`` line, exit 2, and leaves every byte of the folder as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillbench.store.ownership import LOCK_FILE, FolderBusy, claim, live_owner
from tests.reliability.harness import (
    SMALL,
    SWEEP,
    digest,
    rows_written,
    skillbench,
    skillbench_lines,
    start,
    wait_for,
)


def _store(tmp_path: Path) -> str:
    return f"store.root={tmp_path / 'store'}"


def test_rerun_into_a_finished_run_resumes_the_same_config_and_refuses_another(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = skillbench(tmp_path, *SMALL, _store(tmp_path), f"hydra.run.dir={run}")
    assert first.returncode == 0, first.stderr[-2000:]
    finished = digest(run)

    other = skillbench(tmp_path, *SMALL, "agent=sim_sloppy", _store(tmp_path), f"hydra.run.dir={run}")
    assert other.returncode == 2
    lines = skillbench_lines(other.stderr)
    assert len(lines) == 1 and "holds results of another configuration (differing: agent.model)" in lines[0]
    assert "run.overwrite=true" in lines[0] and "hydra.run.dir=<new folder>" in lines[0]
    assert digest(run) == finished  # not a byte changed, not even .hydra/ or the log

    # Same results-changing settings (a budget does not change a result): resumed from the store, 0 model calls.
    same = skillbench(tmp_path, *SMALL, "run.budget_usd=5", _store(tmp_path), f"hydra.run.dir={run}")
    assert same.returncode == 0, same.stderr[-2000:]
    assert json.loads((run / "summary.json").read_text())["llm_calls"] == 0
    assert (run / "results.jsonl").read_bytes() == (tmp_path / "run").joinpath("results.jsonl").read_bytes()

    # The explicit overwrite moves the old results aside, whole.
    before = digest(run)
    moved = skillbench(tmp_path, *SMALL, "agent=sim_sloppy", "run.overwrite=true", _store(tmp_path),
                       f"hydra.run.dir={run}")
    assert moved.returncode == 0, moved.stderr[-2000:]
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("run.replaced-")]
    assert len(aside) == 1 and "moved to" in moved.stderr
    assert {k: v for k, v in digest(aside[0]).items() if k != LOCK_FILE} == {
        k: v for k, v in before.items() if k != LOCK_FILE}
    assert {json.loads(line)["agent"] for line in (run / "results.jsonl").read_text().splitlines()} == {"sim_sloppy"}


def test_a_second_process_aimed_at_a_live_run_folder_stops_before_writing(tmp_path: Path) -> None:
    run = tmp_path / "run"
    holder = claim(run, "run")  # a live owner: this test process
    try:
        refused = skillbench(tmp_path, *SMALL, _store(tmp_path), f"hydra.run.dir={run}")
        assert refused.returncode == 2
        lines = skillbench_lines(refused.stderr)
        assert len(lines) == 1 and f"pid {os.getpid()}" in lines[0] and "Fix:" in lines[0]
        assert sorted(p.name for p in run.iterdir()) == [LOCK_FILE]  # nothing written
        # a folder inside it (a run aimed into a running sweep's job folder) is refused the same way
        inside = skillbench(tmp_path, *SMALL, _store(tmp_path), f"hydra.run.dir={run / '0_job'}")
        assert inside.returncode == 2 and f"(it is inside {run})" in inside.stderr
    finally:
        holder.release()
    assert live_owner(run) is None  # the lock dies with its holder


# Holds the lock of argv[1] as a process on another node would (over a shared filesystem), with its record argv[2].
_HOLD_AS_ANOTHER_HOST = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, sys.argv[2].encode())
print("held", flush=True)
time.sleep(600)
"""


def test_an_owner_on_another_host_is_never_taken_for_this_process_even_with_its_pid(tmp_path: Path) -> None:
    # A pid names a process on its own host only: a sweep launched on another node may have this process's pid.
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    record = {"pid": os.getpid(), "host": "node-elsewhere", "started": "2026-12-05T09:00:00+00:00", "kind": "sweep",
              "command": "python -m skillbench ... -m"}
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_AS_ANOTHER_HOST, str(sweep / LOCK_FILE), json.dumps(record)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(FolderBusy, match=f"sweep pid {os.getpid()} on node-elsewhere"):
            claim(sweep / "0_job", "run")  # was taken for a folder of this process's own sweep
        assert not (sweep / "0_job").exists()
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("launcher", ["basic", "parallel", "local"])
def test_two_sweeps_into_one_folder(tmp_path: Path, launcher: str) -> None:
    """The review's case 13: the second sweep (another pass rule) is refused while the first runs, and again once
    the first has finished; the first's results are all there, unchanged; its own rerun resumes."""
    if launcher == "local":
        pytest.importorskip("hydra_plugins.hydra_submitit_launcher", reason="needs the skillbench[slurm] extra")
    sweep = tmp_path / "sweep"
    common = [*SWEEP, _store(tmp_path), f"hydra.sweep.dir={sweep}", f"hydra/launcher={launcher}",
              "run.scenario_concurrency=1"]
    first = start(tmp_path, *common, "-m")
    wait_for(lambda: live_owner(sweep) is not None, what="the first sweep to own its folder")
    second = skillbench(tmp_path, *common, "pass_rule=strict", "-m")
    assert second.returncode == 2, second.stderr[-2000:]
    lines = skillbench_lines(second.stderr)
    assert len(lines) == 1 and f"pid {first.pid}" in lines[0] and "being written by sweep" in lines[0]
    _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err[-3000:]
    finished = digest(sweep)
    assert rows_written(sweep) == 4

    again = skillbench(tmp_path, *common, "pass_rule=strict", "-m")
    assert again.returncode == 2 and "differing: pass_rule" in again.stderr
    assert digest(sweep) == finished

    resumed = skillbench(tmp_path, *common, "-m")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    summaries = [json.loads(p.read_text()) for p in sweep.glob("*/summary.json")]
    assert len(summaries) == 2 and all(s["llm_calls"] == 0 for s in summaries)  # all from the store
