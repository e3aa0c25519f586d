"""A budget that holds: reserve each conversation's expected cost before it starts; stop every conversation in
flight the moment the spend reaches the budget.

The spend counted is every answered request's cost as it ends (``Progress.observe``), this job's plus, in a sweep,
what the sweep's other jobs spent or are spending (their ``summary.json``, ``stopped.json`` or, while they run,
the ``spending.json`` each job keeps current in its folder: so jobs of the parallel launcher running side by side
see each other's spend). The guarantee: the spend exceeds the budget by at most the price of the calls already in
flight when it was reached (their replies may still be billed by the provider as they are cancelled).

- **Reservation.** A conversation starts only if what is spent, plus the expected cost still to come of the
  conversations in flight, plus its own expected cost, fits in the budget; otherwise it waits for one in flight to
  end, and once nothing is in flight and it still does not fit, it does not start. The expected cost of a
  conversation is the mean of this job's finished, paid conversations; before the first one finishes nothing is
  known, so conversations start while the spend is under the budget (and the cap below bounds them).
- **Cap.** When the spend reaches the budget every conversation in flight is cancelled: its calls stop, nothing
  of it is stored, it has no row (unfinished: the rerun command does it), ``stopped.json`` and exit 3 follow.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from skillbench.engine.progress import Progress
from skillbench.store import write_json_atomic

SPENDING_FILE = "spending.json"  # a running job's spend so far, for the other jobs of its sweep
_OTHERS_EVERY_S = 0.05  # the siblings' files are read at most this often (a sweep may have many)


class BudgetGuard:
    """Decides whether a conversation may start, and says when the budget is reached (``reached``)."""

    def __init__(self, budget_usd: float, progress: Progress, job_dir: Path | None = None,
                 spent_elsewhere: Callable[[], float] | None = None) -> None:
        self.budget_usd = budget_usd
        self.progress = progress
        self.job_dir = job_dir
        self.spent_elsewhere = spent_elsewhere
        self.reached = asyncio.Event()
        self.changed = asyncio.Event()
        self.in_flight = 0
        self.stopped_in_flight = 0
        self._paid: list[float] = []  # cost of each finished conversation that cost anything
        self._finished_cost = 0.0
        self._others = 0.0
        self._others_at = -1.0

    # ------------------------------------------------------------------------------------------ the spend
    def others(self) -> float:
        if self.spent_elsewhere is None:
            return 0.0
        now = time.monotonic()
        if now - self._others_at >= _OTHERS_EVERY_S:
            with contextlib.suppress(Exception):  # a sibling's half-written folder never stops this job
                self._others = self.spent_elsewhere()
            self._others_at = now
        return self._others

    def spent(self) -> float:
        return self.progress.cost_usd + self.others()

    def expected(self) -> float | None:
        return sum(self._paid) / len(self._paid) if self._paid else None

    def outstanding(self) -> float:
        """Expected cost still to come of the conversations in flight."""
        expected = self.expected()
        if expected is None:
            return 0.0
        in_flight_spend = max(0.0, self.progress.cost_usd - self._finished_cost)
        return max(0.0, expected * self.in_flight - in_flight_spend)

    # ------------------------------------------------------------------------------------------ the hooks
    def observed(self) -> None:
        """After every request (``Progress`` calls it): note the spend; at the cap, stop what is in flight."""
        self.write_spending()  # every call: a sibling job must see it before its own next call
        if self.spent() >= self.budget_usd and not self.reached.is_set():
            self.reached.set()
            self.changed.set()

    def write_spending(self) -> None:
        if self.job_dir is None:
            return
        with contextlib.suppress(OSError):
            write_json_atomic(self.job_dir / SPENDING_FILE, {"spent_usd": self.progress.cost_usd})

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
                return False
            self.changed.clear()
            await self.changed.wait()

    def _decide(self) -> Literal["start", "wait", "stop"]:
        spent = self.spent()
        if spent >= self.budget_usd or self.reached.is_set():
            return "stop"
        expected = self.expected()
        if expected is None or spent + self.outstanding() + expected <= self.budget_usd:
            return "start"
        return "wait" if self.in_flight else "stop"

    def close(self) -> None:
        if self.job_dir is not None:
            (self.job_dir / SPENDING_FILE).unlink(missing_ok=True)


def read_spending(job_dir: Path) -> float | None:
    """A running job's spend so far (None when it keeps none)."""
    try:
        return float(json.loads((job_dir / SPENDING_FILE).read_text(encoding="utf-8"))["spent_usd"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
