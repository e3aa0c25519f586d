"""A Hydra launcher that runs a sweep's jobs in worker processes forked from the launching process.

hydra-joblib-launcher always starts fresh interpreters (its backend is hard-coded to loky), so every worker
pays the imports again (litellm alone is seconds) before its first job, and each job another second of
dispatch. Forked after ``preload`` has imported what every job needs, a worker starts its first job at once.
POSIX only (``fork``); each worker runs one job at a time, exactly as ``hydra/launcher=basic`` runs it.

The launching process hands out one job at a time to an idle worker, so on Ctrl-C (or SIGTERM, which
skillbench.plan.callback passes on to the workers) it stops handing out jobs, lets each worker end its own job (the
job's own interrupt handling keeps what it finished), and re-raises: skillbench.app.run_app writes the report over
what finished and exits 130 (143) without a traceback. A worker that dies (killed, out of memory) takes only its job with it: the job's
folder records it as crashed, a fresh worker takes the remaining jobs, and the sweep's end counts it (exit 1).
"""

# No `from __future__ import annotations`: Hydra scans plugin modules before they are in sys.modules, where
# dataclasses would look string annotations up.
import contextlib
import gc
import logging
import multiprocessing
import os
import sys
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait

from hydra.core.config_store import ConfigStore
from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import JobReturn, JobStatus, filter_overrides, run_job, setup_globals

from hydra_plugins.skillbench_plugins._launch import SweepLauncher, call_target, job_folder, warm_up

log = logging.getLogger(__name__)


@dataclass
class ForkLauncherConf:
    _target_: str = "hydra_plugins.skillbench_plugins.fork_launcher.ForkLauncher"
    n_jobs: int = -1  # workers: -1 = one per core
    preload: str | None = None  # "module:function" called once before forking (imports every job needs)
    # "module:function" this process calls in a thread while its workers run: what it needs once they are done
    while_workers_run: str | None = None


ConfigStore.instance().store(group="hydra/launcher", name="fork", node=ForkLauncherConf, provider="skillbench")


def _run_one(launcher: "ForkLauncher", idx: int, overrides: list[str]) -> JobReturn:
    assert launcher.hydra_context is not None and launcher.task_function is not None
    setup_globals()
    sweep_config = launcher.job_config(idx, overrides)
    HydraConfig.instance().set_config(sweep_config)
    return run_job(hydra_context=launcher.hydra_context, config=sweep_config, task_function=launcher.task_function,
                   job_dir_key="hydra.sweep.dir", job_subdir_key="hydra.sweep.subdir")


def _serve(launcher: "ForkLauncher", conn: Connection) -> None:
    """A worker: run each job the parent sends until it sends None (the launcher state came with the fork).
    Ctrl-C reaches the job itself (which keeps what it finished and exits); an idle worker just ends."""
    try:
        while (item := conn.recv()) is not None:
            idx, overrides = item
            conn.send((idx, _run_one(launcher, idx, overrides)))
    except (KeyboardInterrupt, EOFError):
        pass


def _lost(launcher: "ForkLauncher", idx: int, overrides: list[str], why: str) -> JobReturn:
    """A job whose worker died (killed, out of memory): recorded in its folder as the app records a crashed job,
    so the sweep goes on and its end counts the job as crashed (exit 1), as it counts any job that crashed."""
    from skillbench.engine.results import JOB_ERROR_FILE
    from skillbench.store import write_json_atomic

    job_dir = job_folder(launcher.job_config(idx, overrides))
    message = f"job #{idx} ({' '.join(filter_overrides(overrides))}): {why}"
    if job_dir.is_dir():
        write_json_atomic(job_dir / JOB_ERROR_FILE, {"error": why, "type": "WorkerDied", "traceback": None})
    print(f"skillbench: {message}; the sweep goes on", file=sys.stderr, flush=True)
    ret = JobReturn(overrides=overrides)
    ret.status = JobStatus.COMPLETED  # Hydra would abort the sweep on FAILED; the folder says what happened
    ret.return_value = None
    return ret


