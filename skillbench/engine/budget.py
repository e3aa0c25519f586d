"""A budget that holds: reserve each conversation's expected cost before it starts; stop every conversation in
flight, and send no request more, the moment the spend reaches the budget.

The spend counted is every request the provider answered, as it ends (``Progress.observe``): from its usage, or,
for a request cancelled after it was sent (the cap's own stop, Ctrl-C), from its size, since a provider bills a
generation the client abandoned (``ModelClient._count_abandoned``). In a sweep it is this run's spend of every job
(:class:`SweepSpend`). The guarantee: the spend, recorded and billed, exceeds the budget by at most the price of the
requests already in flight when it was reached (docs/paid-runs.md "Budget" has the measured table).

- **Reservation.** A conversation starts only if what is spent, plus the expected cost still to come of the
  conversations in flight, plus its own expected cost, fits in the budget; otherwise it waits for one in flight to
  end, and once nothing is in flight and it still does not fit, it does not start. The expected cost of a
  conversation is the mean of this job's finished, paid conversations; before the first one finishes nothing is
  known, so conversations start while the spend is under the budget (and the cap below bounds them).
- **Cap.** Checked as every request ends and before every request is sent (``models.call_path.SEND_GATE``): when
  the spend reaches the budget, every conversation in flight is cancelled at once — this job's, and those of the
  sweep's other jobs in this process (the inflight launcher); jobs in other processes find it at their next check —
  its calls stop, nothing of it is stored, it has no row (unfinished: the rerun does it), ``stopped.json`` and exit
  3 follow.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skillbench.engine.progress import Progress
from skillbench.store import write_json_atomic

log = logging.getLogger("skillbench.job")

SPENDING_FILE = "spending.json"  # a job's spend in one run of its sweep: current while it runs, kept when it ends
SWEEP_RUN_ENV = "SKILLBENCH_SWEEP_RUN"  # names one run of a sweep (set by the sweep's process, inherited by workers)
_SCAN_EVERY_S = 0.05  # how often the sweep folder is looked through for jobs of this run started in other processes

JobState = Literal["running", "stopped", "ended"]  # stopped: by the budget (the jobs after it do not start)


@dataclass(frozen=True)
class Spending:
    """A job's ``spending.json``: what it spent in run ``run`` of its sweep, and how it stands."""

    run: str
    spent_usd: float
    state: JobState
    reached_at: float | None = None  # epoch seconds at which this job found the budget reached


