"""Injected tool failures: random (seeded), the first N calls of a tool, and timeouts."""

from __future__ import annotations

import hashlib

from skillbench.benchmark.schema import Scenario
from skillbench.config.schema import MockConfig
from skillbench.core.records import ToolErrorKind


def _unit(seed: int, scenario_id: str, call_index: int) -> float:
    """A number in [0, 1) fixed by (seed, scenario, call index): same run → same failures, any process."""
    digest = hashlib.blake2b(f"{seed}:{scenario_id}:{call_index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


class FailureInjector:
    """Decides, per valid call, whether it times out or fails. Keeps the per-tool call counts."""

    def __init__(self, mock: MockConfig, scenario: Scenario, seed: int) -> None:
        failures = mock.failures
        self.rate = failures.rate
        self.message = failures.error_message
        self.timeout_tools = frozenset(failures.timeout_tools)
        self.fail_first: dict[str, int] = dict(failures.fail_first)
        if mock.honor_scenario_failures:
            # A scenario's own failures (tool_failure path) and the config's combine: the larger count wins.
            for tool, count in scenario.tool_failures.items():
                self.fail_first[tool] = max(count, self.fail_first.get(tool, 0))
        self.seed = seed
        self.scenario_id = scenario.id
        self.counts: dict[str, int] = {}

    def decide(self, tool: str, call_index: int) -> ToolErrorKind | None:
        """``timeout``, ``injected`` or None (the call goes through). Counts the call for ``fail_first``."""
        if tool in self.timeout_tools:
            return "timeout"
        seen = self.counts[tool] = self.counts.get(tool, 0) + 1
        if seen <= self.fail_first.get(tool, 0):
            return "injected"
        if self.rate > 0.0 and _unit(self.seed, self.scenario_id, call_index) < self.rate:
            return "injected"
        return None
