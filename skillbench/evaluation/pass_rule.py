"""The pass rule: a pure function of stored rule checks, judge scores and the ``pass_rule`` config."""

from __future__ import annotations

from skillbench.config.schema import PassRuleConfig
from skillbench.core.records import RuleCheck
from skillbench.core.rubric import DIMENSION_NAMES, JudgeScores
from skillbench.evaluation.records import PassDecision


def apply_pass_rule(checks: list[RuleCheck], scores: JudgeScores | None, rule: PassRuleConfig) -> PassDecision:
    """Verdict for one scenario. ``scores=None`` (judge error) gives ``passed=None``: never a pass or a fail."""
    if scores is None:
        return PassDecision(passed=None, reasons=["no verdict (judge error)"])
    reasons: list[str] = []
    if scores.task_completion not in rule.allowed_outcomes:
        reasons.append(f"task_completion={scores.task_completion} not in {list(rule.allowed_outcomes)}")
    for dimension in DIMENSION_NAMES:
        minimum = rule.minimum(dimension)
        value = getattr(scores, dimension)
        if minimum is not None and value < minimum:
            reasons.append(f"{dimension}={value} < {minimum}")
    if rule.fail_on_hallucinated_action and scores.hallucinated_action:
        reasons.append("hallucinated_action")
    if rule.fail_on_hard_rule_failure:
        reasons.extend(f"hard rule failure: {check.name}" for check in checks if rule.is_hard(check) and not check.passed)
    return PassDecision(passed=not reasons, reasons=reasons)


def rule_based_pass(checks: list[RuleCheck], rule: PassRuleConfig | None = None) -> bool:
    """The rule-based pass: no hard rule check failed (hard as ``rule`` says; None: each check's default)."""
    return all(check.passed for check in checks if (rule.is_hard(check) if rule is not None else check.hard))
