"""The rule-check extension point: ``@rule_check`` registers a function, ``run_rule_checks`` runs them all.

A check is ``(ctx: CheckContext) -> CheckResult | None`` (None: not applicable to this scenario). The
decorator owns the check's name, default hardness and version, so the function body holds only the logic.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from skillbench.benchmark.schema import Scenario, Skill
from skillbench.core.records import Rollout, RuleCheck
from skillbench.core.registry import Registry


@dataclass(frozen=True, slots=True)
class CheckContext:
    """What a check may read: the transcript and the scenario and skill it was run on."""

    rollout: Rollout
    scenario: Scenario
    skill: Skill


@dataclass(frozen=True, slots=True)
class CheckResult:
    """A check's finding; :func:`run_rule_checks` turns it into a stored :class:`RuleCheck`."""

    passed: bool
    detail: str = ""


CheckFn = Callable[[CheckContext], CheckResult | None]


@dataclass(frozen=True, slots=True)
class RegisteredCheck:
    """One entry of :data:`RULE_CHECKS`."""

    name: str
    fn: CheckFn
    hard: bool
    version: str
    conditional: bool = False  # applies only to scenarios using an optional feature (listed only where it ran)


RULE_CHECKS: Registry[RegisteredCheck] = Registry("rule check")


def rule_check(name: str, *, hard: bool, version: str = "1", conditional: bool = False) -> Callable[[CheckFn], CheckFn]:
    """Register a rule check. ``hard``: its default hardness (a pass rule's ``hard_checks`` may override it).

    Bump ``version`` when the check's logic changes, so result rows tell old and new findings apart.
    ``conditional``: the check applies only to scenarios that use an optional feature (e.g. gold actions)
    and enters :func:`rule_checks_version` only for rows it produced, so rows of benchmarks without the
    feature keep the version they had before the check existed.
    """

    def decorator(fn: CheckFn) -> CheckFn:
        RULE_CHECKS.register(name)(RegisteredCheck(name=name, fn=fn, hard=hard, version=version, conditional=conditional))
        return fn

    return decorator


def run_rule_checks(rollout: Rollout, scenario: Scenario, skill: Skill) -> list[RuleCheck]:
    """Every registered check, in registration order. ``hard`` is the check's default hardness: the
    judge prompt shows it, and a pass rule's own choice is applied later so it never changes a verdict key."""
    ctx = CheckContext(rollout=rollout, scenario=scenario, skill=skill)
    checks: list[RuleCheck] = []
    for check in RULE_CHECKS.values():
        result = check.fn(ctx)
        if result is not None:
            checks.append(RuleCheck(name=check.name, passed=result.passed, hard=check.hard, detail=result.detail))
    return checks


def rule_checks_version(checks: Iterable[RuleCheck] = ()) -> str:
    """A short hash of the registered (name, version, default hardness) list: rows from different check
    sets carry different values. A conditional check is listed only when ``checks`` (a row's) hold it."""
    ran = {check.name for check in checks}
    listing = [[check.name, check.version, check.hard] for check in RULE_CHECKS.values()
               if not check.conditional or check.name in ran]
    return hashlib.sha256(json.dumps(listing).encode()).hexdigest()[:12]
