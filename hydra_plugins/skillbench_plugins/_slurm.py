"""``hydra/launcher=slurm``: hydra-submitit-launcher's SLURM launcher, with what a sweep on a real cluster needs.

Each job of the sweep is one task of a SLURM job array (submitit), as before. What this launcher adds
(docs/cluster.md; every point tested on a real controller and node in tests/cluster/):

- **Task states from the queue.** submitit learns how a task ended from ``sacct``. On a cluster without accounting
  (many small ones) every poll printed a three-line warning, and a task that ended without writing its result
  (cancelled, timed out, its node lost) read as UNKNOWN for ever: the launching process never returned. Here the
  launching process asks ``squeue`` (skillbench.core.scheduler), which lists a task for ``MinJobAge`` after it
  ended, and ``sacct`` only about a task the queue has already forgotten.
- **A task that ends without its job's result does not end the sweep.** Its folder says why (``job_error.json``,
  as for a crashed job; a task cancelled before it started gets the folder Hydra would have made), the sweep's end
  counts it, the report shows the missing cell, and rerunning the same command completes it from the store.
- **Each task's state and log**: one line as each task ends (or is requeued, or waits on a drained or down node), a
  table at the end, and ``<sweep>/slurm_tasks.json``, rewritten as states change.
- **The sweep folder stays owned while the array runs**, also after this process has ended
  (``FolderClaim.add_scheduler_jobs``): a second launch into it is refused, from any host.
- **In the task**: SIGTERM (scancel, time limit, preemption, requeue) ends the job as Ctrl-C does (finished rows
  and ``interrupted.json`` kept) and the task exits 143 without a result, so the launching process reads how it ended
  from the queue. SIGUSR2, SLURM's advance notice of the time limit (``signal_delay_s`` before it), stops the job the
  same way at once and requeues the task while it has ``max_num_timeout`` resubmissions left (the requeued task
  resumes from the store); without a resubmission left the job goes on to the limit (SIGTERM), keeping more rows.
  submitit's own handler failed the job there with "timed-out too many times". ``signal_delay_s`` is lowered where
  SLURM could send SIGUSR2 within :data:`NOTICE_START_S` of a task's start (:func:`notice_delay_s`): before the task
  has installed a handler, SIGUSR2's default action kills it.
- **Ctrl-C or SIGTERM to the launching process** stops the watching, not the array: one line says so (with the
  ``squeue``, ``scancel`` and ``skillbench report`` commands), exit 130/143, no report over jobs still running.
- **report_job=true**: the report becomes its own small SLURM job, run once the array has ended (``afterany``), and
  this process returns as soon as both are submitted: nothing needs to stay alive on the login node.
"""

# No `from __future__ import annotations`: Hydra scans plugin modules before they are in sys.modules.
import contextlib
import copy
import json
import logging
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import JobReturn, JobStatus, filter_overrides
from hydra_plugins.hydra_submitit_launcher.config import SlurmQueueConf
from hydra_plugins.hydra_submitit_launcher.submitit_launcher import SlurmLauncher as SubmititSlurmLauncher
from omegaconf import OmegaConf, open_dict, read_write

from hydra_plugins.skillbench_plugins._launch import job_config, job_folder
from skillbench.core.faults import Terminated, exit_code, install_sigterm, stop_word
from skillbench.core.scheduler import (
    FORGOTTEN,
    TaskState,
    accounting_states,
    array_id,
    own_job_id,
    queue_states,
)

log = logging.getLogger(__name__)

TASKS_FILE = "slurm_tasks.json"
# Reasons a pending task gives in the normal course (its turn has not come); any other is said once, as it appears.
USUAL_WAITS = frozenset({"", "Resources", "Priority", "JobArrayTaskLimit", "BeginTime", "Dependency", "None"})


# slurmctld checks time limits every 30 s (PERIODIC_TIMEOUT) and sends the advance notice as soon as a check finds a
# task within signal_delay_s + 30 s of its limit: with a 1-minute limit and USR2@30 it came 16 and 29 s after the
# start here (SLURM 22.05), up to 30 s before signal_delay_s said.
SLURM_LIMIT_CHECK_S = 30
# How long after its start a task may still be without its SIGUSR2 handler: its interpreter starting and the imports
# of unpickling its job (3-7 s on the test node at load 4-7; more on a node busier than that).
NOTICE_START_S = 30


