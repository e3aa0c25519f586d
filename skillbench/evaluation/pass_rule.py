"""The pass rule: a pure function of stored rule checks, judge scores and the ``pass_rule`` config."""

from __future__ import annotations

from skillbench.config.schema import PassRuleConfig
from skillbench.core.records import RuleCheck
from skillbench.core.rubric import DIMENSION_NAMES, JudgeScores
from skillbench.evaluation.records import PassDecision


def hard_failures(checks: list[RuleCheck], rule: PassRuleConfig) -> list[str]:
    """The reasons the rule's hard checks alone fail a row (none when the rule does not fail on them)."""
    if not rule.fail_on_hard_rule_failure:
        return []
    return [f"hard rule failure: {check.name}" for check in checks if rule.is_hard(check) and not check.passed]


def apply_pass_rule(checks: list[RuleCheck], scores: JudgeScores | None, rule: PassRuleConfig) -> PassDecision:
    """The rule on one judge verdict. ``scores=None`` (judge error) gives ``passed=None``: never a pass or a fail
    (a row's verdict, :func:`row_verdict`, still fails a row a hard check has already failed)."""
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
    reasons.extend(hard_failures(checks, rule))
    return PassDecision(passed=not reasons, reasons=reasons)


def rule_based_pass(checks: list[RuleCheck], rule: PassRuleConfig | None = None) -> bool:
    """The rule-based pass: no hard rule check failed (hard as ``rule`` says; None: each check's default)."""
    return all(check.passed for check in checks if (rule.is_hard(check) if rule is not None else check.hard))


def vote(verdicts: list[bool], how: str) -> bool:
    """majority: more than half pass (a tie fails); unanimous: every one passes. ``verdicts`` is not empty."""
    passes = sum(verdicts)
    return passes == len(verdicts) if how == "unanimous" else passes * 2 > len(verdicts)


def decide(
    checks: list[RuleCheck], scores: JudgeScores | None, samples: list[JudgeScores], rule: PassRuleConfig
) -> PassDecision:
    """The pass decision of one row: the rule on the judge's aggregate scores, or (``rule.sample_vote`` and
    k ≥ 2 samples) the vote of the rule's decision on each sample."""
    if rule.sample_vote is None or scores is None or len(samples) < 2:
        return apply_pass_rule(checks, scores, rule)
    decisions = [apply_pass_rule(checks, sample, rule) for sample in samples]
    if vote([bool(d.passed) for d in decisions], rule.sample_vote):
        return PassDecision(passed=True)
    failing = [d for d in decisions if not d.passed]
    reasons = [f"{len(failing)} of {len(decisions)} judge samples fail ({rule.sample_vote} vote)"]
    reasons += [reason for reason in failing[0].reasons if reason not in reasons]
    return PassDecision(passed=False, reasons=reasons)


def row_verdict(
    checks: list[RuleCheck], scores: JudgeScores | None, samples: list[JudgeScores], rule: PassRuleConfig
) -> PassDecision:
    """A result row's verdict: :func:`decide`, except that a row a hard rule check has already failed (a model error
    fails ``termination_reached``) is a fail when the judge gave no verdict — a known failure never leaves the
    denominator. The judge lab scores the judge itself, so it uses :func:`decide`."""
    decision = decide(checks, scores, samples, rule)
    if decision.passed is None:
        decided = hard_failures(checks, rule)
        if decided:
            return PassDecision(passed=False, reasons=[*decided, "no judge verdict needed (judge error)"])
    return decision
