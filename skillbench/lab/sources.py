"""Clean source rollouts for the lab: the store's rollouts of the chosen agents, produced (and stored) if missing."""

from __future__ import annotations

import asyncio

from skillbench.benchmark import load_benchmark, select_scenarios
from skillbench.benchmark.loader import Benchmark
from skillbench.config import RunConfig
from skillbench.core.records import Rollout
from skillbench.engine.job import make_context, obtain_rollout


async def _rollouts(cfg: RunConfig, benchmark: Benchmark) -> list[Rollout]:
    scenarios = select_scenarios(benchmark, cfg.benchmark)
    ctx = make_context(cfg, benchmark, total=len(scenarios))
    limit = asyncio.Semaphore(cfg.run.scenario_concurrency)

    async def one(scenario):  # type: ignore[no-untyped-def]
        async with limit:
            return (await obtain_rollout(ctx, scenario))[0]

    return list(await asyncio.gather(*(one(s) for s in scenarios)))


def source_rollouts(configs: list[RunConfig]) -> tuple[Benchmark, list[Rollout]]:
    """Rollouts of every config's agent on its benchmark (same benchmark for all), reused from the store when there."""
    benchmark = load_benchmark(configs[0].benchmark.source)
    rollouts: list[Rollout] = []
    for cfg in configs:
        rollouts.extend(asyncio.run(_rollouts(cfg, benchmark)))
    return benchmark, rollouts
