"""Clean source rollouts for the lab: the store's rollouts of the chosen agents, produced (and stored) if missing."""

from __future__ import annotations

import asyncio

from skillbench.benchmark import load_benchmark, select_scenarios
from skillbench.benchmark.loader import Benchmark
from skillbench.config import RunConfig
from skillbench.core.records import Rollout
from skillbench.engine.job import make_context, obtain_rollout


async def _rollouts(cfg: RunConfig, benchmark: Benchmark) -> tuple[list[Rollout], int]:
    scenarios = select_scenarios(benchmark, cfg.benchmark)
    ctx = make_context(cfg, benchmark, total=len(scenarios))
    limit = asyncio.Semaphore(cfg.run.scenario_concurrency)

    async def one(scenario):  # type: ignore[no-untyped-def]
        async with limit:
            return await obtain_rollout(ctx, scenario)

    pairs = await asyncio.gather(*(one(s) for s in scenarios))
    # requests spent on rollouts made now (agent, user simulator, mock), so the "model calls" total is honest
    calls = sum(u.calls for rollout, reused in pairs if not reused for u in rollout.usage.values())
    return [rollout for rollout, _ in pairs], calls


def source_rollouts(configs: list[RunConfig]) -> tuple[Benchmark, list[Rollout], int]:
    """Rollouts of every config's agent on its benchmark (same benchmark for all), reused from the store when
    there, and the model calls spent producing the missing ones."""
    benchmark = load_benchmark(configs[0].benchmark.source)
    rollouts: list[Rollout] = []
    calls = 0
    for cfg in configs:
        found, spent = asyncio.run(_rollouts(cfg, benchmark))
        rollouts.extend(found)
        calls += spent
    return benchmark, rollouts, calls
