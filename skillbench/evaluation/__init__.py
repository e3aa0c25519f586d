"""Scoring a transcript: deterministic rule checks, LLM judges, and the pass rule."""

from skillbench.core.records import RuleCheck
from skillbench.core.rubric import DIMENSION_NAMES, JudgeScores
from skillbench.evaluation.checks import (
    RULE_CHECKS,
    CheckContext,
    CheckResult,
    rule_check,
    rule_checks_version,
    run_rule_checks,
)
from skillbench.evaluation.judge import VerdictKeys, aggregate, judge_transcript, parse_scores, verdict_key
from skillbench.evaluation.pass_rule import apply_pass_rule, rule_based_pass
from skillbench.evaluation.records import PassDecision, Verdict

__all__ = [
    "DIMENSION_NAMES",
    "RULE_CHECKS",
    "CheckContext",
    "CheckResult",
    "JudgeScores",
    "PassDecision",
    "RuleCheck",
    "Verdict",
    "VerdictKeys",
    "aggregate",
    "apply_pass_rule",
    "judge_transcript",
    "parse_scores",
    "rule_based_pass",
    "rule_check",
    "rule_checks_version",
    "run_rule_checks",
    "verdict_key",
]
