"""Job rows as one pandas DataFrame: one row per scenario × trial × agent × judge (× varying setting)."""

from __future__ import annotations

import json
import warnings
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from skillbench.config.schema import PassRuleConfig
from skillbench.core.collector import paused_gc
from skillbench.core.rubric import DIMENSION_NAMES
from skillbench.engine.results import ResultRow
from skillbench.report.jobs import Job, damage_lines, load_jobs, running_lines
from skillbench.store.keys import PROGRAM_IDENTITY_FIELDS, result_settings

# Config groups that change results besides agent and judge. When one differs between the loaded
# jobs, the agent label carries it ("sim_careful · pass_rule=strict") so tables never mix settings.
SETTING_GROUPS: tuple[str, ...] = ("user_sim", "mock", "pass_rule", "benchmark", "run")

# ResultRow fields that are columns as they are, in column order (between the computed columns).
_SCENARIO_FIELDS = (
    "agent", "judge", "scenario_id", "trial", "skill_id", "industry", "path", "persona", "expected_outcome",
    "user_sim", "mock", "pass_rule", "benchmark", "simulated",
)  # fmt: skip
_OUTCOME_FIELDS = (
    "passed", "rule_passed", "judge_error", "infra_error", "termination", "termination_detail", "turns",
    "tool_calls", "tool_errors", "abandoned_attempts", "judge_error_reason",
)  # fmt: skip
_SCORE_FIELDS = ("task_completion", *DIMENSION_NAMES, "hallucinated_action", "explanation")  # of row.scores
_KEY_FIELDS = ("rollout_key", "verdict_key")
_TIME_FIELDS = ("rollout_s", "judge_s")

COLUMNS: tuple[str, ...] = (
    "agent_label", "judge_label", *_SCENARIO_FIELDS, "status", *_OUTCOME_FIELDS, *_SCORE_FIELDS,
    "fail_reasons", "hard_failures", *_KEY_FIELDS, "cost_usd", "prompt_tokens", "completion_tokens",
    *_TIME_FIELDS, "job", "job_finished",
)  # fmt: skip


def group_value(config: dict[str, Any], group: str) -> dict[str, Any] | None:
    """The group's result-changing settings (the store keys' definition), with its name for labels."""
    value = config.get(group)
    if not isinstance(value, dict):
        return None
    settings = result_settings(config)[group]
    if group == "agent":  # a plain agent's identity leaves the program fields out: compared as its config holds them,
        # so two configs that both hold `models: {}` never differ in `models`, and `program: null` still differs
        settings = {**{key: value.get(key) for key in PROGRAM_IDENTITY_FIELDS if key in value}, **settings}
    return settings if group == "run" else {"name": value.get("name"), **settings}


def _differing_keys(values: list[dict[str, Any]]) -> list[str]:
    keys = sorted({k for v in values for k in v})
    canon = [{k: json.dumps(v.get(k), sort_keys=True) for k in keys} for v in values]
    return [k for k in keys if len({c[k] for c in canon}) > 1]


def _variant(prefix: str, value: dict[str, Any], differing: dict[Any, list[str]]) -> str:
    """``prefix`` plus the fields in which ``value`` differs from same-named values, e.g. ``paper(min_x=5)``;
    ``differing``: name → the keys in which that name's values differ (``_differing_by_name``)."""
    keys = [k for k in differing[value.get("name")] if k != "name"]
    if not keys:
        return prefix
    return prefix + "(" + ",".join(f"{k}={json.dumps(value.get(k), sort_keys=True)}" for k in keys) + ")"


def _differing_by_name(values: list[dict[str, Any]]) -> dict[Any, list[str]]:
    by_name: dict[Any, list[dict[str, Any]]] = {}
    for value in values:
        by_name.setdefault(value.get("name"), []).append(value)
    return {name: _differing_keys(same_name) for name, same_name in by_name.items()}