class ForkLauncher(SweepLauncher):
    def __init__(self, n_jobs: int = -1, preload: str | None = None, while_workers_run: str | None = None) -> None:
        self.n_jobs = n_jobs
        self.preload = preload
        self.while_workers_run = while_workers_run

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        sweep_dir = self.start_sweep()
        if self.preload:
            call_target(self.preload)
        # Before fork, as the gc module advises: a worker's collections then never walk (and so copy) the parent's
        # objects. Without it each worker's first collection walked all of litellm's: a second before its first job.
        gc.freeze()
        wanted = self.n_jobs if self.n_jobs > 0 else os.cpu_count() or 1
        count = max(1, min(len(job_overrides), wanted))
        log.info("Forking %d worker(s) for %d job(s), sweep output dir: %s", count, len(job_overrides), sweep_dir)
        for idx, overrides in enumerate(job_overrides):
            log.info("\t#%d : %s", initial_job_idx + idx, " ".join(filter_overrides(overrides)))
        pending = deque((initial_job_idx + idx, list(overrides)) for idx, overrides in enumerate(job_overrides))
        context = multiprocessing.get_context("fork")
        workers: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
        warming: threading.Thread | None = None

        def fork() -> Connection:
            if warming is not None:
                warming.join()  # never fork while that thread may hold an import lock the child would wait on
            parent_end, child_end = context.Pipe()
            process = context.Process(target=_serve, args=(self, child_end))
            process.start()
            child_end.close()
            workers.append((process, parent_end))
            return parent_end

        for _ in range(count):
            fork()
        if self.while_workers_run:
            # The workers have the cores; this process only waits for them, and its work after the sweep (the
            # report's imports) costs them half as much wall time here as it would cost the sweep after its last job.
            warming = threading.Thread(target=warm_up, args=(self.while_workers_run,), daemon=True)
            warming.start()
        results: dict[int, JobReturn] = {}
        running: dict[Connection, tuple[int, list[str]]] = {}
        try:
            for _, conn in workers:
                if pending:
                    running[conn] = pending.popleft()
                    conn.send(running[conn])
            while running:
                sentinels = {process.sentinel: conn for process, conn in workers}
                busy = [*running, *(sentinel for sentinel, conn in sentinels.items() if conn in running)]
                for ready in wait(busy):
                    conn = sentinels.get(ready, ready)  # type: ignore[call-overload]
                    if conn not in running:
                        continue  # its reply and its exit were both ready: handled once
                    idx, overrides = running.pop(conn)
                    try:
                        _, ret = conn.recv()
                    except EOFError:  # the worker died (killed, out of memory): only its job is lost
                        process = next(p for p, c in workers if c is conn)
                        process.join(timeout=5)
                        results[idx] = _lost(self, idx, overrides, f"its worker process died (exit {process.exitcode})")
                        if pending:  # a fresh worker, forked from this preloaded process, takes its place
                            conn = fork()
                            running[conn] = pending.popleft()
                            conn.send(running[conn])
                        continue
                    results[idx] = ret
                    if pending:
                        running[conn] = pending.popleft()
                        conn.send(running[conn])
        except KeyboardInterrupt:
            # Each worker got the same Ctrl-C (or the SIGTERM this process passed on) and is ending its own job, which
            # keeps its finished rows; the sweep's process then ends the sweep (skillbench.app.run_app: the report
            # over what finished, the line that continues it, exit 130 or 143).
            for process, _ in workers:
                process.join(timeout=60)
            raise
        finally:
            for process, conn in workers:
                if process.is_alive():
                    with contextlib.suppress(BrokenPipeError, OSError):  # it is ending on its own
                        conn.send(None)
            for process, conn in workers:
                process.join(timeout=60)
                if process.is_alive():
                    process.terminate()
                conn.close()
            if warming is not None:
                warming.join()
        return [results[initial_job_idx + idx] for idx in range(len(job_overrides))]
