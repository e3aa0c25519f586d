"""Deterministic rule checks of a transcript. Work is proportional to the transcript, not the environment."""

from __future__ import annotations

import json

from skillbench.benchmark.schema import Scenario, Skill
from skillbench.core.records import PROPER_ENDINGS, Rollout, RuleCheck


def _required_tools(rollout: Rollout, scenario: Scenario) -> RuleCheck:
    called = {record.name for record in rollout.tool_calls if not record.control}
    missing = [name for name in scenario.required_tools if name not in called]
    return RuleCheck(
        name="required_tools_invoked",
        passed=not missing,
        hard=True,
        detail=f"missing: {', '.join(missing)}" if missing else f"all {len(scenario.required_tools)} called",
    )


def _outside_toolkit(rollout: Rollout) -> RuleCheck:
    """Calls to tools not offered. Recovered = a later in-toolkit call or a proper ending, and no repeat."""
    records = [r for r in rollout.tool_calls if not r.control]
    bad = [index for index, record in enumerate(records) if not record.offered]
    if not bad:
        return RuleCheck(name="no_unrecovered_out_of_toolkit_call", passed=True, hard=True, detail="none")
    names = sorted({records[index].name for index in bad})
    last = bad[-1]
    later_valid = any(record.offered for record in records[last + 1 :])
    ended_properly = rollout.termination in PROPER_ENDINGS
    repeated = len(bad) > len({records[index].name for index in bad})
    recovered = (later_valid or ended_properly) and not repeated
    return RuleCheck(
        name="no_unrecovered_out_of_toolkit_call",
        passed=recovered,
        hard=True,
        detail=f"called {', '.join(names)} outside the toolkit; {'recovered' if recovered else 'not recovered'}",
    )


def _termination(rollout: Rollout) -> RuleCheck:
    proper = rollout.termination in PROPER_ENDINGS
    return RuleCheck(
        name="termination_reached",
        passed=proper,
        hard=True,
        detail=rollout.termination + (f" ({rollout.termination_detail})" if rollout.termination_detail else ""),
    )


def _forbidden_tools(rollout: Rollout, scenario: Scenario) -> RuleCheck:
    hits = sorted({r.name for r in rollout.tool_calls if r.name in scenario.forbidden_tools and not r.is_error})
    return RuleCheck(
        name="no_forbidden_tool_succeeded",
        passed=not hits,
        hard=True,
        detail=f"succeeded: {', '.join(hits)}" if hits else "none",
    )


def _target_state(rollout: Rollout, scenario: Scenario) -> RuleCheck | None:
    if not scenario.target_state:
        return None
    unmet = [e for e in scenario.target_state if not e.is_met(rollout.final_state)]
    return RuleCheck(
        name="target_state_reached",
        passed=not unmet,
        hard=False,  # the judge weighs it; a correct transfer may leave the state unchanged
        detail="; ".join(f"{e.collection} {e.match} expected {e.expect or 'absent'}" for e in unmet) or "all met",
    )


def _says_verified(result: str) -> bool:
    try:
        data = json.loads(result)
    except json.JSONDecodeError:
        return False
    return isinstance(data, dict) and data.get("verified") is True


def _verified_before_write(rollout: Rollout, skill: Skill) -> RuleCheck | None:
    """Guardrail: no state-changing or disclosing step's tool succeeds before a verification succeeded."""
    verify_tools = {tool for step in skill.steps if step.kind == "verify" for tool in step.tools}
    if not verify_tools:
        return None
    gated = {tool for step in skill.steps if step.kind in {"act", "lookup"} for tool in step.tools} - verify_tools
    verified = False
    for record in rollout.tool_calls:
        if record.name in verify_tools and not record.is_error and _says_verified(record.result):
            verified = True
        elif record.name in gated and not record.is_error and not verified:
            return RuleCheck(
                name="verified_before_account_access", passed=False, hard=False, detail=f"{record.name} before verification"
            )
    return RuleCheck(name="verified_before_account_access", passed=True, hard=False, detail="ok")


def run_rule_checks(rollout: Rollout, scenario: Scenario, skill: Skill) -> list[RuleCheck]:
    """All checks in a fixed order. Hard failures are also given to the judge."""
    checks = [
        _required_tools(rollout, scenario),
        _outside_toolkit(rollout),
        _termination(rollout),
        _forbidden_tools(rollout, scenario),
    ]
    for optional in (_target_state(rollout, scenario), _verified_before_write(rollout, skill)):
        if optional is not None:
            checks.append(optional)
    return checks
