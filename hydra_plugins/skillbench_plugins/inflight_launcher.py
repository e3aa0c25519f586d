"""A Hydra launcher that runs a whole sweep in flight: many jobs at once in one process and one event loop.

Jobs are I/O-bound (they wait on model APIs), so the grid's wall time approaches the slowest endpoint's share of
the work, not the sum over jobs. Hydra's per-job setup (folder, ``.hydra`` files, per-job logging, the app's
validation) runs one job after another exactly as ``hydra/launcher=basic`` runs it, since it goes through Hydra's
global singletons; the app then hands back the job's core (skillbench/engine/inflight.py) and this launcher runs
up to ``max_jobs_in_flight`` cores side by side, each within the per-endpoint limiters all jobs share. Each job
writes its own folder and summary and returns what it would under the basic launcher, so the sweep's end (report,
outcome line, exit code), resume, budgets and Ctrl-C/SIGTERM behave as they do there.

Per-process state is not per job while the cores run: ``hydra.job.env_set`` applies during a job's setup only, and
with ``hydra.job.chdir=true`` the cores run in the sweep's working directory (the engine writes to absolute job
folders, so neither changes what a job writes).
"""

# No `from __future__ import annotations`: Hydra scans plugin modules before they are in sys.modules.
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from hydra.core.config_store import ConfigStore
from hydra.core.utils import JobReturn, JobStatus, filter_overrides, run_job

from hydra_plugins.skillbench_plugins._launch import SweepLauncher, warm_up

log = logging.getLogger(__name__)


@dataclass
class InflightLauncherConf:
    _target_: str = "hydra_plugins.skillbench_plugins.inflight_launcher.InflightLauncher"
    max_jobs_in_flight: int = 16  # jobs whose conversations run at once; <= 0: every job of the sweep
    # "module:function" run in a thread while the jobs run (they wait on model APIs): the sweep's end does not
    # begin with it (the report's imports)
    while_jobs_run: str | None = None


ConfigStore.instance().store(group="hydra/launcher", name="inflight_base", node=InflightLauncherConf,
                             provider="skillbench")


class InflightLauncher(SweepLauncher):
    def __init__(self, max_jobs_in_flight: int = 16, while_jobs_run: str | None = None) -> None:
        self.max_jobs_in_flight = max_jobs_in_flight
        self.while_jobs_run = while_jobs_run

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        from skillbench.engine.inflight import DeferredJob, deferred_jobs, run_deferred

        sweep_dir = self.start_sweep()
        assert self.hydra_context is not None and self.task_function is not None
        at_once = self.max_jobs_in_flight if self.max_jobs_in_flight > 0 else len(job_overrides)
        log.info("Launching %d job(s), up to %d in flight in this process, sweep output dir: %s",
                 len(job_overrides), at_once, sweep_dir)
        returns: list[JobReturn] = []
        deferred: list[tuple[JobReturn, DeferredJob]] = []
        for idx, overrides in enumerate(job_overrides, start=initial_job_idx):
            log.info("\t#%d : %s", idx, " ".join(filter_overrides(overrides)))
            sweep_config = self.job_config(idx, list(overrides))
            with deferred_jobs():
                ret = run_job(hydra_context=self.hydra_context, task_function=self.task_function,
                              config=sweep_config, job_dir_key="hydra.sweep.dir", job_subdir_key="hydra.sweep.subdir")
            returns.append(ret)
            if ret.status == JobStatus.COMPLETED and isinstance(ret._return_value, DeferredJob):
                job = ret._return_value
                job.log_handlers = list(logging.getLogger().handlers)  # this job's console and skillbench.log
                deferred.append((ret, job))
        warming = None
        if self.while_jobs_run and deferred:
            warming = threading.Thread(target=warm_up, args=(self.while_jobs_run,), daemon=True)
            warming.start()
        try:
            for ret, value in zip((r for r, _ in deferred),
                                  run_deferred([job for _, job in deferred], at_once), strict=True):
                ret.return_value = value
        finally:
            if warming is not None:
                warming.join()
        return returns
