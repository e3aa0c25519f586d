"""The job outputs: one ``results.jsonl`` row per scenario and a ``summary.json``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from skillbench.benchmark.schema import Scenario, Skill
from skillbench.config.schema import RunConfig
from skillbench.core.records import Rollout, RuleCheck, ServedBy, Termination, Usage
from skillbench.core.rubric import JudgeScores
from skillbench.evaluation.checks import rule_checks_version
from skillbench.evaluation.pass_rule import row_verdict, rule_based_pass
from skillbench.evaluation.records import JudgeAttempt, Verdict
from skillbench.prompts.verdict import JudgeErrorReason

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
CONFIG_FILE = "config.json"
# The judge of rows whose verdict is a person's label (skillbench import): reports compare every other judge with it.
HUMAN_JUDGE = "human"
JOB_ERROR_FILE = "job_error.json"  # why a job stopped before its summary (written by the app, read by reports)


class JobIdentity(BaseModel):
    """Which job a record belongs to: the config names (:func:`job_labels`) and the benchmark's version. One
    definition for the rows and the summary, which both carry it."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    judge: str
    user_sim: str
    mock: str
    pass_rule: str
    benchmark: str
    benchmark_version: str = Field("", description="Content hash of the benchmark's files (empty in older runs).")


class ScenarioIdentity(BaseModel):
    """Which conversation of the job a row is: the scenario, its trial and what the scenario says about itself."""

    model_config = ConfigDict(extra="forbid")

    scenario_id: str
    trial: int = Field(0, ge=0, description="Which of the run.trials rollouts of the scenario (0 in runs without trials).")
    skill_id: str
    industry: str
    path: str = Field(description="Scenario path (happy_path, out_of_scope, ...).")
    persona: str
    expected_outcome: str


# Bases in this order: pydantic lays out inherited fields from the last base first, so a row's JSON keeps its order
# (scenario, then job, then the row's own fields) and results.jsonl files stay byte-identical.
class ResultRow(JobIdentity, ScenarioIdentity):
    """One scenario of one job: ids, termination, rule checks, scores, verdict, usage, timings."""

    simulated: bool = Field(description="True if the agent is an offline simulated model.")
    rollout_key: str | None = None
    verdict_key: str | None = None
    termination: Termination
    termination_detail: str = Field("", description="How it ended, in words; for model_error, what the model did wrong.")
    turns: int
    tool_calls: int
    tool_errors: int
    rule_checks: list[RuleCheck]
    rule_checks_version: str | None = Field(
        None, description="Hash of the registered rule checks (names, versions, default hardness); None in old rows."
    )
    rule_passed: bool | None = Field(description="Pass by the rule checks alone (no hard failure); None on infra error.")
    scores: JudgeScores | None = None
    judge_error: str | None = None
    judge_error_reason: JudgeErrorReason | None = Field(
        None, description="Why the judge gave no verdict: cut_at_max_tokens, not_json, wrong_keys, wrong_types, "
        "transcript_echoed, empty, refused (docs/judges.md)."
    )
    judge_attempts: list[JudgeAttempt] = Field(
        default_factory=list, description="On a judge error: each failed attempt's raw reply (bounded) and reason."
    )
    judge_ignored_keys: list[str] = Field(
        default_factory=list, description="Keys beside the rubric's in the judge's reply: ignored, noted."
    )
    infra_error: str | None = None
    benchmark_error: str | None = Field(
        None, description="The benchmark's own code failed (a code tool, a plug-in rule check): what, where; never scored."
    )
    traceback_file: str | None = Field(
        None, description="The traceback of the guest code (agent program, code tool, plug-in check) that ended this "
        "conversation, relative to the job folder (tracebacks/<scenario>.txt)."
    )
    passed: bool | None = Field(description="Verdict of the pass rule; None when not scorable (an infrastructure or "
                                "benchmark error, or a judge error on a row no hard check has already failed).")
    fail_reasons: list[str] = Field(default_factory=list)
    usage: dict[str, Usage] = Field(description="Role → calls, cache hits, tokens, cost (agent, user, mock, judge).")
    rollout_s: float = Field(description="Seconds to obtain the rollout (near 0 when reused).")
    judge_s: float = Field(description="Seconds to obtain the verdict (near 0 when reused).")
    abandoned_attempts: int = Field(
        0, description="Tries of this conversation abandoned as infrastructure errors and redone in this run."
    )
    cut_replies: dict[str, int] = Field(
        default_factory=dict, description="Role → replies cut at max_tokens (finish_reason 'length'), judge included."
    )
    served_by: dict[str, list[ServedBy]] = Field(
        default_factory=dict, description="Role → what the servers reported answering (model id, fingerprint/build)."
    )


