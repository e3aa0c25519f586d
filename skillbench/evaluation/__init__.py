"""Scoring a transcript: deterministic rule checks, LLM judges, and the pass rule."""

from skillbench.evaluation.judge import aggregate, judge_transcript, parse_scores, verdict_key
from skillbench.evaluation.pass_rule import apply_pass_rule, rule_based_pass
from skillbench.evaluation.records import SCORE_DIMENSIONS, JudgeScores, PassDecision, RuleCheck, Verdict
from skillbench.evaluation.rules import run_rule_checks

__all__ = [
    "SCORE_DIMENSIONS",
    "JudgeScores",
    "PassDecision",
    "RuleCheck",
    "Verdict",
    "aggregate",
    "apply_pass_rule",
    "judge_transcript",
    "parse_scores",
    "rule_based_pass",
    "run_rule_checks",
    "verdict_key",
]
