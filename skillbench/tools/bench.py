"""Measure the mock tool layer's own cost: session setup and per-call overhead (stateful mode, no latency).

    python -m skillbench.tools.bench [--sessions 300] [--scenario hc-resched-happy-01]

Each session replays a typical 6-call conversation through the MCP client; the direct figure is the
same calls on :class:`MockToolServer` without MCP, so the difference is the protocol's share.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from skillbench.benchmark import load_benchmark
from skillbench.config.schema import StatefulMock
from skillbench.tools.serve import find_scenario
from skillbench.tools.server import MockToolServer
from skillbench.tools.session import open_tool_session

# A happy-path conversation of the starter scenario, valid and invalid calls mixed.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("identity.verify_customer", {"customer_id": "C-10482", "date_of_birth": "1984-03-17"}),
    ("scheduling.search_appointments", {"customer_id": "C-10482"}),
    ("scheduling.find_open_slots", {"provider_id": "DR-LOPEZ"}),
    ("scheduling.update_appointment", {"appointment_id": "APT-7731"}),
    ("scheduling.update_appointment", {"appointment_id": "APT-7731", "new_start_time": "2026-12-03T09:30"}),
    ("messaging.send_confirmation", {"customer_id": "C-10482", "message": "Moved to Dec 3, 09:30."}),
]


async def measure(benchmark_name: str, scenario_id: str, sessions: int) -> dict[str, float]:
    benchmark = load_benchmark(benchmark_name)
    scenario = find_scenario(benchmark, scenario_id)
    mock = StatefulMock(name="bench")
    setup = calls = 0.0
    for index in range(sessions):
        started = time.perf_counter()
        async with open_tool_session(benchmark, scenario, mock, seed=index) as session:
            opened = time.perf_counter()
            for turn, (name, arguments) in enumerate(CALLS, start=1):
                await session.call(name, dict(arguments), call_id=f"c{turn}", turn=turn)
            finished = time.perf_counter()
            _ = session.state
        setup += (opened - started) + (time.perf_counter() - finished)
        calls += finished - opened
    direct = 0.0
    for index in range(sessions):
        server = MockToolServer(benchmark, scenario, mock, seed=index)
        started = time.perf_counter()
        for name, arguments in CALLS:
            await server.call(name, dict(arguments))
        direct += time.perf_counter() - started
    n = sessions * len(CALLS)
    return {
        "session_setup_ms": setup / sessions * 1e3,
        "per_call_us_mcp": calls / n * 1e6,
        "per_call_us_direct": direct / n * 1e6,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m skillbench.tools.bench")
    parser.add_argument("--benchmark", default="starter")
    parser.add_argument("--scenario", default="hc-resched-happy-01")
    parser.add_argument("--sessions", type=int, default=300)
    args = parser.parse_args(argv)
    asyncio.run(measure(args.benchmark, args.scenario, 20))  # warm-up: imports, caches
    result = asyncio.run(measure(args.benchmark, args.scenario, args.sessions))
    for key, value in result.items():
        print(f"{key}: {value:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
