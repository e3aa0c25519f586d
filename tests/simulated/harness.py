"""The SIMULATED models run through the product: the engine's orchestrator (``run_rollout``) with the
in-process MCP mock, the rule checks, ``judge_transcript`` and the pass rule, as a job runs them.

Run ``python -m tests.simulated.harness [seeds]`` for the pass-rate table of every simulated agent × judge.
"""

from __future__ import annotations

import asyncio
import copy
import sys
from dataclasses import dataclass, field
from typing import Any

from skillbench.benchmark import Benchmark, Scenario, Skill, load_benchmark
from skillbench.config.schema import (
    JudgeConfig,
    MockConfig,
    ModelConfig,
    PassRuleConfig,
    RunSettings,
    StatefulMock,
    UserSimConfig,
)
from skillbench.core.records import Rollout, RuleCheck
from skillbench.core.rubric import JudgeScores
from skillbench.evaluation.checks import run_rule_checks
from skillbench.evaluation.judge import judge_transcript
from skillbench.evaluation.pass_rule import apply_pass_rule
from skillbench.evaluation.records import PassDecision
from skillbench.models import ClientPool
from skillbench.prompts import CONTROL_TOOL_DEFINITIONS, render_judge_prompt
from skillbench.report.stats import cohen_kappa
from skillbench.rollout.orchestrator import RolloutParams, run_rollout
from skillbench.tools.toolkit import mcp_tool, openai_tool

STOP = "###STOP###"
PAPER_RULE = PassRuleConfig(name="paper")
AGENTS = ("agent-careful", "agent-sloppy", "agent-reckless")
JUDGES = ("judge-balanced", "judge-strict", "judge-lenient")
MAX_TURNS = RunSettings().max_turns  # the shipped default
CONCURRENCY = 8


def simulated(model: str, kind: type[ModelConfig] = ModelConfig, **extra: Any) -> Any:
    return kind(name=model, model=f"skillbench_sim/{model}", simulated=True, **extra)


def openai_tools(benchmark: Benchmark, skill: Skill) -> list[dict[str, Any]]:
    """The tools the engine offers an agent: the skill's toolkit (OpenAI-safe names), then the control tools."""
    return [openai_tool(mcp_tool(spec)) for spec in benchmark.toolkit(skill)] + copy.deepcopy(CONTROL_TOOL_DEFINITIONS)


async def converse(benchmark: Benchmark, scenario: Scenario, agent: str, seed: int = 0, pool: ClientPool | None = None,
                   mock: MockConfig | None = None) -> Rollout:
    """One conversation through the engine's orchestrator and the MCP mock (stateful unless ``mock`` is given)."""
    pool = pool or ClientPool(seed=seed)
    params = RolloutParams(
        benchmark=benchmark, clients=pool, agent=pool.client(simulated(agent)),
        user=pool.client(simulated("user", UserSimConfig, stop_marker=STOP)), stop_marker=STOP,
        mock=mock or StatefulMock(name="stateful"), max_turns=MAX_TURNS, seed=seed,
    )
    return await run_rollout(scenario, params, key=f"{scenario.id}-{agent}-{seed}")


async def judge(benchmark: Benchmark, scenario: Scenario, rollout: Rollout, checks: list[RuleCheck], model: str,
                pool: ClientPool) -> JudgeScores | None:
    cfg = simulated(model, JudgeConfig)
    prompt = render_judge_prompt(benchmark.skill_of(scenario), scenario, rollout, checks)
    verdict = await judge_transcript(pool.client(cfg), cfg, prompt, key=rollout.key + model, rollout_key=rollout.key)
    return verdict.scores


@dataclass
class Outcome:
    rollout: Rollout
    checks: list[RuleCheck]
    verdicts: dict[str, JudgeScores | None] = field(default_factory=dict)
    decisions: dict[str, PassDecision] = field(default_factory=dict)


async def evaluate(benchmark: Benchmark, scenario: Scenario, agent: str, judges: tuple[str, ...] = JUDGES, seed: int = 0,
                   pool: ClientPool | None = None) -> Outcome:
    pool = pool or ClientPool(seed=seed)
    rollout = await converse(benchmark, scenario, agent, seed, pool)
    checks = run_rule_checks(rollout, scenario, benchmark.skill_of(scenario))
    outcome = Outcome(rollout, checks)
    for name in judges:
        scores = await judge(benchmark, scenario, rollout, checks, name, pool)
        outcome.verdicts[name] = scores
        outcome.decisions[name] = apply_pass_rule(checks, scores, PAPER_RULE)
    return outcome


async def grid_async(source: str = "starter", seeds: tuple[int, ...] = (0,)) -> dict[str, dict[str, list[bool]]]:
    """agent → judge → verdicts (passed?) over every scenario and seed, in scenario order."""
    benchmark = load_benchmark(source)
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(agent: str, scenario: Scenario, seed: int, pool: ClientPool) -> Outcome:
        async with limit:
            return await evaluate(benchmark, scenario, agent, seed=seed, pool=pool)

    table: dict[str, dict[str, list[bool]]] = {a: {j: [] for j in JUDGES} for a in AGENTS}
    for seed in seeds:
        pool = ClientPool(seed=seed)
        for agent in AGENTS:
            outcomes = await asyncio.gather(*(one(agent, scenario, seed, pool) for scenario in benchmark.scenarios))
            for outcome in outcomes:
                for name, decision in outcome.decisions.items():
                    table[agent][name].append(bool(decision.passed))
    return table


def grid(source: str = "starter", seeds: tuple[int, ...] = (0,)) -> dict[str, dict[str, list[bool]]]:
    return asyncio.run(grid_async(source, seeds))


if __name__ == "__main__":
    results = grid(seeds=tuple(range(int(sys.argv[1]) if len(sys.argv) > 1 else 1)))
    print(f"{'agent':16}" + "".join(f"{j:>16}" for j in JUDGES))
    for agent, row in results.items():
        print(f"{agent:16}" + "".join(f"{sum(v) / len(v):16.2f}" for v in row.values()))
    every = {j: [x for a in AGENTS for x in results[a][j]] for j in JUDGES}
    for i, a in enumerate(JUDGES):
        for b in JUDGES[i + 1:]:
            print(f"kappa {a} vs {b}: {cohen_kappa(every[a], every[b])}")