def notice_delay_s(limit_s: int, delay_s: int) -> int:
    """The ``signal_delay_s`` to ask SLURM for: the user's, lowered so that the advance notice cannot come within
    about :data:`NOTICE_START_S` of the task's start; at least 1 (SLURM sends no notice at all for 0). With a limit
    of a minute: 1, the notice at the check 29-59 s after the start."""
    if not limit_s or delay_s <= 0:
        return delay_s
    return max(1, min(delay_s, limit_s - SLURM_LIMIT_CHECK_S - NOTICE_START_S))


@dataclass
class SkillbenchSlurmConf(SlurmQueueConf):
    _target_: str = "hydra_plugins.skillbench_plugins._slurm.SlurmLauncher"
    poll_s: float = 5.0  # how often the launching process asks squeue about its tasks
    # A task the queue says has ended without a result yet: how long its result file may take to show (a shared
    # filesystem's caches) before its folder is taken to say how it ended
    result_grace_s: float = 15.0
    # true: submit the report as its own SLURM job that runs once the array has ended, and return at once
    report_job: bool = False
    report_mem_gb: int = 4
    report_timeout_min: int = 60


class TimeLimitNear(Terminated):
    """SIGUSR2: SLURM's advance notice (``--signal=USR2@<signal_delay_s>``) that the task's time limit is near."""

    signal_name = "SIGUSR2"
    reason = "time_limit"
    words = "stopped: its SLURM time limit is near (SIGUSR2)"


@dataclass
class TaskRecord:
    """One array task as ``<sweep>/slurm_tasks.json`` records it."""

    job: int  # the Hydra job number (the sweep's job #N)
    task: str  # the SLURM array task ("12_3")
    state: str = "SUBMITTED"  # SLURM's state when last seen (PENDING, RUNNING, COMPLETED, TIMEOUT, ...)
    reason: str = ""  # SLURM's reason (TimeLimit, ReqNodeNotAvail, ...)
    node: str = ""  # where it ran
    requeued: int = 0  # times this launcher saw it go back to the queue after it had started
    folder: str = ""  # the job's folder, relative to the sweep's
    log: str = ""  # the task's log (stdout and stderr), relative to the sweep's folder
    # What its job's folder says once the task has ended: finished (summary.json), stopped (interrupted.json or
    # stopped.json: its rows kept, the rerun continues it), failed (job_error.json written by the job), unfinished
    # (the task ended under it: job_error.json written by this launcher) or not started (ditto).
    outcome: str = ""


@dataclass
class _Task:
    """A submitted job: its SLURM task and what the launching process has seen of it."""

    idx: int
    overrides: list[str]
    job: Any  # submitit's SlurmJob
    record: TaskRecord
    ended_at: float | None = None  # when the queue first said it had ended (its result may still be on its way)
    reasons_said: set[str] = field(default_factory=set)
    result: JobReturn | None = None
    failure: str = ""  # why submitit could not run the job, when its result says so


def _time_limit_near(signum: int, frame: Any) -> None:
    os.write(2, b"skillbench: SLURM says the time limit is near (SIGUSR2); with no resubmission left (max_num_timeout) "
                b"the job goes on, and SIGTERM at the limit stops it with its finished rows kept\n")


def _say(message: str) -> None:
    print(f"skillbench: {message}", file=sys.stderr, flush=True)


def _relative(path: Path, sweep_dir: Path) -> str:
    with contextlib.suppress(ValueError):
        return str(path.relative_to(sweep_dir))
    return str(path)


