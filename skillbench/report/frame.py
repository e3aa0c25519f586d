"""Job rows as one pandas DataFrame: one row per scenario × agent × judge (× varying setting)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from skillbench.config.schema import PassRuleConfig
from skillbench.core.collector import paused_gc
from skillbench.core.rubric import DIMENSION_NAMES
from skillbench.engine.results import ResultRow
from skillbench.report.jobs import Job, load_jobs
from skillbench.store.keys import result_settings

# Config groups that change results besides agent and judge. When one differs between the loaded
# jobs, the agent label carries it ("sim_careful · pass_rule=strict") so tables never mix settings.
SETTING_GROUPS: tuple[str, ...] = ("user_sim", "mock", "pass_rule", "benchmark", "run")

COLUMNS: tuple[str, ...] = (
    "agent_label", "judge_label", "agent", "judge", "scenario_id", "skill_id", "industry", "path", "persona",
    "expected_outcome", "user_sim", "mock", "pass_rule", "benchmark", "simulated", "status", "passed",
    "rule_passed", "judge_error", "infra_error", "termination", "termination_detail", "turns", "tool_calls", "tool_errors",
    "task_completion", *DIMENSION_NAMES, "hallucinated_action", "explanation", "fail_reasons",
    "hard_failures", "rollout_key", "verdict_key", "cost_usd", "prompt_tokens", "completion_tokens",
    "rollout_s", "judge_s", "job", "job_finished",
)  # fmt: skip


def group_value(config: dict[str, Any], group: str) -> dict[str, Any] | None:
    """The group's result-changing settings (the store keys' definition), with its name for labels."""
    value = config.get(group)
    if not isinstance(value, dict):
        return None
    settings = result_settings(config)[group]
    return settings if group == "run" else {"name": value.get("name"), **settings}


def _differing_keys(values: list[dict[str, Any]]) -> list[str]:
    keys = sorted({k for v in values for k in v})
    canon = [{k: json.dumps(v.get(k), sort_keys=True) for k in keys} for v in values]
    return [k for k in keys if len({c[k] for c in canon}) > 1]


def _variant(prefix: str, value: dict[str, Any], values: list[dict[str, Any]]) -> str:
    """``prefix`` plus the fields in which ``value`` differs from same-named values, e.g. ``paper(min_x=5)``."""
    same_name = [v for v in values if v.get("name") == value.get("name")]
    differing = [k for k in _differing_keys(same_name) if k != "name"]
    if not differing:
        return prefix
    return prefix + "(" + ",".join(f"{k}={json.dumps(value.get(k), sort_keys=True)}" for k in differing) + ")"


def job_labels(jobs: list[Job]) -> dict[Path, tuple[str, str]]:
    """(agent label, judge label) per job: names, plus whatever setting differs between the jobs.

    Same-named agents or judges whose configs differ (e.g. another temperature) get the differing
    fields appended, and a setting that differs between jobs (pass rule, benchmark, ...) is appended
    to the agent label, so two different configurations never share a row or column of a table.
    """
    labels: dict[Path, tuple[str, str]] = {}
    role_values = {
        role: [c for job in jobs if (c := group_value(job.config, role)) is not None]
        for role in ("agent", "judge")
    }
    group_values = {
        g: [v for job in jobs if (v := group_value(job.config, g)) is not None] for g in SETTING_GROUPS
    }
    varying = [g for g in SETTING_GROUPS if _differing_keys(group_values[g])]
    for job in jobs:
        names = {"agent": job.agent, "judge": job.judge}
        for role in names:
            cfg = group_value(job.config, role)
            if cfg is not None:
                names[role] = _variant(names[role], cfg, role_values[role])
        parts = []
        for group in varying:
            value = group_value(job.config, group)
            if value is not None:
                prefix = "run" if group == "run" else f"{group}={value.get('name')}"
                parts.append(_variant(prefix, value, group_values[group]))
        labels[job.path] = (" · ".join([names["agent"], *parts]), names["judge"])
    return labels


def _job_rule(job: Job) -> PassRuleConfig | None:
    """The job's own pass rule, read once per job (None when its config.json predates the current schema)."""
    try:
        return PassRuleConfig.model_validate(job.config.get("pass_rule"))
    except ValidationError:
        return None