def job_labels(jobs: list[Job]) -> dict[Path, tuple[str, str]]:
    """(agent label, judge label) per job: names, plus whatever setting differs between the jobs.

    Same-named agents or judges whose configs differ (e.g. another temperature) get the differing
    fields appended, and a setting that differs between jobs (pass rule, benchmark, ...) is appended
    to the agent label, so two different configurations never share a row or column of a table.
    """
    groups = ("agent", "judge", *SETTING_GROUPS)
    job_values = {job.path: {g: group_value(job.config, g) for g in groups} for job in jobs}
    present = {g: [v for values in job_values.values() if (v := values[g]) is not None] for g in groups}
    differing = {g: _differing_by_name(present[g]) for g in groups}
    varying = [g for g in SETTING_GROUPS if _differing_keys(present[g])]
    labels: dict[Path, tuple[str, str]] = {}
    for job in jobs:
        values = job_values[job.path]
        names = {"agent": job.agent, "judge": job.judge}
        for role in names:
            if (cfg := values[role]) is not None:
                names[role] = _variant(names[role], cfg, differing[role])
        parts = []
        for group in varying:
            if (value := values[group]) is not None:
                prefix = "run" if group == "run" else f"{group}={value.get('name')}"
                parts.append(_variant(prefix, value, differing[group]))
        labels[job.path] = (" · ".join([names["agent"], *parts]), names["judge"])
    return labels


def _job_rule(job: Job) -> PassRuleConfig | None:
    """The job's own pass rule, read once per job (None when its config.json predates the current schema)."""
    try:
        return PassRuleConfig.model_validate(job.config.get("pass_rule"))
    except ValidationError:
        return None


# Columns of text (names, ids, free text; None where a row has none) are held as Python objects: the rows' own
# strings, shared. pandas 3 would otherwise copy every string into an Arrow array (pyarrow is installed with the
# parquet extra) and build a new Python string at every ``tolist``/``map`` the figures and the page make: at paper
# scale ~70 MB more at the peak and ~1 s more CPU.
TEXT_COLUMNS: frozenset[str] = frozenset({
    "agent_label", "judge_label", "agent", "judge", "scenario_id", "skill_id", "industry", "path", "persona",
    "expected_outcome", "user_sim", "mock", "pass_rule", "benchmark", "status", "judge_error", "infra_error",
    "termination", "termination_detail", "judge_error_reason", "task_completion", "explanation", "rollout_key",
    "verdict_key", "job",
})  # fmt: skip
# The other columns' types: pandas infers int64 or float64 (an int 0 cost where no row has usage), these are set.
_DTYPES: dict[str, str] = {
    "passed": "boolean", "rule_passed": "boolean", "hallucinated_action": "boolean", "simulated": "boolean",
    "job_finished": "boolean", **dict.fromkeys(DIMENSION_NAMES, "Int64"),
}  # fmt: skip
# Per row and column of these groups, the attribute read (scores: of row.scores, None without scores).
_ROW_ATTRIBUTES = (*_SCENARIO_FIELDS, *_OUTCOME_FIELDS, *_KEY_FIELDS, *_TIME_FIELDS)


def _status(row: ResultRow) -> str:
    if row.infra_error is not None:
        return "infra_error"
    if row.passed is None:
        return "judge_error"
    return "passed" if row.passed else "failed"


def _usage_totals(row: ResultRow) -> tuple[float, int, int]:
    """Cost (an int 0, as sum() gives it, when the row has no usage), prompt and completion tokens."""
    cost: float = 0
    prompt_tokens = completion_tokens = 0
    for usage in row.usage.values():
        cost += usage.cost_usd
        prompt_tokens += usage.prompt_tokens
        completion_tokens += usage.completion_tokens
    return cost, prompt_tokens, completion_tokens


