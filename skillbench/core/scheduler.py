"""What the cluster's batch scheduler (SLURM) says about its jobs, asked with ``squeue`` (and ``sacct`` when the queue
has already forgotten a job).

A job running on another node has a pid no process here can check, and a file lock on a shared filesystem holds
across nodes only where the filesystem honours it (docs/cluster.md); the scheduler knows which jobs are alive
wherever they run. ``squeue -t all`` also lists jobs that ended within the last ``MinJobAge`` seconds (300 by
default) with their final state (``TIMEOUT``, ``CANCELLED``, ``NODE_FAIL``...); ``sacct`` keeps them for good, but
only on clusters with accounting, which small clusters often leave off.

Every function answers ``None`` when the scheduler cannot be asked (no SLURM commands here, no controller): the
caller then decides without it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass

# States of a job that has ended (SLURM's job state codes); every other state (PENDING, RUNNING, COMPLETING,
# REQUEUED, SUSPENDED, ...) is a job that is still queued or running.
# Not a SLURM state: the controller has forgotten the job (it ended over MinJobAge ago) and accounting cannot say how.
FORGOTTEN = "FORGOTTEN"
ENDED_STATES = frozenset({
    "COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
    "PREEMPTED", "REVOKED", FORGOTTEN,
})
QUERY_TIMEOUT_S = 20.0  # a misconfigured client retries its config file for up to 60 s: never wait that long
_FORMAT = "%i|%T|%r|%N"  # job id (12_3 for an array task), state, reason, node


@dataclass(frozen=True)
class TaskState:
    """One SLURM job or array task as the scheduler reports it."""

    job_id: str  # "12_3" for task 3 of array 12, "13" for a plain job
    state: str  # SLURM's job state: PENDING, RUNNING, TIMEOUT, CANCELLED, ...
    reason: str = ""  # why it waits or ended (Resources, ReqNodeNotAvail, TimeLimit, ...); "" when SLURM says None
    node: str = ""  # where it runs or ran

    @property
    def ended(self) -> bool:
        return self.state.split()[0] in ENDED_STATES  # sacct says "CANCELLED by 0"

    def describe(self) -> str:
        why = f" ({self.reason})" if self.reason else ""
        where = f" on {self.node}" if self.node else ""
        return f"{self.state}{why}{where}"


def array_id(job_id: str) -> str:
    """The job id an array task belongs to ("12" for "12_3"; a plain job is its own)."""
    return job_id.split("_", 1)[0]


def _ask(command: list[str]) -> subprocess.CompletedProcess[str] | None:
    if shutil.which(command[0]) is None:
        return None
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=QUERY_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


def _parse(lines: str, fields: int = 4) -> dict[str, TaskState]:
    states: dict[str, TaskState] = {}
    for line in lines.splitlines():
        parts = line.strip().split("|")
        if len(parts) < fields or not parts[0]:
            continue
        job_id, state, reason, node = (*parts[:3], parts[3] if len(parts) > 3 else "")
        states[job_id] = TaskState(job_id, state, "" if reason in ("None", "(null)") else reason, node)
    return states


def queue_states(job_ids: Iterable[str]) -> dict[str, TaskState] | None:
    """Every task of the arrays (and jobs) ``job_ids`` belong to that the controller still knows, by task id; a task
    it has forgotten (ended more than ``MinJobAge`` ago) is absent. None: the scheduler cannot be asked."""
    arrays = sorted({array_id(job_id) for job_id in job_ids})
    if not arrays:
        return {}
    done = _ask(["squeue", "--noheader", "--array", "--states=all", f"--jobs={','.join(arrays)}", f"--format={_FORMAT}"])
    if done is None:
        return None
    if done.returncode != 0:
        # One id the controller has forgotten is an error; several are an empty answer: both mean "not queued".
        return {} if "Invalid job id" in done.stderr else None
    return _parse(done.stdout)


def accounting_states(job_ids: Iterable[str]) -> dict[str, TaskState] | None:
    """The final states SLURM's accounting recorded; None where accounting is off (``sacct`` then fails with "Slurm
    accounting storage is disabled") or the scheduler cannot be asked."""
    arrays = sorted({array_id(job_id) for job_id in job_ids})
    if not arrays:
        return {}
    done = _ask(["sacct", "--noheader", "--parsable2", "--allocations", f"--jobs={','.join(arrays)}",
                 "--format=JobID,State,Reason,NodeList"])
    if done is None or done.returncode != 0:
        return None
    return _parse(done.stdout)


def own_job_id() -> str | None:
    """The SLURM job (or array task, "12_3") this process runs in, so it never counts itself as another owner."""
    array, task = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    return f"{array}_{task}" if array and task else os.environ.get("SLURM_JOB_ID") or None


_LIVE_CACHE: dict[tuple[str, ...], tuple[float, list[str] | None]] = {}
_LIVE_CACHE_S = 2.0  # a report asks once per job folder of one sweep: one squeue for all of them


def live_jobs(job_ids: Iterable[str]) -> list[str] | None:
    """The tasks of ``job_ids``' arrays (and jobs) still queued or running, other than this process's own job; None
    when the scheduler cannot be asked."""
    key = tuple(sorted(set(job_ids)))
    now = time.monotonic()
    cached = _LIVE_CACHE.get(key)
    if cached is not None and now - cached[0] < _LIVE_CACHE_S:
        return cached[1]
    states = queue_states(key)
    mine = own_job_id()
    live = None if states is None else sorted(
        task.job_id for task in states.values() if not task.ended and task.job_id != mine
    )
    _LIVE_CACHE[key] = (now, live)
    return live
