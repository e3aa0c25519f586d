"""A whole sweep in one event loop (``hydra/launcher=inflight``): the jobs' async cores side by side.

Jobs wait on model APIs, so one process carries many at once: Hydra's per-job setup (folder, ``.hydra`` files,
the job's config, the app's validation) runs job by job as under the basic launcher, but the app then hands back a
:class:`DeferredJob` instead of running it; :func:`run_deferred` runs up to ``max_jobs_in_flight`` of their cores
concurrently, each within the shared per-endpoint limiters, and ends each through the app's own ``conclude`` (its
markers, lines and return value exactly as the basic launcher's job would have them).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillbench.engine.signals import run_until_signal

NOT_STARTED = object()  # DeferredJob.start(): the sweep's budget is spent; the job leaves no folder
_deferring = False
_running = False
_current_job: contextvars.ContextVar[int | None] = contextvars.ContextVar("skillbench_inflight_job", default=None)


def in_flight() -> bool:
    """True while jobs' cores run side by side in this process (no job owns the terminal's live display)."""
    return _running


def deferring() -> bool:
    """True while the inflight launcher sets jobs up: the app returns a DeferredJob instead of running it."""
    return _deferring


@contextlib.contextmanager
def deferred_jobs() -> Iterator[None]:
    global _deferring
    _deferring = True
    try:
        yield
    finally:
        _deferring = False


@dataclass
class DeferredJob:
    """A validated job whose core has not run: the app's halves around the engine's ``run_job_async``."""

    start: Callable[[], Any]  # the sweep's spend for the core (engine/budget.py SweepSpend), or NOT_STARTED
    core: Callable[[Any], Coroutine[Any, Any, Any]]  # that spend -> the job's summary
    conclude: Callable[[Callable[[], Any]], Any]  # outcome -> the task function's return value
    abandon: Callable[[], None]  # never started (the sweep was interrupted first): remove its Hydra files
    log_handlers: list[logging.Handler] = field(default_factory=list)  # its console and skillbench.log


class _PerJobHandler(logging.Handler):
    """The root logger's one handler while cores run side by side: each record goes to the handlers Hydra set
    up for the job that logged it (its console line and its own skillbench.log), the launcher's own to ``default``."""

    def __init__(self, jobs: Sequence[DeferredJob], default: list[logging.Handler]) -> None:
        super().__init__()
        self.jobs, self.default = jobs, default

    def emit(self, record: logging.LogRecord) -> None:
        index = _current_job.get()
        for handler in self.jobs[index].log_handlers if index is not None else self.default:
            if record.levelno >= handler.level:
                handler.handle(record)


def _raiser(exc: BaseException) -> Callable[[], Any]:
    def outcome() -> Any:
        raise exc
    return outcome


def run_deferred(jobs: Sequence[DeferredJob], max_in_flight: int) -> list[Any]:
    """Run the jobs' cores, at most ``max_in_flight`` at once, in job order; each job's conclude() result.

    Ctrl-C or SIGTERM cancels every running core (each keeps its finished rows), concludes each as interrupted,
    removes the folders of jobs that never started, and re-raises for the sweep's own end (exit 130 or 143)."""
    results: list[Any] = [None] * len(jobs)
    started: set[int] = set()
    interrupted: list[int] = []
    slots = asyncio.Semaphore(max(1, max_in_flight if max_in_flight > 0 else len(jobs)))

    async def one(index: int) -> None:
        job = jobs[index]
        async with slots:
            _current_job.set(index)
            sweep_spend = job.start()
            started.add(index)
            if sweep_spend is NOT_STARTED:
                return
            try:
                summary = await job.core(sweep_spend)
            except asyncio.CancelledError:
                interrupted.append(index)
                raise
            except Exception as exc:  # the app's conclude records it (job_error.json), as after a basic job
                results[index] = job.conclude(_raiser(exc))
                return
            results[index] = job.conclude(lambda: summary)

    async def all_jobs() -> None:
        await asyncio.gather(*(one(index) for index in range(len(jobs))))

    global _running
    root = logging.getLogger()
    before = list(root.handlers)
    root.handlers = [_PerJobHandler(jobs, before)]
    _running = True
    try:
        run_until_signal(all_jobs())
    except KeyboardInterrupt as exc:
        for index in interrupted:
            _current_job.set(index)
            with contextlib.suppress(KeyboardInterrupt):
                jobs[index].conclude(_raiser(exc))  # interrupted.json, its line; then re-raises
        _current_job.set(None)
        for index, job in enumerate(jobs):
            if index not in started:
                job.abandon()
        raise
    finally:
        _running = False
        _current_job.set(None)
        root.handlers = before
    return results
