"""Synthetic job folders written with the engine's own pydantic models, until real runs exist.

``write_sweep`` builds a sweep folder (``<root>/<stamp>/<num>_<agent>_<judge>/``) with config.json,
results.jsonl, summary.json, Hydra's files and rollouts in an artifact store, all deterministic.
Verdicts are computed with the real pass rule, so rescoring with the stored rule is the identity.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from skillbench.config.schema import (
    AgentConfig,
    BenchmarkConfig,
    JudgeConfig,
    PassRuleConfig,
    RunConfig,
    StatefulMock,
    StoreConfig,
    UserSimConfig,
)
from skillbench.core.records import Message, Rollout, RuleCheck, ToolCall, ToolCallRecord, Usage
from skillbench.core.rubric import DIMENSION_NAMES, JudgeScores
from skillbench.engine.results import CONFIG_FILE, RESULTS_FILE, SUMMARY_FILE, JobSummary, ResultRow
from skillbench.evaluation.pass_rule import apply_pass_rule, rule_based_pass

CONF = Path(__file__).resolve().parents[2] / "skillbench" / "conf"
PATHS = (
    "happy_path",
    "missing_information",
    "refusal_guardrail",
    "out_of_scope",
    "tool_failure_recovery",
    "transfer",
)
# Agent quality and judge bias of the synthetic grid (probability-like knobs, not real models).
AGENT_SKILL = {"sim_careful": 0.9, "sim_sloppy": 0.6, "sim_reckless": 0.3}
JUDGE_BIAS = {"sim_lenient": 1, "sim_balanced": 0, "sim_strict": -1}


def preset(name: str) -> PassRuleConfig:
    """A pass-rule preset exactly as shipped in skillbench/conf/pass_rule/."""
    return PassRuleConfig.model_validate(yaml.safe_load((CONF / "pass_rule" / f"{name}.yaml").read_text()))


def run_config(
    agent: str, judge: str, store: Path, rule: PassRuleConfig | None = None, **extra: Any
) -> RunConfig:
    return RunConfig(
        agent=AgentConfig(name=agent, model=f"skillbench_sim/{agent}", simulated=True),
        judge=JudgeConfig(name=judge, model=f"skillbench_sim/{judge}", simulated=True),
        user_sim=UserSimConfig(name="sim_user", model="skillbench_sim/user", simulated=True),
        mock=StatefulMock(name="stateful"),
        pass_rule=rule or preset("paper"),
        benchmark=BenchmarkConfig(name="starter", source="starter"),
        store=StoreConfig(root=str(store)),
        **extra,
    )


def rollout_key(agent: str, scenario: str, seed: int = 0) -> str:
    return hashlib.sha256(f"{agent}|{scenario}|{seed}".encode()).hexdigest()


def make_rollout(agent: str, scenario: str, termination: str = "resolved", seed: int = 0) -> Rollout:
    key = rollout_key(agent, scenario, seed)
    call = ToolCall(id="call_1", name="identity.verify_customer", arguments={"customer_id": "C-10482"})
    return Rollout(
        key=key,
        scenario_id=scenario,
        skill_id=scenario.rsplit("_", 1)[0],
        agent=agent,
        messages=[
            Message(role="system", content="policy text"),
            Message(role="user", content=f"Hello, I need help with {scenario}.", turn=1),
            Message(role="assistant", content="Let me verify your identity first.", tool_calls=[call], turn=1),
            Message(role="tool", content='{"verified": true}', tool_call_id="call_1", name=call.name, turn=1),
            Message(role="assistant", content=f"All done for {scenario}, thank you for calling.", turn=2),
        ],
        tool_calls=[
            ToolCallRecord(
                turn=1, call_id="call_1", name=call.name, arguments=call.arguments, offered=True, is_error=False,
                result='{"verified": true}',
            )
        ],
        offered_tools=[call.name],
        termination=termination,  # type: ignore[arg-type]
        turns=2,
    )  # fmt: skip


def make_row(
    agent: str,
    judge: str,
    scenario: str,
    *,
    rule: PassRuleConfig,
    scores: JudgeScores | None,
    checks: list[RuleCheck] | None = None,
    judge_error: str | None = None,
    infra_error: str | None = None,
    path: str = "happy_path",
    seed: int = 0,
) -> ResultRow:
    checks = (
        checks if checks is not None else [RuleCheck(name="required_tools_invoked", passed=True, hard=True)]
    )
    if infra_error is not None:
        scores, passed, reasons, rule_passed = None, None, [], None
    else:
        decision = apply_pass_rule(checks, scores, rule)
        passed, reasons, rule_passed = decision.passed, decision.reasons, rule_based_pass(checks)
    return ResultRow(
        scenario_id=scenario,
        skill_id=scenario.rsplit("_", 1)[0],
        industry="healthcare",
        path=path,
        persona="calm",
        expected_outcome="resolved",
        agent=agent,
        judge=judge,
        user_sim="sim_user",
        mock="stateful",
        pass_rule=rule.name,
        benchmark="starter",
        simulated=True,
        rollout_key=None if infra_error else rollout_key(agent, scenario, seed),
        verdict_key=hashlib.sha1(f"{judge}|{agent}|{scenario}|{seed}".encode()).hexdigest(),
        termination="infra_error" if infra_error else "resolved",
        turns=2,
        tool_calls=1,
        tool_errors=0,
        rule_checks=checks,
        rule_passed=rule_passed,
        scores=scores,
        judge_error=judge_error,
        infra_error=infra_error,
        passed=passed,
        fail_reasons=reasons,
        usage={"agent": Usage(calls=2, prompt_tokens=100, completion_tokens=20, cost_usd=0.001)},
        rollout_s=0.01,
        judge_s=0.01,
    )


def synthetic_scores(
    agent: str, judge: str, scenario: str, seed: int = 0
) -> tuple[JudgeScores, list[RuleCheck]]:
    """Deterministic scores: better agents score higher, the strict judge scores lower."""
    rng = random.Random(f"{agent}|{scenario}|{seed}")
    skill = AGENT_SKILL.get(agent, 0.5)
    base = {d: min(5, max(1, round(1 + 4 * skill + rng.uniform(-1.5, 1.5)))) for d in DIMENSION_NAMES}
    judge_rng = random.Random(f"{judge}|{agent}|{scenario}|{seed}")
    bias = JUDGE_BIAS.get(judge, 0)
    values = {d: min(5, max(1, v + bias + judge_rng.choice([-1, 0, 0, 0, 1]))) for d, v in base.items()}
    success = rng.random() < skill
    outcome = "success" if success else rng.choice(["partial", "failure"])
    if bias > 0 and outcome == "partial":
        outcome = "success"
    hard_ok = rng.random() < 0.5 + skill / 2
    checks = [
        RuleCheck(
            name="required_tools_invoked",
            passed=hard_ok,
            hard=True,
            detail="" if hard_ok else "missed a tool",
        ),
        RuleCheck(name="termination_reached", passed=True, hard=False),
    ]
    scores = JudgeScores(
        task_completion=outcome,  # type: ignore[arg-type]
        hallucinated_action=rng.random() > skill + 0.2,
        explanation=f"{judge} on {agent}/{scenario}: synthetic explanation.",
        **values,
    )
    return scores, checks


def summarise(config: RunConfig, rows: list[ResultRow]) -> JobSummary:
    """A JobSummary computed from rows the way the engine defines it (for fixtures only)."""
    scored = [r for r in rows if r.passed is not None]
    passed = sum(r.passed is True for r in rows)
    rule_known = [r.rule_passed for r in rows if r.rule_passed is not None]
    with_scores = [r.scores for r in rows if r.scores is not None]
    by_path: dict[str, dict[str, Any]] = {}
    for path in sorted({r.path for r in rows}):
        sub = [r for r in rows if r.path == path]
        sub_scored = sum(r.passed is not None for r in sub)
        sub_passed = sum(r.passed is True for r in sub)
        by_path[path] = {
            "scenarios": len(sub),
            "scored": sub_scored,
            "passed": sub_passed,
            "pass_rate": sub_passed / sub_scored if sub_scored else None,
        }
    return JobSummary(
        agent=config.agent.name,
        judge=config.judge.name,
        user_sim=config.user_sim.name,
        mock=config.mock.name,
        pass_rule=config.pass_rule.name,
        benchmark=config.benchmark.name,
        agent_model=config.agent.model,
        judge_model=config.judge.model,
        simulated_agent=True,
        simulated_judge=True,
        scenarios=len(rows),
        scored=len(scored),
        passed=passed,
        pass_rate=passed / len(scored) if scored else None,
        rule_pass_rate=sum(rule_known) / len(rule_known) if rule_known else None,
        rubric_means={
            d: (sum(getattr(s, d) for s in with_scores) / len(with_scores)) if with_scores else None
            for d in DIMENSION_NAMES
        },
        task_completion=dict(Counter(s.task_completion for s in with_scores)),
        terminations=dict(Counter(r.termination for r in rows)),
        by_path=by_path,
        judge_errors=sum(r.judge_error is not None for r in rows),
        infra_errors=sum(r.infra_error is not None for r in rows),
        hallucinated_actions=sum(s.hallucinated_action for s in with_scores),
        usage={},
        llm_calls=0,
        cache_hits=0,
        prompt_tokens=0,
        completion_tokens=0,
        cost_usd=0.0,
        wall_time_s=0.1,
        started_at="2026-01-01T00:00:00+00:00",
        finished_at="2026-01-01T00:01:00+00:00",
        skillbench_version="0.1.0",
    )


def write_job(
    folder: Path,
    config: RunConfig,
    rows: list[ResultRow],
    *,
    finished: bool = True,
    launch_cwd: Path | None = None,
    finished_at: str | None = None,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG_FILE).write_text(config.model_dump_json(indent=2))
    (folder / RESULTS_FILE).write_text("".join(r.model_dump_json() + "\n" for r in rows))
    hydra = folder / ".hydra"
    hydra.mkdir(exist_ok=True)
    (hydra / "config.yaml").write_text(yaml.safe_dump(config.model_dump(mode="json")))
    (hydra / "overrides.yaml").write_text(
        yaml.safe_dump([f"agent={config.agent.name}", f"judge={config.judge.name}"])
    )
    (hydra / "hydra.yaml").write_text(
        yaml.safe_dump({"hydra": {"runtime": {"cwd": str(launch_cwd or folder.parent)}}})
    )
    (folder / "skillbench.log").write_text("[2026-01-01 00:00:00][skillbench][INFO] started\n")
    if finished:
        summary = summarise(config, rows)
        if finished_at:
            summary = summary.model_copy(update={"finished_at": finished_at})
        (folder / SUMMARY_FILE).write_text(summary.model_dump_json(indent=2))
    return folder


def write_rollouts(store: Path, agent: str, scenarios: list[str], seed: int = 0) -> None:
    for scenario in scenarios:
        rollout = make_rollout(agent, scenario, seed=seed)
        target = store / "rollouts" / rollout.key[:2] / f"{rollout.key}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rollout.model_dump_json())


RowHook = Callable[[str, str, str, ResultRow], ResultRow | None]


def write_sweep(
    root: Path,
    agents: list[str] | tuple[str, ...] = tuple(AGENT_SKILL),
    judges: list[str] | tuple[str, ...] = tuple(JUDGE_BIAS),
    *,
    scenarios: int = 24,
    rule: PassRuleConfig | None = None,
    stamp: str = "2026-01-01_00-00-00",
    store: Path | None = None,
    hook: RowHook | None = None,
    seed: int = 0,
) -> Path:
    """A full agent × judge sweep of synthetic jobs; ``hook`` may replace or drop (None) rows."""
    rule = rule or preset("paper")
    sweep = root / stamp
    store = store or root / "store"
    names = [f"{PATHS[i % len(PATHS)]}_{i:03d}" for i in range(scenarios)]
    for agent in agents:
        write_rollouts(store, agent, names, seed)
    num = 0
    for agent in agents:
        for judge in judges:
            rows = []
            for i, scenario in enumerate(names):
                scores, checks = synthetic_scores(agent, judge, scenario, seed)
                row = make_row(
                    agent,
                    judge,
                    scenario,
                    rule=rule,
                    scores=scores,
                    checks=checks,
                    path=PATHS[i % len(PATHS)],
                    seed=seed,
                )
                row = hook(agent, judge, scenario, row) if hook else row
                if row is not None:
                    rows.append(row)
            config = run_config(agent, judge, store, rule, run={"seed": seed})
            write_job(sweep / f"{num}_{agent}_{judge}", config, rows, launch_cwd=root)
            num += 1
    (sweep / "multirun.yaml").write_text(yaml.safe_dump({"hydra": {"mode": "MULTIRUN"}}))
    return sweep


@pytest.fixture(scope="session")
def grid(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 3 × 3 synthetic sweep with one judge error and one infra error."""

    def hook(agent: str, judge: str, scenario: str, row: ResultRow) -> ResultRow:
        if (agent, judge, scenario) == ("sim_sloppy", "sim_strict", "missing_information_001"):
            return row.model_copy(
                update={
                    "scores": None,
                    "passed": None,
                    "judge_error": "unparseable reply",
                    "fail_reasons": [],
                }
            )
        if agent == "sim_reckless" and scenario == "out_of_scope_003":
            return make_row(
                agent,
                judge,
                scenario,
                rule=preset("paper"),
                scores=None,
                infra_error="HTTP 503 after retries",
            )
        return row

    return write_sweep(tmp_path_factory.mktemp("grid"), hook=hook)


def rows_of(job: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (job / RESULTS_FILE).read_text().splitlines()]
