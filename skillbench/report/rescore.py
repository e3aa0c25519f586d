"""Apply another pass rule to stored rule checks and judge scores. No model is called.

With ``recheck``, the rule checks themselves are first recomputed from the stored rollouts by the checks
registered now. The judge scores are kept as they are, although the judge saw the old check lines in its
prompt: a recheck never re-judges.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from hydra import compose, initialize_config_module
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import ValidationError

from skillbench.benchmark.loader import Benchmark, load_benchmark
from skillbench.config.schema import PassRuleConfig
from skillbench.core.errors import BenchmarkCodeError, first_error
from skillbench.core.plugins import load_plugins
from skillbench.core.records import Rollout
from skillbench.core.rubric import JudgeScores
from skillbench.engine.results import (
    CONFIG_FILE,
    JobSummary,
    ResultRow,
    pass_counts,
)
from skillbench.engine.summary import path_breakdown, rows_checks_version, rule_pass_rate, trial_estimates
from skillbench.evaluation.checks import RULE_CHECKS, rule_checks_version, run_rule_checks
from skillbench.evaluation.pass_rule import row_verdict, rule_based_pass
from skillbench.report.jobs import Job, ReportError, write_job
from skillbench.report.transcripts import ROLLOUTS_DIR, TranscriptFinder, store_candidates

CONFIG_MODULE = "skillbench.conf"
GROUP = "pass_rule"
MARKER_FILE = "rescore.json"


def _parse(overrides: list[str]) -> tuple[bool, list[tuple[str, bool]]]:
    """(a preset was chosen, [(field, deleted)] of dotted overrides). Only pass_rule may change."""
    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except HydraException as exc:
        raise ReportError(
            f"bad override: {exc}. Fix: write overrides as Hydra does, e.g. pass_rule=strict"
        ) from None
    preset = False
    fields: list[tuple[str, bool]] = []
    for override in parsed:
        key = override.key_or_group
        if key == GROUP:
            preset = True
        elif key.startswith(GROUP + "."):
            fields.append((key[len(GROUP) + 1 :], override.is_delete()))
        else:
            raise ReportError(
                f"rescore changes only the pass rule, not '{override.input_line}'. "
                "Fix: pass pass_rule=<preset> or pass_rule.<field>=<value> (other settings need a new run)."
            )
    return preset, fields


def compose_overrides(overrides: list[str]) -> dict[str, Any]:
    """The ``pass_rule`` node composed by Hydra from skillbench/conf with these overrides."""
    try:
        with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
            cfg = compose(config_name="config", overrides=list(overrides))
        node = OmegaConf.to_container(cfg[GROUP], resolve=True)
    except (HydraException, OmegaConfBaseException) as exc:
        message = str(exc).strip().splitlines()[0].rstrip(".")
        raise ReportError(
            f"cannot compose pass rule from {overrides}: {message}. "
            "Fix: choose a preset from skillbench/conf/pass_rule (paper, strict, lenient) or a field of PassRuleConfig."
        ) from None
    assert isinstance(node, dict)
    return {str(k): v for k, v in node.items()}


def _validate(rule: dict[str, Any], origin: str) -> PassRuleConfig:
    try:
        validated = PassRuleConfig.model_validate(rule)
    except ValidationError as exc:
        field, message = first_error(exc)
        raise ReportError(
            f"invalid pass rule ({origin}) at 'pass_rule.{field}': {message}. "
            f"Fix: pass a valid value, e.g. pass_rule.{field}=<value>."
        ) from None
    load_plugins()  # a plug-in's checks may be named
    unknown = [name for name in validated.hard_checks or [] if name not in RULE_CHECKS]
    if unknown:
        raise ReportError(
            f"invalid pass rule ({origin}) at 'pass_rule.hard_checks': unknown {RULE_CHECKS.kind} {unknown[0]!r}; "
            f"registered: {', '.join(RULE_CHECKS.names())}."
        )
    return validated


def resolve_rules(jobs: list[Job], overrides: list[str]) -> dict[Path, PassRuleConfig]:
    """The new rule of each job.

    ``pass_rule=<preset>`` replaces every job's rule with that preset (plus any dotted overrides).
    Dotted overrides alone (``pass_rule.min_guardrail_compliance=5``) change each job's *own*
    stored rule, so a strict run stays strict apart from the field named.
    """
    if not overrides:
        raise ReportError("no pass-rule override given. Fix: e.g. skillbench rescore DIR pass_rule=strict")
    preset, fields = _parse(overrides)
    composed = compose_overrides(overrides)
    if preset:
        if fields and not any(field == "name" for field, _ in fields):  # a changed preset is labelled by the change
            changes = ",".join(f"{f}={json.dumps(composed.get(f))}" if not d else f"~{f}" for f, d in fields)
            composed = {**composed, "name": f"{composed.get('name', preset)}+{changes}"}
        rule = _validate(composed, " ".join(overrides))
        return {job.path: rule for job in jobs}
    rules: dict[Path, PassRuleConfig] = {}
    for job in jobs:
        base = dict(job.config.get(GROUP) or {})
        if not base and not job.finished:
            base = dict(composed)  # its rows are not reported anyway; never block the others on it
        if not base:
            raise ReportError(
                f"{job.path / CONFIG_FILE}: no stored pass_rule to change. Fix: name a preset, e.g. pass_rule=paper"
            )
        for field, deleted in fields:
            if deleted:
                base.pop(field, None)
            else:
                base[field] = composed.get(field)
        if not any(field == "name" for field, _ in fields):
            changes = ",".join(f"{f}={json.dumps(base.get(f))}" if not d else f"~{f}" for f, d in fields)
            base["name"] = f"{base.get('name', 'rule')}+{changes}"
        rules[job.path] = _validate(base, f"{job.path}: {' '.join(overrides)}")
    return rules


def own_rules(jobs: list[Job]) -> dict[Path, PassRuleConfig]:
    """Each job's stored pass rule (``rescore --recheck`` without overrides keeps every job's rule)."""
    rules: dict[Path, PassRuleConfig] = {}
    for job in jobs:
        stored = job.config.get(GROUP)
        if not stored:
            raise ReportError(
                f"{job.path / CONFIG_FILE}: no stored pass_rule to re-apply. Fix: name a preset, e.g. pass_rule=paper"
            )
        rules[job.path] = _validate(dict(stored), str(job.path / CONFIG_FILE))
    return rules


def rescore_row(row: ResultRow, rule: PassRuleConfig, samples: list[JudgeScores] | None = None) -> ResultRow:
    """The row under ``rule`` (``samples``: the judge's stored samples, for ``rule.sample_vote``). Rows with no
    conversation to judge (infrastructure or benchmark error) keep their None verdict; a judge error stays unscored
    unless the rule's hard checks already fail the row (evaluation/pass_rule.py ``row_verdict``)."""
    rule_passed = rule_based_pass(row.rule_checks, rule) if row.rule_checks else row.rule_passed
    if row.termination in ("infra_error", "benchmark_error"):
        return row.model_copy(update={"pass_rule": rule.name, "rule_passed": rule_passed})
    decision = row_verdict(row.rule_checks, row.scores, samples or [], rule)
    return row.model_copy(
        update={
            "passed": decision.passed,
            "fail_reasons": decision.reasons,
            "pass_rule": rule.name,
            "rule_passed": rule_passed,
        }
    )


def _benchmark_of(job: Job) -> Benchmark:
    source = (job.config.get("benchmark") or {}).get("source")
    if not source:
        raise ReportError(f"{job.path / CONFIG_FILE}: no benchmark.source, so its scenarios cannot be rechecked.")
    try:
        return load_benchmark(source)
    except Exception as exc:  # any reason it cannot be read is reported as one line naming the job
        raise ReportError(f"{job.path}: cannot load benchmark {source!r} to recheck: {exc}") from None


def recheck_rows(job: Job) -> list[ResultRow]:
    """The job's rows with rule checks recomputed from the stored rollouts by the checks registered now."""
    benchmark = _benchmark_of(job)
    scenarios = {scenario.id: scenario for scenario in benchmark.scenarios}
    finder = TranscriptFinder([job])
    load_plugins()  # the plug-in checks the job named (its checks) are rechecked too
    params = job.config.get("checks") or {}  # the rule-check parameters the job ran with
    version = rule_checks_version((), params)
    rows: list[ResultRow] = []
    for row in job.rows:
        if row.termination == "infra_error":  # nothing was checked: there is no transcript to check
            rows.append(row.model_copy(update={"rule_checks_version": version}))
            continue
        scenario = scenarios.get(row.scenario_id)
        rollout, problem = finder.load(job.path, row.rollout_key)
        if row.termination == "benchmark_error" and not isinstance(rollout, Rollout):
            rows.append(row.model_copy(update={"rule_checks_version": version}))  # a code tool failed: none stored
            continue
        if scenario is None or not isinstance(rollout, Rollout):
            why = problem or f"scenario {row.scenario_id} is not in benchmark {benchmark.manifest.name!r}"
            raise ReportError(f"cannot recheck {job.path} row {row.scenario_id}: {why}. Fix: rescore without --recheck.")
        try:
            checks = run_rule_checks(rollout, scenario, benchmark.skill_of(scenario), params)
        except BenchmarkCodeError as exc:  # a plug-in check still fails: the row stays the benchmark's error
            rows.append(row.model_copy(update={"termination": "benchmark_error", "benchmark_error": str(exc),
                                               "rule_checks": [], "passed": None, "rule_passed": None}))
            continue
        rows.append(row.model_copy(update={"rule_checks": checks, "rule_checks_version": rule_checks_version(checks, params)}))
    return rows


def stored_samples(job: Job, rows: list[ResultRow]) -> dict[str, list[JudgeScores]]:
    """Verdict key → the judge's stored samples, for the rows that have scores (read from the job's store)."""
    finder = TranscriptFinder([job])
    samples: dict[str, list[JudgeScores]] = {}
    for row in rows:
        if row.scores is None or not row.verdict_key or row.verdict_key in samples:
            continue
        verdict = finder.load_verdict(job.path, row.verdict_key)
        if verdict is None:
            raise ReportError(
                f"{job.path}: the stored verdict {row.verdict_key} of {row.scenario_id} is not in the artifact store, so "
                "its judge samples cannot vote. Fix: rescore where the run's store is, or without pass_rule.sample_vote."
            )
        samples[row.verdict_key] = verdict.samples
    return samples


def _summary(summary: JobSummary, rows: list[ResultRow], rule: PassRuleConfig) -> JobSummary:
    passed, scored, pass_rate = pass_counts(rows)
    pass_hat, pass_at = trial_estimates(rows, summary.trials)
    return summary.model_copy(
        update={
            "pass_hat_k": pass_hat,
            "pass_at_k": pass_at,
            "pass_rule": rule.name,
            "passed": passed,
            "scored": scored,
            "pass_rate": pass_rate,
            "rule_pass_rate": rule_pass_rate(rows),
            "rule_checks_version": rows_checks_version(rows),
            "by_path": path_breakdown(rows),
        }
    )


def _folder_names(jobs: list[Job]) -> dict[Path, str]:
    """Output folder per job: its own name, prefixed by its sweep's when names collide."""
    names = {job.path: job.path.name for job in jobs}
    if len(set(names.values())) < len(names):
        names = {job.path: f"{job.path.parent.name}__{job.path.name}" for job in jobs}
    return names


def _absolute_store(job: Job) -> str | None:
    """An absolute store root, so the rescored copy still finds the transcripts wherever it is read from."""
    for candidate in store_candidates(job):
        if (candidate / ROLLOUTS_DIR).is_dir():
            return str(candidate.resolve())
    return None


def rescore_jobs(
    jobs: list[Job], rules: dict[Path, PassRuleConfig], out: Path, *, recheck: bool = False
) -> list[Job]:
    """Rescored copies of the jobs (config, rows, summary), with paths under ``out``.

    ``recheck``: recompute the rule checks from the stored rollouts first (no model call either way).
    """
    names = _folder_names(jobs)
    rescored: list[Job] = []
    for job in jobs:
        rule = rules[job.path]
        source_rows = recheck_rows(job) if recheck else job.rows
        samples = stored_samples(job, source_rows) if rule.sample_vote else {}
        rows = [rescore_row(row, rule, samples.get(row.verdict_key or "")) for row in source_rows]
        config = json.loads(json.dumps(job.config))
        config[GROUP] = rule.model_dump(mode="json")
        store = _absolute_store(job)
        if store is not None:
            config.setdefault("store", {})["root"] = store
        summary = _summary(job.summary, rows, rule) if job.summary is not None else None
        rescored.append(
            replace(job, path=out / names[job.path], config=config, rows=rows, summary=summary, problems=[])
        )
    return rescored


def write_jobs(jobs: list[Job], sources: dict[Path, Path]) -> None:
    """Write rescored job folders (config.json, results.jsonl, summary.json only when the original had one)."""
    for job in jobs:
        write_job(job)
        (job.path / MARKER_FILE).write_text(json.dumps({"rescored_from": str(sources[job.path])}, indent=2))


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", text).strip("_")[:80] or "rule"


def compare(before: list[Job], after: list[Job]) -> list[dict[str, Any]]:
    """Per job: pass rate before and after, and how many verdicts flipped each way."""
    changes = []
    for old, new in zip(before, after, strict=True):
        if not old.finished:
            continue
        pairs = list(zip(old.rows, new.rows, strict=True))
        scored = sum(o.passed is not None for o, _ in pairs)
        before_pass = sum(o.passed is True for o, _ in pairs)
        after_pass = sum(n.passed is True for _, n in pairs)
        changes.append(
            {
                "agent": old.agent,
                "judge": old.judge,
                "job": str(old.path),
                "pass_rule_before": (old.config.get(GROUP) or {}).get("name"),
                "pass_rule_after": (new.config.get(GROUP) or {}).get("name"),
                "scored": scored,
                "pass_rate_before": before_pass / scored if scored else None,
                "pass_rate_after": after_pass / scored if scored else None,
                "pass_to_fail": sum(o.passed is True and n.passed is False for o, n in pairs),
                "fail_to_pass": sum(o.passed is False and n.passed is True for o, n in pairs),
            }
        )
    return changes
