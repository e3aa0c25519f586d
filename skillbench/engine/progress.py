"""Periodic one-line progress for long jobs: scenarios done, calls, cache hits, errors. Never per call."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from skillbench.core.records import ROLES, Usage

log = logging.getLogger("skillbench.progress")


@dataclass
class Progress:
    total: int
    done: int = 0
    infra_errors: int = 0
    judge_errors: int = 0
    usage: dict[str, Usage] = field(default_factory=lambda: {role: Usage() for role in ROLES})
    started: float = field(default_factory=time.perf_counter)

    def record(self, usage: dict[str, Usage], *, infra_error: bool, judge_error: bool) -> None:
        self.done += 1
        self.infra_errors += infra_error
        self.judge_errors += judge_error
        for role, value in usage.items():
            self.usage[role] = self.usage[role].add(value)

    def line(self) -> str:
        calls = sum(u.calls for u in self.usage.values())
        hits = sum(u.cache_hits for u in self.usage.values())
        per_role = " ".join(f"{role}={u.calls}" for role, u in self.usage.items() if u.calls)
        return (
            f"{self.done}/{self.total} scenarios | LLM calls {calls} ({per_role or 'none'}) | cache hits {hits} | "
            f"errors: infra {self.infra_errors}, judge {self.judge_errors} | {time.perf_counter() - self.started:.1f}s"
        )

    async def report_every(self, interval_s: float) -> None:
        while True:
            await asyncio.sleep(interval_s)
            log.info(self.line())