def _row_record(
    row: ResultRow, job: str, finished: bool, rule: PassRuleConfig | None, agent_label: str, judge_label: str
) -> tuple[Any, ...]:
    """The row's values in ``COLUMNS`` order (a tuple: 42,500 dicts would cost ~100 MB at paper scale)."""
    scores = row.scores
    usage = row.usage.values()
    if row.infra_error is not None:
        status = "infra_error"
    elif row.passed is None:
        status = "judge_error"
    else:
        status = "passed" if row.passed else "failed"
    record: dict[str, Any] = {
        "agent_label": agent_label,
        "judge_label": judge_label,
        "agent": row.agent,
        "judge": row.judge,
        "scenario_id": row.scenario_id,
        "skill_id": row.skill_id,
        "industry": row.industry,
        "path": row.path,
        "persona": row.persona,
        "expected_outcome": row.expected_outcome,
        "user_sim": row.user_sim,
        "mock": row.mock,
        "pass_rule": row.pass_rule,
        "benchmark": row.benchmark,
        "simulated": row.simulated,
        "status": status,
        "passed": row.passed,
        "rule_passed": row.rule_passed,
        "judge_error": row.judge_error,
        "infra_error": row.infra_error,
        "termination": row.termination,
        "termination_detail": row.termination_detail,
        "turns": row.turns,
        "tool_calls": row.tool_calls,
        "tool_errors": row.tool_errors,
        "task_completion": scores.task_completion if scores else None,
        "hallucinated_action": scores.hallucinated_action if scores else None,
        "explanation": scores.explanation if scores else None,
        "fail_reasons": list(row.fail_reasons),
        # Hardness under the job's own pass rule (hard_checks), else each check's stored default.
        "hard_failures": [
            c.name for c in row.rule_checks if (rule.is_hard(c) if rule else c.hard) and not c.passed
        ],
        "rollout_key": row.rollout_key,
        "verdict_key": row.verdict_key,
        "cost_usd": sum(u.cost_usd for u in usage),
        "prompt_tokens": sum(u.prompt_tokens for u in usage),
        "completion_tokens": sum(u.completion_tokens for u in usage),
        "rollout_s": row.rollout_s,
        "judge_s": row.judge_s,
        "job": job,
        "job_finished": finished,
    }
    for dimension in DIMENSION_NAMES:
        record[dimension] = getattr(scores, dimension) if scores else None
    return tuple(map(record.__getitem__, COLUMNS))


def jobs_frame(jobs: list[Job], *, unfinished: bool = False, dedupe: bool = True) -> pd.DataFrame:
    """Rows of the given jobs. Unfinished jobs' rows are left out unless ``unfinished``.

    With ``dedupe``, a scenario present in several jobs of the same cell (a sweep re-run next to the
    interrupted one) keeps the row of the most recently finished job.
    """
    labels = job_labels(jobs)
    ordered = sorted(jobs, key=lambda j: (j.finished, j.finished_at), reverse=True)
    records: list[tuple[Any, ...]] = []
    with paused_gc():  # one tuple and two lists per row, all alive until the frame holds them
        for job in ordered:
            if not job.finished and not unfinished:
                continue
            agent_label, judge_label = labels[job.path]
            rule, name = _job_rule(job), str(job.path)
            records.extend(
                _row_record(row, name, job.finished, rule, agent_label, judge_label) for row in job.rows
            )
        frame = pd.DataFrame.from_records(records, columns=list(COLUMNS))
    if dedupe and not frame.empty:
        frame = frame.drop_duplicates(subset=["agent_label", "judge_label", "scenario_id"], keep="first")
    frame = frame.astype(
        {
            "passed": "boolean",
            "rule_passed": "boolean",
            "hallucinated_action": "boolean",
            "simulated": "boolean",
            "job_finished": "boolean",
            **dict.fromkeys(DIMENSION_NAMES, "Int64"),
        }
    )
    return frame.sort_values(["agent_label", "judge_label", "scenario_id"], kind="stable").reset_index(
        drop=True
    )


def load_results(paths: list[Path | str] | Path | str, *, unfinished: bool = False) -> pd.DataFrame:
    """Load runs or sweeps into a DataFrame with one row per scenario × agent × judge.

    ``paths``: job folders, sweep folders (outputs/multirun/<stamp>) or folders of sweeps.
    ``passed`` is a nullable boolean: <NA> for judge or infrastructure errors (see ``status``).
    """
    if isinstance(paths, str | Path):
        paths = [paths]
    return jobs_frame(load_jobs(list(paths)), unfinished=unfinished)
