"""Aggregate a job's result rows into its summary."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

from skillbench import __version__
from skillbench.config.schema import LlmMock, RunConfig
from skillbench.core.errors import CONFIG_ERROR_PREFIX, THROTTLED_MARK
from skillbench.core.records import ROLES, Usage
from skillbench.core.rubric import DIMENSION_NAMES
from skillbench.engine.results import JobSummary, ResultRow, job_labels, pass_counts
from skillbench.engine.trials import TrialPopulation, pass_at_k, pass_hat_k, task_counts, trial_population


def _rate(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def path_breakdown(rows: list[ResultRow]) -> dict[str, dict[str, Any]]:
    """Per scenario path: scenarios, scored, passed and pass rate."""
    breakdown: dict[str, dict[str, Any]] = {}
    for path in sorted({row.path for row in rows}):
        path_rows = [row for row in rows if row.path == path]
        passed, scored, rate = pass_counts(path_rows)
        breakdown[path] = {"scenarios": len(path_rows), "scored": scored, "passed": passed, "pass_rate": rate}
    return breakdown


def rows_checks_version(rows: list[ResultRow]) -> str | None:
    """The rows' common rule_checks_version; "mixed" when they differ (rows written by different check sets)."""
    versions = {row.rule_checks_version for row in rows}
    if len(versions) > 1:
        return "mixed"
    return next(iter(versions), None)


def throttled_rows(rows: list[ResultRow]) -> dict[str, int]:
    """Unscored rows a provider kept throttling past their patience, by where: the conversation or its verdict."""
    counts = {where: sum(1 for row in rows if THROTTLED_MARK in (getattr(row, f"{where}_error") or ""))
              for where in ("infra", "judge")}
    return {where: count for where, count in counts.items() if count}


def rule_pass_rate(rows: list[ResultRow]) -> float | None:
    """Share of rows with no hard rule failure; rows without checks (infra errors) do not count."""
    rule_rows = [row for row in rows if row.rule_passed is not None]
    return _rate(sum(1 for row in rule_rows if row.rule_passed), len(rule_rows))


def role_max_tokens(cfg: RunConfig) -> dict[str, int | None]:
    """Role → the max_tokens cap its requests carry (a visible, recorded setting; None: the server's default)."""
    caps = {"agent": cfg.agent.max_tokens, "user": cfg.user_sim.max_tokens, "judge": cfg.judge.max_tokens}
    if isinstance(cfg.mock, LlmMock):
        caps["mock"] = cfg.mock.llm.max_tokens
    return caps


def trial_population_of(rows: list[ResultRow], trials: int) -> TrialPopulation:
    """The rows' scenarios with their scored trials and passes (engine/trials.py: one population for every k)."""
    return trial_population(task_counts((row.scenario_id, row.passed) for row in rows), trials)


def trial_estimates(rows: list[ResultRow], trials: int) -> tuple[dict[str, float | None], dict[str, float | None]]:
    """(k → pass^k, k → pass@k) for k = 1..trials over every scenario with a scored trial; None for k above the fewest
    scored trials of any scenario (τ²-bench's cap); both empty for one trial."""
    if trials < 2:
        return {}, {}
    population = trial_population_of(rows, trials)
    ks = range(1, trials + 1)
    return ({str(k): population.mean(pass_hat_k, k) for k in ks},
            {str(k): population.mean(pass_at_k, k) for k in ks})


def summarize(
    rows: list[ResultRow], cfg: RunConfig, *, started: datetime, wall_time_s: float, benchmark_version: str = ""
) -> JobSummary:
    with_scores = [row.scores for row in rows if row.scores is not None]
    usage = {role: Usage() for role in ROLES}
    for row in rows:
        for role, value in row.usage.items():
            usage[role] = usage[role].add(value)
    passed, scored, pass_rate = pass_counts(rows)
    cut: Counter[str] = Counter()
    served: dict[str, set[str]] = {}
    for row in rows:
        cut.update(row.cut_replies)
        for role, servers in row.served_by.items():
            served.setdefault(role, set()).update(server.label() for server in servers)
    pass_hat, pass_at = trial_estimates(rows, cfg.run.trials)
    return JobSummary(
        **job_labels(cfg),
        benchmark_version=benchmark_version,
        agent_model=cfg.agent.model,
        judge_model=cfg.judge.model,
        simulated_agent=cfg.agent.simulated,
        simulated_judge=cfg.judge.simulated,
        user_sim_model=cfg.user_sim.model,
        simulated_user_sim=cfg.user_sim.simulated,
        mock_model=cfg.mock.llm.model if isinstance(cfg.mock, LlmMock) else None,
        simulated_mock=cfg.mock.llm.simulated if isinstance(cfg.mock, LlmMock) else None,
        scenarios=len(rows),
        trials=cfg.run.trials,
        pass_hat_k=pass_hat,
        pass_at_k=pass_at,
        scored=scored,
        passed=passed,
        pass_rate=pass_rate,
        rule_pass_rate=rule_pass_rate(rows),
        rule_checks_version=rows_checks_version(rows),
        rubric_means={
            dim: (sum(getattr(s, dim) for s in with_scores) / len(with_scores)) if with_scores else None
            for dim in DIMENSION_NAMES
        },
        task_completion=dict(sorted(Counter(s.task_completion for s in with_scores).items())),
        terminations=dict(sorted(Counter(row.termination for row in rows).items())),
        by_path=path_breakdown(rows),
        judge_errors=sum(1 for row in rows if row.judge_error is not None),
        judge_errors_decided=sum(1 for row in rows if row.judge_error is not None and row.passed is not None),
        judge_error_reasons=dict(sorted(Counter(
            row.judge_error_reason or "other" for row in rows if row.judge_error is not None
        ).items())),
        infra_errors=sum(1 for row in rows if row.infra_error is not None and row.passed is None),
        benchmark_errors=sum(1 for row in rows if row.benchmark_error is not None),
        model_errors=sum(1 for row in rows if row.termination == "model_error"),
        config_errors=sum(1 for row in rows if CONFIG_ERROR_PREFIX in (row.infra_error or "")),
        throttled_errors=throttled_rows(rows),
        hallucinated_actions=sum(1 for s in with_scores if s.hallucinated_action),
        redone_conversations=sum(1 for row in rows if row.abandoned_attempts),
        abandoned_attempts=sum(row.abandoned_attempts for row in rows),
        cut_replies=dict(sorted(cut.items())),
        max_tokens=role_max_tokens(cfg),
        served_by={role: sorted(labels) for role, labels in sorted(served.items())},
        usage=usage,
        llm_calls=sum(u.calls for u in usage.values()),
        failed_attempts=sum(u.failed_attempts for u in usage.values()),
        retries=sum(u.retries for u in usage.values()),
        cache_hits=sum(u.cache_hits for u in usage.values()),
        prompt_tokens=sum(u.prompt_tokens for u in usage.values()),
        cached_prompt_tokens=sum(u.cached_prompt_tokens for u in usage.values()),
        completion_tokens=sum(u.completion_tokens for u in usage.values()),
        cost_usd=round(sum(u.cost_usd for u in usage.values()), 6),
        wall_time_s=round(wall_time_s, 3),
        started_at=started.isoformat(timespec="seconds"),
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
        skillbench_version=__version__,
    )
