"""The rule-check extension point: ``@rule_check`` registers a function, ``run_rule_checks`` runs them all.

A check is ``(ctx: CheckContext, *, <parameters with defaults>) -> CheckResult | None`` (None: not applicable
to this scenario). The decorator owns the check's name, default hardness and version, so the function body
holds only the logic. Keyword-only parameters are set from config (``checks.<name>.<parameter>``) and enter the
check's version, so rows of different settings never look alike.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from skillbench.benchmark.schema import Scenario, Skill
from skillbench.core.errors import BenchmarkCodeError
from skillbench.core.guest import fault_of
from skillbench.core.plugins import current_owner
from skillbench.core.records import Rollout, RuleCheck
from skillbench.core.registry import Registry


@dataclass(frozen=True, slots=True)
class CheckContext:
    """What a check may read: the transcript and the scenario and skill it was run on.

    ``rollout.tool_calls`` is in call order (the turn loop and the importer log it so, older rollouts are put back in
    order when read); a record belongs to the call and result message whose identity it carries (``call_seq``,
    see ``Rollout.call_records``), never to another call that shares its provider id (``call_id``)."""

    rollout: Rollout
    scenario: Scenario
    skill: Skill


@dataclass(frozen=True, slots=True)
class CheckResult:
    """A check's finding; :func:`run_rule_checks` turns it into a stored :class:`RuleCheck`."""

    passed: bool
    detail: str = ""


CheckFn = Callable[..., CheckResult | None]  # (ctx, **parameters)
CheckParams = Mapping[str, Mapping[str, Any]]  # check name -> parameter -> value (RunConfig.checks)


@dataclass(frozen=True, slots=True)
class RegisteredCheck:
    """One entry of :data:`RULE_CHECKS`."""

    name: str
    fn: CheckFn
    hard: bool
    version: str
    conditional: bool = False  # applies only to scenarios using an optional feature (listed only where it ran)
    params: dict[str, Any] = field(default_factory=dict)  # keyword-only parameters and their defaults
    # A plug-in's check runs only in jobs whose config names it (checks.<name>); a built-in one in every job.
    opt_in: bool = False

    def runs_with(self, given: CheckParams) -> bool:
        """Whether a job whose config sets ``given`` (RunConfig.checks) runs this check."""
        return not self.opt_in or self.name in given

    def settings(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Its parameters: the defaults, then what config gives."""
        return {**self.params, **(given or {})}

    def effective_version(self, given: Mapping[str, Any] | None = None) -> str:
        """The logic version, plus (for a check with parameters) a hash of the parameters it runs with."""
        if not self.params:
            return self.version
        blob = json.dumps(self.settings(given), sort_keys=True, default=str)
        return f"{self.version}+{hashlib.sha256(blob.encode()).hexdigest()[:8]}"

    def params_problem(self, given: Mapping[str, Any]) -> str | None:
        """Why ``given`` cannot be this check's parameters (an unknown name), or None."""
        unknown = sorted(set(given) - set(self.params))
        if not unknown:
            return None
        accepted = ", ".join(sorted(self.params)) or "none"
        return f"rule check {self.name!r} has no parameter {unknown[0]!r} (its parameters: {accepted})"


RULE_CHECKS: Registry[RegisteredCheck] = Registry("rule check")


def _keyword_params(fn: CheckFn) -> dict[str, Any]:
    """The check's keyword-only parameters with their defaults (each must have one: config may omit it)."""
    params: dict[str, Any] = {}
    for parameter in inspect.signature(fn).parameters.values():
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            if parameter.default is inspect.Parameter.empty:
                raise TypeError(f"rule check {fn.__name__}: parameter {parameter.name!r} needs a default")
            params[parameter.name] = parameter.default
    return params


def rule_check(name: str, *, hard: bool, version: str = "1", conditional: bool = False) -> Callable[[CheckFn], CheckFn]:
    """Register a rule check. ``hard``: its default hardness (a pass rule's ``hard_checks`` may override it).

    Bump ``version`` when the check's logic changes, so result rows tell old and new findings apart.
    ``conditional``: the check applies only to scenarios that use an optional feature (e.g. gold actions)
    and enters :func:`rule_checks_version` only for rows it produced, so rows of benchmarks without the
    feature keep the version they had before the check existed. A plug-in's check is registered as
    ``<plug-in namespace>/<name>`` and runs only in jobs whose config names it (``'+checks={acme/x:{}}'``), so
    installing or removing a plug-in changes no other job's rows, ``rule_checks_version`` or verdict keys.
    """

    def decorator(fn: CheckFn) -> CheckFn:
        full = RULE_CHECKS.registered_name(name)
        RULE_CHECKS.register(full)(RegisteredCheck(
            name=full, fn=fn, hard=hard, version=version, conditional=conditional, params=_keyword_params(fn),
            opt_in=current_owner() is not None,
        ))
        return fn

    return decorator


def run_rule_checks(rollout: Rollout, scenario: Scenario, skill: Skill, params: CheckParams | None = None) -> list[RuleCheck]:
    """Every check the job runs (the built-ins, and the plug-in checks ``params`` names), in registration order,
    with its parameters from ``params`` (RunConfig.checks). ``hard`` is the check's default hardness: the judge
    prompt shows it, and a pass rule's own choice is applied later so it never changes a verdict key."""
    ctx = CheckContext(rollout=rollout, scenario=scenario, skill=skill)
    params = params or {}
    checks: list[RuleCheck] = []
    for check in (check for check in RULE_CHECKS.values() if check.runs_with(params)):
        result = _run(check, ctx, params.get(check.name))
        if result is not None:
            checks.append(RuleCheck(name=check.name, passed=result.passed, hard=check.hard, detail=result.detail))
    return checks


def _run(check: RegisteredCheck, ctx: CheckContext, given: Mapping[str, Any] | None) -> CheckResult | None:
    """One check. A plug-in's check (``namespace/name``) is guest code: whatever it raises (``BaseException``
    included) is the benchmark's own fault, :class:`BenchmarkCodeError`, never the agent's; a built-in check's
    failure is skillbench's (an internal error: infrastructure)."""
    if "/" not in check.name:
        return check.fn(ctx, **check.settings(given)) if check.params else check.fn(ctx)
    try:
        result = check.fn(ctx, **check.settings(given)) if check.params else check.fn(ctx)
    except BaseException as exc:  # SystemExit, KeyboardInterrupt raised by it: still the check's own failure
        fault = fault_of(exc)
        raise BenchmarkCodeError(f"rule check {check.name} raised {fault.line()}", traceback=fault.traceback) from None
    if result is not None and not isinstance(result, CheckResult):
        raise BenchmarkCodeError(f"rule check {check.name} returned {type(result).__name__}, not a CheckResult or None")
    return result


def rule_checks_version(checks: Iterable[RuleCheck] = (), params: CheckParams | None = None) -> str:
    """A short hash of the (name, version, default hardness) list of the checks a job runs (the built-ins and
    the plug-in checks ``params`` names), each version with its parameters
    (:meth:`RegisteredCheck.effective_version`): rows from different check sets or settings carry different
    values. A conditional check is listed only when ``checks`` (a row's) hold it."""
    ran = {check.name for check in checks}
    params = params or {}
    listing = [[check.name, check.effective_version(params.get(check.name)), check.hard] for check in RULE_CHECKS.values()
               if check.runs_with(params) and (not check.conditional or check.name in ran)]
    return hashlib.sha256(json.dumps(listing).encode()).hexdigest()[:12]