class JobSummary(JobIdentity):
    """Aggregates of a job, written last: its presence marks a finished job."""

    agent_model: str
    judge_model: str
    simulated_agent: bool
    simulated_judge: bool
    user_sim_model: str | None = Field(None, description="The user simulator's litellm model string (None in older summaries).")
    simulated_user_sim: bool | None = Field(
        None, description="True if the user simulator is an offline simulated model (None in older summaries)."
    )
    mock_model: str | None = Field(
        None, description="The model writing tool results when mock.response_mode is llm (None for other mocks and older summaries)."
    )
    simulated_mock: bool | None = Field(
        None, description="True if that tool-result model is simulated (None for other mocks and older summaries)."
    )
    scenarios: int = Field(description="Result rows: scenarios × trials (conversations).")
    trials: int = Field(1, description="run.trials: rollouts per scenario (1 in runs without trials).")
    pass_hat_k: dict[str, float | None] = Field(
        default_factory=dict,
        description="k → pass^k (mean of C(c,k)/C(n,k) over every scenario with a scored trial), for k = 1..trials; "
        "null for k above the fewest scored trials of any scenario (engine/trials.py); empty for one trial.",
    )
    pass_at_k: dict[str, float | None] = Field(
        default_factory=dict, description="k → pass@k (mean of 1 − C(n−c,k)/C(n,k) over the same scenarios); null above "
        "the same cap; empty for one trial."
    )
    scored: int = Field(description="Rows with a verdict (no judge or infrastructure error).")
    passed: int
    pass_rate: float | None = Field(description="passed / scored.")
    rule_pass_rate: float | None = Field(description="Share of rollouts with no hard rule failure (infra errors excluded).")
    rule_checks_version: str | None = Field(None, description="The rows' rule_checks_version (None in old summaries).")
    rubric_means: dict[str, float | None]
    task_completion: dict[str, int]
    terminations: dict[str, int]
    by_path: dict[str, dict[str, Any]] = Field(description="Path → scenarios, scored, passed, pass_rate.")
    judge_errors: int = Field(description="Rows on which the judge gave no usable verdict.")
    judge_errors_decided: int = Field(
        0, description="Of judge_errors, rows a hard rule check had already failed: scored as fails all the same "
        "(a known failure never leaves the denominator); the others are unscored.")
    judge_error_reasons: dict[str, int] = Field(
        default_factory=dict, description="Judge errors by reason (cut_at_max_tokens, not_json, wrong_types, ...)."
    )
    infra_errors: int = Field(description="Rows left unscored by an infrastructure error (rollout or judge endpoint).")
    benchmark_errors: int = Field(
        0, description="Conversations the benchmark's own code ended (a code tool, a plug-in check): never scored."
    )
    model_errors: int = Field(
        0, description="Conversations ended by the agent's unusable output (termination model_error): scored, as fails."
    )
    config_errors: int = Field(0, description="Infrastructure errors that were a provider refusing a valid request.")
    throttled_errors: dict[str, int] = Field(
        default_factory=dict, description="Unscored rows whose provider kept throttling past rate_limit_patience_s, by "
        "where it happened: infra (the conversation) or judge (its verdict). Not a failure of the run: a rerun scores "
        "them (exit 5).")
    rate_limits: list[dict[str, Any]] = Field(
        default_factory=list, description="Per rate-limit scope (models/limit_scope.py): this job's requests, 429s "
        "(rate_limited), seconds the provider made calls wait (waited_s: pauses, paced rate), seconds queued behind "
        "skillbench's own concurrency (queued_s), and the limiter's limit, ceiling, requests_per_minute and "
        "tokens_per_minute in force at the end (configured or stated by the provider; models/limiter.py).")
    hallucinated_actions: int
    redone_conversations: int = Field(
        0, description="Conversations that hit an infrastructure error, were abandoned and redone (see abandoned_attempts)."
    )
    abandoned_attempts: int = Field(0, description="Conversation tries abandoned as infrastructure errors and redone.")
    cut_replies: dict[str, int] = Field(
        default_factory=dict, description="Role → replies cut at max_tokens (finish_reason 'length')."
    )
    max_tokens: dict[str, int | None] = Field(
        default_factory=dict, description="Role → the max_tokens cap its requests carried (None: the server's default)."
    )
    served_by: dict[str, list[str]] = Field(
        default_factory=dict, description="Role → what the servers reported answering ('model (fingerprint)')."
    )
    usage: dict[str, Usage] = Field(description="Role → calls made and cache hits.")
    llm_calls: int = Field(description="Requests answered, all roles.")
    failed_attempts: int = Field(0, description="Requests that got no answer (timeout, 429, 5xx, refused), all roles.")
    retries: int = Field(0, description="Requests re-sent after a failed attempt, all roles.")
    cache_hits: int
    prompt_tokens: int
    cached_prompt_tokens: int = Field(0, description="Of prompt_tokens, those read from the providers' prompt caches.")
    completion_tokens: int
    cost_usd: float
    wall_time_s: float
    started_at: str
    finished_at: str
    skillbench_version: str