class SlurmLauncher(SubmititSlurmLauncher):
    def __init__(self, poll_s: float = 5.0, result_grace_s: float = 15.0, report_job: bool = False,
                 report_mem_gb: int = 4, report_timeout_min: int = 60, **params: Any) -> None:
        super().__init__(**params)  # every other field is submitit's (hydra-submitit-launcher's SlurmQueueConf)
        self.poll_s = poll_s
        self.result_grace_s = result_grace_s
        self.report_job = report_job
        self.report_mem_gb = report_mem_gb
        self.report_timeout_min = report_timeout_min
        self._accounting_said = False

    # ------------------------------------------------------------------------------------- in the task, on a node

    def __call__(self, *args: Any, **kwargs: Any) -> JobReturn:
        install_sigterm()  # from the start: submitit's own handler ignores SIGTERM
        if self._resubmissions_left():
            install_sigterm(signum=signal.SIGUSR2, error=TimeLimitNear)
        else:  # nothing to requeue for: the job goes on, and SIGTERM at the limit stops it with more rows kept
            signal.signal(signal.SIGUSR2, _time_limit_near)
        try:
            return super().__call__(*args, **kwargs)
        except KeyboardInterrupt as exc:  # the job has kept its finished rows and written interrupted.json
            if isinstance(exc, TimeLimitNear) and not self._requeue():
                # Its last word: a result the launching process reads at once (the folder says it stopped).
                ret = JobReturn(overrides=list(args[0]) if args else [])
                ret.status, ret.return_value = JobStatus.COMPLETED, None
                return ret
            # No result: how the task ended (TIMEOUT, CANCELLED, requeued...) is the queue's to say.
            sys.exit(exit_code(exc))

    def _resubmissions_left(self) -> bool:
        restarts = int(os.environ.get("SLURM_RESTART_COUNT") or 0)
        return restarts < int(self.params.get("max_num_timeout") or 0)

    def _requeue(self) -> bool:
        """Requeue this task (after SIGUSR2) while it has resubmissions left; whether it was requeued."""
        restarts = int(os.environ.get("SLURM_RESTART_COUNT") or 0)
        # This task by its array's id and its index ("12_3"): one task of an array runs under the array's own job id
        # (SLURM_JOB_ID), and `scontrol requeue <that id>` requeues every task of the array, stopping them all.
        job_id = own_job_id()
        if not job_id or not self._resubmissions_left():
            return False
        try:
            done = subprocess.run(["scontrol", "requeue", job_id], capture_output=True, text=True, timeout=60,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired):
            return False
        if done.returncode == 0:
            print(f"skillbench: requeued (restart {restarts + 1} of at most {self.params.get('max_num_timeout')}): "
                  "the task resumes from the store when it runs again", file=sys.stderr, flush=True)
        return done.returncode == 0

    # ---------------------------------------------------------------------------------- in the launching process

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        from hydra.core.singleton import Singleton

        from skillbench.store.ownership import held_claim

        assert self.config is not None
        sweep_dir = Path(os.path.abspath(str(self.config.hydra.sweep.dir)))
        sweep_dir.mkdir(parents=True, exist_ok=True)
        if "mode" in self.config.hydra.sweep:
            os.chmod(sweep_dir, mode=int(str(self.config.hydra.sweep.mode), 8))
        log.info("Submitit 'slurm' sweep output dir : %s", sweep_dir)
        job_params = []
        for offset, overrides in enumerate(job_overrides):
            idx = initial_job_idx + offset
            log.info("\t#%d : %s", idx, " ".join(filter_overrides(overrides)))
            job_params.append((list(overrides), "hydra.sweep.dir", idx, f"job_id_for_{idx}", Singleton.get_state()))
        jobs = self._executor().map_array(self, *zip(*job_params, strict=True))
        tasks = [_Task(idx, overrides, job, TaskRecord(job=idx, task=job.job_id, log=_relative(Path(job.paths.stdout), sweep_dir)))
                 for (overrides, _, idx, _, _), job in zip(job_params, jobs, strict=True)]
        arrays = list(dict.fromkeys(array_id(job.job_id) for job in jobs))
        claim = held_claim(sweep_dir)  # the sweep's folder stays owned while the array runs, whatever ends this process
        if claim is not None:
            claim.add_scheduler_jobs(arrays)
        _say(f"submitted {len(tasks)} job(s) as SLURM array {', '.join(arrays)} (partition "
             f"{self.params.get('partition') or 'default'}, at most {self.params.get('array_parallelism')} at once); "
             f"each task's log: {sweep_dir / '.submitit'}/<task>/<task>_0_log.out; states: {sweep_dir / TASKS_FILE}")
        self._write_tasks(sweep_dir, tasks)
        if self.report_job:
            self._hand_over(sweep_dir, arrays, claim)
        try:
            self._watch(tasks, sweep_dir)
        except KeyboardInterrupt as exc:
            # Ctrl-C or SIGTERM stops the watching, not the array: its tasks run on and own the folder. No report now
            # (it would count the running jobs as crashed); it is built from the folders once they have ended.
            running = ", ".join(arrays)
            _say(f"{stop_word(exc)}: this process stops watching, but the SLURM array {running} keeps running on the "
                 f"cluster and this sweep's folder stays owned by it. Follow it: squeue --jobs={running}; stop it: "
                 f"scancel {running.replace(', ', ' ')}; once it has ended, build the report: skillbench report "
                 f"{sweep_dir}")
            sys.exit(exit_code(exc))
        self._say_table(tasks, sweep_dir)
        return [self._outcome(task) for task in tasks]

    def _executor(self) -> Any:
        """submitit's SLURM executor with this sweep's parameters (as hydra-submitit-launcher builds it)."""
        import submitit
        from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf

        params = dict(self.params)
        limit_s, asked_s = int(params.get("timeout_min") or 0) * 60, int(params.get("signal_delay_s") or 0)
        delay_s = notice_delay_s(limit_s, asked_s)
        if delay_s != asked_s:
            # SIGUSR2 that early could reach a task while it starts, before any handler (its default action kills).
            log.info("signal_delay_s %d would let SLURM's advance notice reach a task in its first %d s (time limit "
                     "%d s): SIGUSR2 is asked for %d s before the limit", asked_s, NOTICE_START_S, limit_s, delay_s)
            params["signal_delay_s"] = delay_s
        executor = submitit.AutoExecutor(cluster="slurm", folder=params.pop("submitit_folder"),
                                         slurm_max_num_timeout=params.pop("max_num_timeout"))
        base = set(OmegaConf.structured(BaseQueueConf).keys())
        executor.update_parameters(**{name if name in base else f"slurm_{name}": value for name, value in params.items()})
        return executor

    def _watch(self, tasks: list[_Task], sweep_dir: Path) -> None:
        """Until every task has ended: its state from the queue, its result when it writes one."""
        waiting = list(tasks)
        unreachable = False
        while waiting:
            states = queue_states(task.job.job_id for task in waiting)
            if states is None and not unreachable:
                _say("cannot ask the SLURM controller about the tasks (squeue failed); waiting for their results")
            unreachable = states is None
            forgotten = [t for t in waiting if states is not None and t.job.job_id not in states and t.ended_at is None]
            if forgotten:  # ended longer than MinJobAge ago (this process was not polling): accounting may know
                states = {**(states or {}), **self._accounted(forgotten)}
            changed = False
            now = time.monotonic()
            for task in list(waiting):
                changed |= self._update(task, states.get(task.job.job_id) if states is not None else None, now)
                if self._ended(task, now):
                    waiting.remove(task)
                    self._conclude(task, sweep_dir)
                    changed = True
            if changed:
                self._write_tasks(sweep_dir, tasks)
            if waiting:
                time.sleep(self.poll_s)

    def _accounted(self, forgotten: list[_Task]) -> dict[str, TaskState]:
        """How tasks the queue no longer lists ended, from accounting; where it is off, "ended, state unknown"."""
        states = accounting_states(task.job.job_id for task in forgotten)
        if states is None and not self._accounting_said:
            _say(f"SLURM accounting is off here (sacct answers nothing), so a task that left the queue before this "
                 f"process saw it end is shown as {FORGOTTEN}; its folder says how far its job got")
            self._accounting_said = True
        states = states or {}
        return {t.job.job_id: states.get(t.job.job_id) or TaskState(t.job.job_id, FORGOTTEN) for t in forgotten}

    def _update(self, task: _Task, state: TaskState | None, now: float) -> bool:
        """Record what the queue says of ``task`` and say what its user needs to know; whether anything changed."""
        record = task.record
        if state is None:
            return False
        before = (record.state, record.reason, record.node)
        if state.state in ("PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED") and record.state in (
                "RUNNING", "COMPLETING", "NODE_FAIL", "PREEMPTED", "TIMEOUT"):
            record.requeued += 1
            task.ended_at = None
            _say(f"job #{task.idx} (SLURM task {state.job_id}) was requeued, now {state.describe()}: it resumes from "
                 "the store when it runs again")
        elif state.state == "PENDING" and state.reason.split(",")[0] not in USUAL_WAITS and (
                state.reason not in task.reasons_said):
            task.reasons_said.add(state.reason)
            _say(f"job #{task.idx} (SLURM task {state.job_id}) waits: {state.reason}. A node it needs is drained or down "
                 f"(sinfo -R says why): it starts once one can take it, or cancel it (scancel {state.job_id}) and rerun "
                 "the same command later")
        record.state, record.reason, record.node = state.state, state.reason, state.node or record.node
        if state.ended and task.ended_at is None:
            task.ended_at = now
        elif not state.ended:
            task.ended_at = None
        return before != (record.state, record.reason, record.node)

    def _ended(self, task: _Task, now: float) -> bool:
        folder = Path(task.job.paths.result_pickle).parent
        with contextlib.suppress(OSError):  # refreshes a network filesystem's view of the folder (as submitit does)
            folder.chmod(folder.stat().st_mode)
        if Path(task.job.paths.result_pickle).exists():
            return True
        return task.ended_at is not None and now - task.ended_at >= self.result_grace_s

    def _conclude(self, task: _Task, sweep_dir: Path) -> None:
        """A task has ended: its job's result if it wrote one, else its folder records why; one line says which."""
        from skillbench.plan.outcome import continue_hint

        record = task.record
        if Path(task.job.paths.result_pickle).exists():
            try:
                task.result = task.job.results()[0]
            except Exception as exc:  # the task failed outside the job (submitit could not run it): its log says why
                task.failure = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        if task.result is not None and record.state in ("SUBMITTED", "PENDING", "RUNNING", "COMPLETING"):
            record.state = "COMPLETED"  # its result is in; the queue has not said so yet
        job_dir = self._job_dir(task)
        record.folder = _relative(job_dir, sweep_dir)
        state = TaskState(record.task, record.state, record.reason, record.node).describe()
        head = f"job #{task.idx} (SLURM task {record.task}) {state}"
        record.outcome, detail = self._folder_outcome(task, job_dir, state)
        if record.outcome == "finished":
            _say(f"{head}: {job_dir}")
        elif record.outcome == "failed":
            _say(f"{head}: {detail}")
        else:
            log = sweep_dir / record.log
            _say(f"{head}: {detail}. {continue_hint(budget=False)}" + (f" (the task's log: {log})" if log.exists() else ""))

    def _folder_outcome(self, task: _Task, job_dir: Path, state: str) -> tuple[str, str]:
        """How far the task's job got, from its folder (written here when the job could not say it itself: the task
        ended under it, or before it started), and the words for it."""
        from skillbench.engine.results import JOB_ERROR_FILE, RESULTS_FILE, SUMMARY_FILE
        from skillbench.plan.outcome import INTERRUPTED_FILE, STOPPED_FILE
        from skillbench.store import write_json_atomic

        if task.result is not None and (job_dir / SUMMARY_FILE).exists():
            return "finished", ""
        rows = 0
        with contextlib.suppress(OSError):
            rows = (job_dir / RESULTS_FILE).read_bytes().count(b"\n")
        kept = f"{rows} finished row(s) kept in {job_dir}"
        for marker in (INTERRUPTED_FILE, STOPPED_FILE):  # the job stopped itself (a signal, the budget)
            with contextlib.suppress(OSError, ValueError):
                stop = json.loads((job_dir / marker).read_text(encoding="utf-8"))
                return "stopped", f"its job stopped ({stop.get('reason')}, {stop.get('signal', 'budget')}); {kept}"
        if (job_dir / JOB_ERROR_FILE).exists() and not task.failure:  # the job recorded its own failure
            return "failed", f"its job failed: see {job_dir / JOB_ERROR_FILE}"
        started = (job_dir / ".hydra").is_dir()
        if not started:  # cancelled (or lost) before it ran: its folder as Hydra would have begun it
            self._begin_folder(task, job_dir)
        ended = f"SLURM task {task.record.task} ended {state} " + ("before its job finished" if started else
                                                                    "before it started")
        error = f"{ended} ({task.failure})" if task.failure else ended
        write_json_atomic(job_dir / JOB_ERROR_FILE, {"error": error, "type": "SlurmTaskEnded", "traceback": None})
        return ("unfinished" if started else "not started",
                f"ended before its job {'finished; ' + kept if started else 'started; nothing was lost'}")

    def _job_dir(self, task: _Task) -> Path:
        hydra_cfg = task.result.hydra_cfg if task.result is not None else None
        output_dir = OmegaConf.select(hydra_cfg, "hydra.runtime.output_dir") if hydra_cfg is not None else None
        if output_dir:
            return Path(str(output_dir))
        assert self.hydra_context is not None and self.config is not None
        return job_folder(job_config(self.hydra_context, self.config, task.idx, task.overrides))

    def _begin_folder(self, task: _Task, job_dir: Path) -> None:
        """The job's folder with the files Hydra writes when a job starts (its config, Hydra's, its overrides), so
        the sweep's end, the report and the rerun see the job that did not run."""
        assert self.hydra_context is not None and self.config is not None
        config = job_config(self.hydra_context, self.config, task.idx, task.overrides)
        with read_write(config.hydra.runtime), open_dict(config.hydra.runtime):
            config.hydra.runtime.output_dir = str(job_dir)
        HydraConfig.instance().set_config(config)
        task_cfg = copy.deepcopy(config)
        with read_write(task_cfg), open_dict(task_cfg):
            del task_cfg["hydra"]
        hydra_dir = job_dir / str(config.hydra.output_subdir or ".hydra")
        hydra_dir.mkdir(parents=True, exist_ok=True)
        OmegaConf.save(task_cfg, hydra_dir / "config.yaml")
        OmegaConf.save(HydraConfig.instance().cfg, hydra_dir / "hydra.yaml")
        OmegaConf.save(config.hydra.overrides.task, hydra_dir / "overrides.yaml")

    def _outcome(self, task: _Task) -> JobReturn:
        if task.result is not None and task.result.status == JobStatus.COMPLETED:
            return task.result
        # Hydra would end the sweep on FAILED (no report): the job's folder says what happened, the sweep's end counts it.
        ret = JobReturn(overrides=task.overrides)
        ret.status, ret.return_value = JobStatus.COMPLETED, None
        return ret

    def _write_tasks(self, sweep_dir: Path, tasks: list[_Task]) -> None:
        from skillbench.store import write_text_atomic

        with contextlib.suppress(OSError):  # a view of the tasks; never a reason to stop watching them
            write_text_atomic(sweep_dir / TASKS_FILE, json.dumps([asdict(t.record) for t in tasks], indent=1) + "\n")

    def _say_table(self, tasks: list[_Task], sweep_dir: Path) -> None:
        rows = [(f"#{t.idx}", t.record.task, t.record.state + (f" ({t.record.reason})" if t.record.reason else ""),
                 t.record.node or "-", str(t.record.requeued), t.record.outcome, t.record.folder, t.record.log)
                for t in tasks]
        header = ("job", "task", "state", "node", "requeued", "job's outcome", "folder", "log")
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        _say(f"SLURM tasks of {sweep_dir} (also in {TASKS_FILE}):")
        for row in [header, *rows]:
            print("  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip(),
                  file=sys.stderr, flush=True)

    def _hand_over(self, sweep_dir: Path, arrays: list[str], claim: Any) -> None:
        """report_job=true: the report as its own SLURM job once the array has ended; this process ends here."""
        report_id = self._submit_report(sweep_dir, arrays)
        if claim is not None:
            claim.add_scheduler_jobs([report_id])
        log = sweep_dir / ".submitit" / f"report_{report_id}.log"
        _say(f"report: SLURM job {report_id} builds it in {sweep_dir / 'report'} once array {', '.join(arrays)} has "
             f"ended (its log: {log}). This process returns now; the sweep's folder stays owned by those jobs until "
             f"they end. Follow them: squeue --jobs={','.join([*arrays, report_id])}")
        sys.exit(0)

    def _submit_report(self, sweep_dir: Path, arrays: list[str]) -> str:
        params = self.params
        command = shlex.join([sys.executable, "-m", "skillbench.cli", "report", str(sweep_dir)])
        script = "\n".join([*(params.get("setup") or []), command])
        args = ["sbatch", "--parsable", f"--dependency=afterany:{':'.join(arrays)}", "--job-name=skillbench-report",
                f"--output={sweep_dir / '.submitit' / 'report_%j.log'}", "--open-mode=append", "--cpus-per-task=1",
                f"--mem={self.report_mem_gb}G", f"--time={self.report_timeout_min}",
                *(f"--{name}={params[name]}" for name in ("partition", "account", "qos") if params.get(name)),
                "--wrap", script]
        try:
            done = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            done = subprocess.CompletedProcess(args, 1, "", str(exc))
        if done.returncode != 0:
            arrays_text = ", ".join(arrays)
            _say(f"could not submit the report job ({done.stderr.strip() or 'sbatch failed'}); the array "
                 f"{arrays_text} runs on: once it has ended, build the report with: skillbench report {sweep_dir}")
            sys.exit(1)
        return done.stdout.strip().split(";")[0]


__all__ = ["TASKS_FILE", "SkillbenchSlurmConf", "SlurmLauncher", "TaskRecord", "TimeLimitNear", "notice_delay_s"]