def _job_columns(job: Job, labels: tuple[str, str], columns: dict[str, list[Any]]) -> None:
    """Append the job's rows to ``columns`` (column → values), one column at a time: no per-row record is built,
    so nothing but the columns' own lists is allocated between the rows' objects."""
    rows = job.rows
    rule = _job_rule(job)
    n = len(rows)
    for name in ("agent_label", "judge_label"):
        columns[name].extend([labels[name == "judge_label"]] * n)
    for name in _ROW_ATTRIBUTES:
        columns[name].extend(map(attrgetter(name), rows))
    columns["status"].extend(map(_status, rows))
    scores = [row.scores for row in rows]
    for name in _SCORE_FIELDS:
        get = attrgetter(name)
        columns[name].extend([None if s is None else get(s) for s in scores])
    columns["fail_reasons"].extend([list(row.fail_reasons) for row in rows])
    # Hardness under the job's own pass rule (hard_checks), else each check's stored default.
    columns["hard_failures"].extend(
        [[c.name for c in row.rule_checks if not c.passed and (rule.is_hard(c) if rule else c.hard)] for row in rows]
    )
    totals = list(map(_usage_totals, rows))
    for i, name in enumerate(("cost_usd", "prompt_tokens", "completion_tokens")):
        columns[name].extend([t[i] for t in totals])
    columns["job"].extend([str(job.path)] * n)
    columns["job_finished"].extend([job.finished] * n)


def _column(name: str, values: list[Any]) -> pd.Series:
    if name in TEXT_COLUMNS:
        return pd.Series(values, dtype=object, name=name)
    series = pd.Series(values, dtype=object if not values else None, name=name)
    return series.astype(_DTYPES[name]) if name in _DTYPES else series


def jobs_frame(
    jobs: list[Job],
    *,
    unfinished: bool = False,
    dedupe: bool = True,
    labels: dict[Path, tuple[str, str]] | None = None,
) -> pd.DataFrame:
    """Rows of the given jobs. Unfinished jobs' rows are left out unless ``unfinished``; ``labels``:
    ``job_labels(jobs)``, when the caller has it already.

    With ``dedupe``, a scenario (and trial) present in several jobs of the same cell (a sweep re-run next to
    the interrupted one) keeps the row of the most recently finished job. Ordered by agent label, judge label,
    scenario and trial. Text columns hold Python strings (object dtype, ``TEXT_COLUMNS``), None where a row has none.
    """
    labels = labels if labels is not None else job_labels(jobs)
    ordered = sorted(jobs, key=lambda j: (j.finished, j.finished_at), reverse=True)
    columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    with paused_gc():  # two lists per row, alive until the frame holds them
        for job in ordered:
            if job.finished or unfinished:
                _job_columns(job, labels[job.path], columns)
        # The frame's order: agent label, judge label, scenario, trial; stable, so a cell's rows of one scenario
        # stay newest job first, and the first of them is the one kept.
        keys = list(zip(*(columns[c] for c in ("agent_label", "judge_label", "scenario_id", "trial")), strict=True))
        order = sorted(range(len(keys)), key=keys.__getitem__)
        if dedupe:
            order = [i for n, i in enumerate(order) if n == 0 or keys[i] != keys[order[n - 1]]]
        del keys
        take = itemgetter(*order) if len(order) > 1 else (lambda values: [values[i] for i in order])
        series = [_column(name, list(take(columns.pop(name)))) for name in COLUMNS]
    return pd.DataFrame({column.name: column for column in series}, copy=False)


def load_results(paths: list[Path | str] | Path | str, *, unfinished: bool = False) -> pd.DataFrame:
    """Load runs or sweeps into a DataFrame with one row per scenario × trial × agent × judge.

    ``paths``: job folders, sweep folders (outputs/multirun/<stamp>) or folders of sweeps.
    ``passed`` is a nullable boolean: <NA> for judge or infrastructure errors (see ``status``).
    Damaged lines of results.jsonl are skipped, never the file: each is named in a ``UserWarning`` and listed in
    ``frame.attrs["damaged"]``; jobs still being written are listed in ``frame.attrs["running"]``.
    """
    if isinstance(paths, str | Path):
        paths = [paths]
    jobs = load_jobs(list(paths))
    frame = jobs_frame(jobs, unfinished=unfinished)
    frame.attrs["damaged"] = damage_lines(jobs)
    frame.attrs["running"] = running_lines(jobs)
    for line in frame.attrs["damaged"]:
        warnings.warn(f"damaged input: {line}", UserWarning, stacklevel=2)
    for line in frame.attrs["running"]:
        warnings.warn(line, UserWarning, stacklevel=2)
    return frame