# Usage role -> the summary fields holding its model string and whether that model is simulated.
ROLE_MODEL_FIELDS: dict[str, tuple[str, str]] = {
    "agent": ("agent_model", "simulated_agent"),
    "user": ("user_sim_model", "simulated_user_sim"),
    "judge": ("judge_model", "simulated_judge"),
    "mock": ("mock_model", "simulated_mock"),
}
SIMULATED_MODEL_PREFIX = "skillbench_sim/"  # the provider prefix of every shipped simulated model


def role_simulated(summary: Mapping[str, Any], role: str) -> bool | None:
    """Whether a summary's model for a usage role was simulated: its flag, else (summaries written before the
    flag existed) the recorded model string's prefix; None when the summary does not say."""
    model_field, flag_field = ROLE_MODEL_FIELDS.get(role, ("", ""))
    flag = summary.get(flag_field)
    if flag is not None:
        return bool(flag)
    model = summary.get(model_field)
    return model.startswith(SIMULATED_MODEL_PREFIX) if isinstance(model, str) and model else None


def job_labels(cfg: RunConfig) -> dict[str, str]:
    """The config names that identify a job, as both rows and summaries carry them."""
    return {
        "agent": cfg.agent.name,
        "judge": cfg.judge.name,
        "user_sim": cfg.user_sim.name,
        "mock": cfg.mock.name,
        "pass_rule": cfg.pass_rule.name,
        "benchmark": cfg.benchmark.name,
    }


def pass_counts(rows: list[ResultRow]) -> tuple[int, int, float | None]:
    """(passed, scored, pass rate) over rows; rows without a verdict (errors) are not scored."""
    scored = sum(row.passed is not None for row in rows)
    passed = sum(row.passed is True for row in rows)
    return passed, scored, passed / scored if scored else None


def assemble_row(
    cfg: RunConfig,
    scenario: Scenario,
    skill: Skill,
    benchmark_version: str,
    rollout: Rollout,
    checks: list[RuleCheck],
    verdict: Verdict | None,
    usage: dict[str, Usage],
    timings: tuple[float, float],
    *,
    trial: int = 0,
) -> ResultRow:
    """One result row from the finished steps of a scenario (pure: no models, no I/O).

    An infrastructure failure of the rollout or a benchmark error makes the row unscored (``passed=None``); so does
    a judge that gave no usable verdict (a judge error, or its endpoint failing) — unless a hard rule check has
    already failed the row, which is then a fail whatever the judge did (evaluation/pass_rule.py).
    """
    judge_infra = (f"judge endpoint: {verdict.judge_error}"
                   if verdict is not None and verdict.error_kind == "infra" else None)
    infra = rollout.infra_error or judge_infra
    unscorable = rollout.infra_error is not None or rollout.benchmark_error is not None
    scores = verdict.scores if verdict is not None else None
    decision = row_verdict(checks, scores, verdict.samples if verdict is not None else [], cfg.pass_rule)
    rollout_s, judge_s = timings
    return ResultRow(
        scenario_id=scenario.id,
        trial=trial,
        skill_id=scenario.skill_id,
        industry=skill.industry,
        path=scenario.path,
        persona=scenario.persona.label,
        expected_outcome=scenario.expected_outcome,
        **job_labels(cfg),
        benchmark_version=benchmark_version,
        simulated=cfg.agent.simulated,
        rollout_key=rollout.key,
        verdict_key=verdict.key if verdict is not None else None,
        termination=rollout.termination,
        termination_detail=rollout.termination_detail,
        turns=rollout.turns,
        tool_calls=sum(1 for r in rollout.tool_calls if not r.control),
        tool_errors=sum(1 for r in rollout.tool_calls if r.is_error),
        rule_checks=checks,
        rule_checks_version=rule_checks_version(checks, cfg.checks),
        rule_passed=rule_based_pass(checks, cfg.pass_rule) if checks else None,
        scores=scores,
        judge_error=None if judge_infra or verdict is None else verdict.judge_error,
        judge_error_reason=verdict.error_reason if verdict is not None and not infra and verdict.scores is None else None,
        judge_attempts=verdict.attempts if verdict is not None and not infra and verdict.scores is None else [],
        judge_ignored_keys=verdict.ignored_keys if verdict is not None else [],
        infra_error=infra,
        benchmark_error=rollout.benchmark_error,
        passed=None if unscorable else decision.passed,
        fail_reasons=decision.reasons if decision.passed is False and not unscorable else [],
        usage=usage,
        rollout_s=round(rollout_s, 4),
        judge_s=round(judge_s, 4),
        abandoned_attempts=rollout.abandoned_attempts,
        cut_replies=_counts(rollout.cut_replies, verdict.cut_replies if verdict is not None else {}),
        served_by={**rollout.served_by, **({"judge": verdict.served_by} if verdict is not None and verdict.served_by else {})},
    )


def _counts(*parts: Mapping[str, int]) -> dict[str, int]:
    total: dict[str, int] = {}
    for part in parts:
        for role, count in part.items():
            if count:
                total[role] = total.get(role, 0) + count
    return total
