"""Pick a job's scenarios from a benchmark: filters, then an optional balanced, seeded limit."""

from __future__ import annotations

import random
from collections import defaultdict

from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario
from skillbench.config.schema import BenchmarkConfig
from skillbench.core.errors import BenchmarkDataError


def select_scenarios(benchmark: Benchmark, cfg: BenchmarkConfig) -> list[Scenario]:
    """Scenarios matching every non-empty filter of ``cfg``; ``limit`` keeps a balanced subset."""
    for field_name, known in (
        ("industries", {industry.id for industry in benchmark.manifest.industries}),
        ("skills", set(benchmark.skills)),
        ("scenarios", {scenario.id for scenario in benchmark.scenarios}),
    ):
        unknown = sorted(set(getattr(cfg, field_name)) - known)
        if unknown:
            raise BenchmarkDataError(
                f"benchmark.{field_name}: {unknown} not in benchmark {benchmark.manifest.name!r}. "
                f"Fix: choose from {sorted(known)[:12]}{' ...' if len(known) > 12 else ''}."
            )
    chosen = [
        scenario
        for scenario in benchmark.scenarios
        if (not cfg.industries or benchmark.skills[scenario.skill_id].industry in cfg.industries)
        and (not cfg.skills or scenario.skill_id in cfg.skills)
        and (not cfg.paths or scenario.path in cfg.paths)
        and (not cfg.scenarios or scenario.id in cfg.scenarios)
    ]
    if not chosen:
        raise BenchmarkDataError("benchmark filters select no scenario. Fix: loosen benchmark.industries/skills/paths.")
    if cfg.limit is None or cfg.limit >= len(chosen):
        return chosen
    # Round-robin over paths, and within a path over industries, so a small limit still covers every
    # path and spreads over industries. Seeded shuffles pick which scenarios of a group come first.
    rng = random.Random(cfg.seed)
    by_path: dict[str, dict[str, list[Scenario]]] = defaultdict(lambda: defaultdict(list))
    for scenario in chosen:
        by_path[scenario.path][benchmark.skills[scenario.skill_id].industry].append(scenario)
    queues: dict[str, list[Scenario]] = {}
    for path in sorted(by_path):
        industries = sorted(by_path[path])
        rng.shuffle(industries)
        for industry in industries:
            rng.shuffle(by_path[path][industry])
        interleaved: list[Scenario] = []
        while any(by_path[path][industry] for industry in industries):
            interleaved.extend(by_path[path][i].pop() for i in industries if by_path[path][i])
        queues[path] = interleaved
    paths = sorted(queues)
    rng.shuffle(paths)
    picked: list[Scenario] = []
    while len(picked) < cfg.limit:
        for path in paths:
            if queues[path] and len(picked) < cfg.limit:
                picked.append(queues[path].pop(0))
    order = {scenario.id: index for index, scenario in enumerate(chosen)}
    return sorted(picked, key=lambda scenario: order[scenario.id])