def read_spending(job_dir: Path) -> Spending | None:
    """A job's spending.json (None when it has none or it is unreadable)."""
    try:
        data = json.loads((job_dir / SPENDING_FILE).read_text(encoding="utf-8"))
        return Spending(run=str(data["run"]), spent_usd=float(data["spent_usd"]), state=data["state"],
                        reached_at=data.get("reached_at"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


# This process's budget guards per sweep run: the jobs before this one (basic launcher, a parallel worker's earlier
# jobs) and those beside it in one event loop (inflight launcher) are read from here, at once and without files.
_IN_PROCESS: dict[str, dict[Path, BudgetGuard]] = {}


class SweepSpend:
    """The rest of one run of a sweep as one job sees it: what its other jobs spent, and whether the budget stopped
    one of them. Jobs of this process are read from their guards; jobs of other processes (parallel workers, submitit
    and SLURM tasks) from the ``spending.json`` each keeps current, read again at every check while they run. A file
    of another run (the same sweep run before, being rerun now) is never this run's: a rerun counts its own spend."""

    def __init__(self, sweep_dir: Path, job_dir: Path, run: str) -> None:
        self.sweep_dir, self.job_dir, self.run = sweep_dir, job_dir, run
        self._running: list[Path] = []  # other processes' jobs of this run, still running
        self._ended: dict[Path, Spending] = {}  # other processes' jobs of this run that ended (their files are final)
        self._foreign: dict[Path, int] = {}  # folders without a file of this run: its mtime (-1: none) when looked at
        self._scanned = -1.0

    def _local(self) -> dict[Path, BudgetGuard]:
        return {path: guard for path, guard in _IN_PROCESS.get(self.run, {}).items() if path != self.job_dir}

    def _scan(self, local: dict[Path, BudgetGuard]) -> None:
        """Find the jobs of this run that other processes started (at most every ``_SCAN_EVERY_S``)."""
        now = time.monotonic()
        if now - self._scanned < _SCAN_EVERY_S:
            return
        self._scanned = now
        known = {*self._running, *self._ended, *local, self.job_dir}
        with contextlib.suppress(OSError):  # a folder being created or removed never stops a job
            for entry in os.scandir(self.sweep_dir):
                job = Path(entry.path)
                if job in known or not entry.is_dir():
                    continue
                try:
                    stamp = (job / SPENDING_FILE).stat().st_mtime_ns
                except OSError:
                    stamp = -1  # none yet (a job not started, or started before budgets were kept)
                if self._foreign.get(job) == stamp:
                    continue  # another run's file, unchanged: not read again
                found = read_spending(job) if stamp != -1 else None
                if found is not None and found.run == self.run:
                    self._running.append(job)
                else:
                    self._foreign[job] = stamp

    def spent(self) -> float:
        """Dollars this run's other jobs have spent (running, stopped or finished), as of now."""
        local = self._local()
        self._scan(local)
        total = sum(guard.progress.cost_usd for guard in local.values())
        running: list[Path] = []
        for job in self._running:
            found = read_spending(job)
            if found is None or found.run != self.run:  # being replaced this instant: read again next time
                running.append(job)
                continue
            if found.state == "running":
                total += found.spent_usd
                running.append(job)
            else:
                self._ended[job] = found  # counted below, with the others that ended
        self._running = running
        return total + sum(found.spent_usd for found in self._ended.values())

    def stopped(self) -> bool:
        """Whether the budget stopped a job of this run (the jobs after it do not start)."""
        self.spent()
        return (any(guard.state() == "stopped" for guard in self._local().values())
                or any(found.state == "stopped" for found in self._ended.values()))

    def reached(self) -> float | None:
        """When a job of this run found the budget reached (epoch seconds; None: none has)."""
        times = [guard.reached_at for guard in self._local().values() if guard.reached_at is not None]
        times += [found.reached_at for found in self._ended.values() if found.reached_at is not None]
        return min(times) if times else None


class BudgetGuard:
    """Decides whether a conversation may start and a request may be sent; stops the conversations in flight at the
    cap through ``stop_conversations`` (set by the job: it cancels them)."""

    def __init__(self, budget_usd: float, progress: Progress, sweep: SweepSpend | None = None) -> None:
        self.budget_usd = budget_usd
        self.progress = progress
        self.sweep = sweep
        self.changed = asyncio.Event()
        self.in_flight = 0
        self.stopped_in_flight = 0
        self.reached_at: float | None = None  # epoch seconds at which the spend reached the budget
        self.refused = False  # a conversation did not start: its expected cost no longer fitted
        self.finished_all = False
        self.stop_conversations: Callable[[], None] | None = None
        self._sent: deque[float] = deque(maxlen=4096)  # when the gate let the latest requests go (epoch seconds)
        self._paid: list[float] = []  # cost of each finished conversation that cost anything
        self._finished_cost = 0.0
        if sweep is not None:
            _IN_PROCESS.setdefault(sweep.run, {})[sweep.job_dir] = self
            self._write()

    # ------------------------------------------------------------------------------------------ the spend
    @property
    def reached(self) -> bool:
        return self.reached_at is not None

    def spent(self) -> float:
        """This job's spend plus, in a sweep, this run's other jobs'."""
        return self.progress.cost_usd + (self.sweep.spent() if self.sweep is not None else 0.0)

    def expected(self) -> float | None:
        return sum(self._paid) / len(self._paid) if self._paid else None

    def outstanding(self) -> float:
        """Expected cost still to come of the conversations in flight."""
        expected = self.expected()
        if expected is None:
            return 0.0
        in_flight_spend = max(0.0, self.progress.cost_usd - self._finished_cost)
        return max(0.0, expected * self.in_flight - in_flight_spend)

    def state(self) -> JobState:
        if self.finished_all:
            return "ended"
        return "stopped" if self.reached or self.refused else "running"

    # ------------------------------------------------------------------------------------------ the cap
    def check(self) -> bool:
        """True once the budget is reached; the first time, every conversation in flight is stopped at once: this
        job's and those of this run's other jobs in this process."""
        if self.reached:
            return True
        if self.spent() < self.budget_usd:
            return False
        self._reach()
        if self.sweep is not None:
            for guard in self.sweep._local().values():
                if not guard.reached:
                    guard._reach()
        return True

    def _reach(self) -> None:
        self.reached_at = time.time()
        self.stopped_in_flight = self.in_flight
        self.changed.set()
        if self.in_flight:
            log.warning("budget reached: stopping %d conversation(s) in flight (unfinished; the rerun does them)",
                        self.in_flight)
        if self.stop_conversations is not None:
            self.stop_conversations()
        self._write()

    def may_send(self) -> bool:
        """The send gate (``models.call_path.SEND_GATE``): False once the budget is reached."""
        if self.check():
            return False
        self._sent.append(time.time())
        return True

    def sent_after_cap(self) -> int:
        """Requests this job sent after a job of its sweep (in another process) had found the budget reached, before
        this one found it too: the price of the cap shared through files (none in one process)."""
        times = [t for t in (self.reached_at, self.sweep.reached() if self.sweep is not None else None) if t is not None]
        return sum(sent >= min(times) for sent in self._sent) if times else 0

    # ------------------------------------------------------------------------------------------ the hooks
    def observed(self) -> None:
        """After every request that cost something (``Progress`` calls it): keep the spend current for the sweep's
        other jobs, then check the cap."""
        self._write()
        self.check()

    def finished(self, cost_usd: float, *, reused: bool) -> None:
        self.in_flight -= 1
        self._finished_cost += cost_usd
        if cost_usd > 0 and not reused:
            self._paid.append(cost_usd)
        self.changed.set()

    async def admit(self) -> bool:
        """Wait until this conversation's expected cost fits (True) or never will (False)."""
        while True:
            decision = self._decide()
            if decision == "start":
                self.in_flight += 1
                return True
            if decision == "stop":
                self.refused = True
                return False
            self.changed.clear()
            await self.changed.wait()

    def _decide(self) -> Literal["start", "wait", "stop"]:
        if self.check():
            return "stop"
        expected = self.expected()
        if expected is None or self.spent() + self.outstanding() + expected <= self.budget_usd:
            return "start"
        return "wait" if self.in_flight else "stop"

    def close(self, *, finished_all: bool) -> None:
        """The job's end: its spending.json keeps its final spend and whether the budget stopped it."""
        self.finished_all = finished_all
        self._write()

    def _write(self) -> None:
        sweep = self.sweep
        if sweep is None:
            return
        with contextlib.suppress(OSError):
            write_json_atomic(sweep.job_dir / SPENDING_FILE, {
                "run": sweep.run, "spent_usd": self.progress.cost_usd, "state": self.state(),
                "reached_at": self.reached_at,
            })
