"""Periodic one-line progress for long jobs: conversations done, rate, ETA, calls per role, cost, errors.

Never per call. The counters move when a conversation finishes (its usage is known then); the first
line is written at once so that a slow first conversation does not look like a hang.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from skillbench.core.errors import SkillbenchError
from skillbench.core.records import ROLES, Usage

log = logging.getLogger("skillbench.progress")


class BudgetReached(SkillbenchError):
    """The job (or its sweep) spent ``run.budget_usd``; finished rows are kept, the rest did not start."""

    def __init__(self, spent_usd: float, budget_usd: float, done: int, total: int) -> None:
        super().__init__(f"budget reached: ${spent_usd:.4f} spent of ${budget_usd:.4f}; {done} of {total} conversations finished")
        self.spent_usd, self.budget_usd, self.done, self.total = spent_usd, budget_usd, done, total


@dataclass
class Progress:
    total: int
    done: int = 0
    infra_errors: int = 0
    judge_errors: int = 0
    usage: dict[str, Usage] = field(default_factory=lambda: {role: Usage() for role in ROLES})
    started: float = field(default_factory=time.perf_counter)
    budget_usd: float | None = None
    label: str = ""  # "job 3 of 85: " in a sweep

    def record(self, usage: dict[str, Usage], *, infra_error: bool, judge_error: bool) -> None:
        self.done += 1
        self.infra_errors += infra_error
        self.judge_errors += judge_error
        for role, value in usage.items():
            self.usage[role] = self.usage[role].add(value)

    @property
    def cost_usd(self) -> float:
        return sum(u.cost_usd for u in self.usage.values())

    def over_budget(self) -> bool:
        """True once the finished conversations cost the budget (conversations in flight still finish)."""
        return self.budget_usd is not None and self.cost_usd >= self.budget_usd

    def line(self) -> str:
        elapsed = time.perf_counter() - self.started
        calls = sum(u.calls for u in self.usage.values())
        hits = sum(u.cache_hits for u in self.usage.values())
        per_role = " ".join(f"{role}={u.calls}" for role, u in self.usage.items() if u.calls)
        rate = self.done / elapsed * 60 if elapsed > 0 else 0.0
        eta = f"ETA {(self.total - self.done) / (self.done / elapsed):.0f}s" if self.done and self.done < self.total else ""
        budget = f" of ${self.budget_usd:.2f}" if self.budget_usd is not None else ""
        return (
            f"{self.label}{self.done}/{self.total} conversations | {rate:.1f}/min {eta} | LLM calls {calls} "
            f"({per_role or 'none yet'}) | cache hits {hits} | ${self.cost_usd:.4f}{budget} | "
            f"errors: infra {self.infra_errors}, judge {self.judge_errors} | {elapsed:.1f}s"
        ).replace("  ", " ")

    async def report_every(self, interval_s: float) -> None:
        log.info("%sstarting %d conversation(s)", self.label, self.total)
        while True:
            await asyncio.sleep(interval_s)
            log.info(self.line())
