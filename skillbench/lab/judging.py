"""Judge every labelled transcript with each judge config (verdicts cached in the store by verdict key)."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from skillbench.benchmark.loader import Benchmark
from skillbench.benchmark.schema import Scenario, Skill
from skillbench.config import RunConfig
from skillbench.core.records import Rollout, RuleCheck
from skillbench.core.rubric import DIMENSION_NAMES, JudgeScores
from skillbench.engine.job import make_context, obtain_verdict
from skillbench.evaluation import run_rule_checks
from skillbench.evaluation.pass_rule import apply_pass_rule, decide, rule_based_pass
from skillbench.evaluation.records import Verdict
from skillbench.lab.importer import Imported, applicable_checks
from skillbench.lab.labelled import make_case
from skillbench.lab.records import LabelledTranscript
from skillbench.prompts import render_judge_prompt

RULES = "rule checks"
PANEL = "panel (majority)"


# How the lab counts a judge error: the endpoint failed (infra: unreachable, no key, timeouts), or the replies came
# back but gave no valid scores (parse: unparseable, or blank after every retry).
JudgeErrorKind = Literal["infra", "parse"]
ERROR_KINDS: tuple[JudgeErrorKind, ...] = ("infra", "parse")


def error_kind(verdict: Verdict) -> JudgeErrorKind | None:
    if verdict.judge_error is None and verdict.scores is not None:
        return None
    return "infra" if verdict.error_kind == "infra" else "parse"


@dataclass
class Reading:
    """One judge's reading of one labelled transcript. A judge error gives no verdict (``passed`` None): it is
    counted as an error, never as a detection, a miss or a false alarm."""

    passed: bool | None
    scores: dict[str, int] = field(default_factory=dict)
    judge_passed: bool | None = None  # the pass rule on the scores alone, without the hard rule checks
    hallucinated: bool | None = None
    outcome: str | None = None
    sample_passes: list[bool] = field(default_factory=list)
    first_sample_passed: bool | None = None
    judge_error: str | None = None  # why no verdict came back (the verdict's judge_error)
    error_kind: JudgeErrorKind | None = None
    error_reason: str | None = None  # parse errors: why (cut_at_max_tokens, wrong_types, ...; docs/judges.md)
    record: JudgeScores | None = None  # the verdict's scores with the explanation (a result row's scores)
    fail_reasons: list[str] = field(default_factory=list)
    verdict_key: str | None = None


@dataclass
class JudgeRun:
    """Readings of one judge (a config, the rule baseline or the panel) keyed by labelled-transcript key."""

    name: str
    simulated: bool
    readings: dict[str, Reading]
    model_calls: int = 0
    samples: int = 1
    cfg: RunConfig | None = None  # the judge config (None: the rule baseline and the panel)

    def errors(self) -> dict[JudgeErrorKind, int]:
        """Judge errors per kind (infra, parse)."""
        counts = Counter(r.error_kind for r in self.readings.values() if r.error_kind is not None)
        return {kind: counts.get(kind, 0) for kind in ERROR_KINDS}

    def error_reasons(self) -> dict[str, int]:
        """Parse errors by reason, most frequent first."""
        return dict(Counter(r.error_reason or "other" for r in self.readings.values() if r.error_kind == "parse")
                    .most_common())

    def first_error(self) -> str | None:
        return next((r.judge_error for r in self.readings.values() if r.judge_error), None)

    @property
    def usable(self) -> int:
        """Transcripts this judge gave a verdict on."""
        return sum(1 for r in self.readings.values() if r.passed is not None)


@dataclass(frozen=True)
class Subject:
    """A transcript to judge, with the scenario and skill its judge prompt is rendered from."""

    key: str
    rollout: Rollout
    scenario: Scenario
    skill: Skill
    # An imported conversation: only the rule checks its data allows (None: every check), and the scenario facts
    # its record did not state. Both reach the judge prompt and the pass rule exactly as they reach the run's row.
    checks: tuple[RuleCheck, ...] | None = None
    not_given: tuple[str, ...] = ()

    def rule_checks(self) -> list[RuleCheck]:
        return list(self.checks) if self.checks is not None else run_rule_checks(self.rollout, self.scenario, self.skill)


def imported_subject(item: Imported) -> Subject:
    """An imported conversation to judge: the checks the import found applicable, the facts it did not know."""
    return Subject(item.rollout.key, item.rollout, item.context.scenario, item.context.skill,
                   checks=tuple(applicable_checks(item)), not_given=tuple(item.context.not_given))


def subject_prompt(subject: Subject, rubric_version: str) -> tuple[list[RuleCheck], str]:
    """The rule checks and the judge prompt a judge gets for ``subject``."""
    checks = subject.rule_checks()
    return checks, render_judge_prompt(subject.skill, subject.scenario, subject.rollout, checks, rubric_version,
                                       not_given=subject.not_given)


def lab_subjects(benchmark: Benchmark, items: list[LabelledTranscript]) -> list[Subject]:
    subjects = []
    for item in items:
        case = make_case(benchmark, item.rollout)
        assert case is not None  # the labelled set holds only the benchmark's scenarios
        subjects.append(Subject(item.key, item.rollout, case.scenario, case.skill))
    return subjects


def _scores(scores: JudgeScores | None) -> dict[str, int]:
    return {} if scores is None else {d: getattr(scores, d) for d in DIMENSION_NAMES}


async def _judge_all(cfg: RunConfig, benchmark: Benchmark, items: list[Subject]) -> JudgeRun:
    ctx = make_context(cfg, benchmark, total=len(items))
    limit = asyncio.Semaphore(cfg.judge.concurrency)
    calls = 0

    async def one(item: Subject) -> tuple[str, Reading]:
        nonlocal calls
        checks, prompt = subject_prompt(item, cfg.judge.rubric_version)
        async with limit:
            verdict, reused = await obtain_verdict(ctx, prompt, item.rollout)
        if not reused:
            calls += verdict.usage.calls
        sample_passes = [bool(apply_pass_rule(checks, s, cfg.pass_rule).passed) for s in verdict.samples]
        kind = error_kind(verdict)
        # The run's own decision (pass_rule.sample_vote included), not a row's verdict: the lab measures the judge, so
        # a judge error stays no verdict even where a hard check has already failed the row.
        outcome = decide(checks, verdict.scores, verdict.samples, cfg.pass_rule)
        return item.key, Reading(
            passed=outcome.passed,
            record=verdict.scores,
            fail_reasons=list(outcome.reasons),
            verdict_key=verdict.key,
            scores=_scores(verdict.scores),
            judge_passed=decide([], verdict.scores, verdict.samples, cfg.pass_rule).passed,
            hallucinated=None if verdict.scores is None else verdict.scores.hallucinated_action,
            outcome=None if verdict.scores is None else verdict.scores.task_completion,
            sample_passes=sample_passes,
            first_sample_passed=sample_passes[0] if sample_passes else None,
            judge_error=None if kind is None else (verdict.judge_error or "no scores came back"),
            error_kind=kind,
            error_reason=verdict.error_reason if kind == "parse" else None,
        )

    readings = dict(await asyncio.gather(*(one(item) for item in items)))
    return JudgeRun(cfg.judge.name, cfg.judge.simulated, readings, model_calls=calls, samples=cfg.judge.samples, cfg=cfg)


def judge_runs(configs: list[RunConfig], benchmark: Benchmark, items: list[Subject]) -> list[JudgeRun]:
    """One run per judge config, in the order given."""
    return [asyncio.run(_judge_all(cfg, benchmark, items)) for cfg in configs]


def rule_run(items: list[Subject], cfg: RunConfig) -> JudgeRun:
    """The deterministic baseline: a transcript fails when a hard rule check fails (no model, no scores).
    An imported transcript has only the checks its data allows (``Subject.checks``)."""
    readings = {item.key: Reading(passed=rule_based_pass(item.rule_checks(), cfg.pass_rule)) for item in items}
    return JudgeRun(RULES, False, readings)


def panel_run(runs: list[JudgeRun]) -> JudgeRun:
    """Majority of the judges' verdicts (a tie counts as a fail: a panel that cannot agree does not pass);
    per-dimension median scores, majority hallucination flag, plurality outcome."""
    readings: dict[str, Reading] = {}
    for key in runs[0].readings:
        votes = [r.readings[key].passed for r in runs if r.readings[key].passed is not None]
        alone = [r.readings[key].judge_passed for r in runs if r.readings[key].judge_passed is not None]
        scores = [r.readings[key].scores for r in runs if r.readings[key].scores]
        merged = {d: sorted(s[d] for s in scores)[len(scores) // 2] for d in DIMENSION_NAMES} if scores else {}
        flags = [r.readings[key].hallucinated for r in runs if r.readings[key].hallucinated is not None]
        outcomes = Counter(r.readings[key].outcome for r in runs if r.readings[key].outcome is not None).most_common()
        kinds = {r.readings[key].error_kind for r in runs}
        readings[key] = Reading(
            passed=(sum(votes) * 2 > len(votes)) if votes else None,
            scores=merged,
            judge_passed=(sum(alone) * 2 > len(alone)) if alone else None,
            hallucinated=(sum(flags) * 2 > len(flags)) if flags else None,
            # a plurality outcome; with no plurality the panel names none
            outcome=outcomes[0][0] if outcomes and (len(outcomes) == 1 or outcomes[0][1] > outcomes[1][1]) else None,
            # no judge of the panel gave a verdict: the panel has none either, for the same reason
            judge_error=None if votes else "no judge of the panel gave a verdict",
            error_kind=None if votes else ("infra" if "infra" in kinds else "parse"),
        )
    return JudgeRun(PANEL, all(r.simulated for r in runs), readings)
