"""The built-in rule checks. Work is proportional to the transcript, not the environment.

They live in one module because registration order is the order of ``RuleCheck`` rows and judge-prompt
lines; reordering them would change every verdict key.
"""

from __future__ import annotations

import json
from collections import Counter

from skillbench.benchmark.gold import arguments_match, describe_action, match_gold_actions, state_differences
from skillbench.core import paths
from skillbench.core.records import PROPER_ENDINGS
from skillbench.evaluation.checks.registry import CheckContext, CheckResult, rule_check


# v2: only a successful call counts (failed attempts are told in the detail). Exception: a tool the
# scenario scripts to fail more often than the retry policy allows can never succeed, so attempting it
# is all the agent can do (the tool_failure → transfer scenarios).
@rule_check("required_tools_invoked", hard=True, version="2")
def required_tools(ctx: CheckContext) -> CheckResult:
    records = [record for record in ctx.rollout.tool_calls if not record.control]
    unreachable = paths.unrecoverable_tools(ctx.scenario.tool_failures)
    done = {record.name for record in records if not record.is_error or record.name in unreachable}
    missing = [name for name in ctx.scenario.required_tools if name not in done]
    failed = Counter(record.name for record in records if record.is_error and record.name in ctx.scenario.required_tools)
    detail = f"missing: {', '.join(missing)}" if missing else f"all {len(ctx.scenario.required_tools)} succeeded"
    if not missing and unreachable & set(ctx.scenario.required_tools):
        detail += f" or were attempted ({', '.join(sorted(unreachable))} always fails in this scenario)"
    if failed:
        detail += "; failed attempts: " + ", ".join(f"{name} ×{count}" for name, count in sorted(failed.items()))
    return CheckResult(passed=not missing, detail=detail)


@rule_check("no_unrecovered_out_of_toolkit_call", hard=True)
def outside_toolkit(ctx: CheckContext) -> CheckResult:
    """Calls to tools not offered. Recovered = a later in-toolkit call or a proper ending, and no repeat."""
    records = [r for r in ctx.rollout.tool_calls if not r.control]
    bad = [index for index, record in enumerate(records) if not record.offered]
    if not bad:
        return CheckResult(passed=True, detail="none")
    names = sorted({records[index].name for index in bad})
    later_valid = any(record.offered for record in records[bad[-1] + 1 :])
    ended_properly = ctx.rollout.termination in PROPER_ENDINGS
    repeated = len(bad) > len({records[index].name for index in bad})
    recovered = (later_valid or ended_properly) and not repeated
    return CheckResult(
        passed=recovered,
        detail=f"called {', '.join(names)} outside the toolkit; {'recovered' if recovered else 'not recovered'}",
    )


@rule_check("termination_reached", hard=True)
def termination(ctx: CheckContext) -> CheckResult:
    rollout = ctx.rollout
    detail = rollout.termination + (f" ({rollout.termination_detail})" if rollout.termination_detail else "")
    return CheckResult(passed=rollout.termination in PROPER_ENDINGS, detail=detail)


@rule_check("no_forbidden_tool_succeeded", hard=True)
def forbidden_tools(ctx: CheckContext) -> CheckResult:
    forbidden = ctx.scenario.forbidden_tools
    hits = sorted({r.name for r in ctx.rollout.tool_calls if r.name in forbidden and not r.is_error})
    return CheckResult(passed=not hits, detail=f"succeeded: {', '.join(hits)}" if hits else "none")


# Soft by default: the judge weighs it, since a correct transfer may leave the state unchanged.
@rule_check("target_state_reached", hard=False)
def target_state(ctx: CheckContext) -> CheckResult | None:
    if not ctx.scenario.target_state:
        return None
    unmet = [e for e in ctx.scenario.target_state if not e.is_met(ctx.rollout.final_state)]
    detail = "; ".join(f"{e.collection} {e.match} expected {e.expect or 'absent'}" for e in unmet) or "all met"
    return CheckResult(passed=not unmet, detail=detail)


def _says_verified(result: str) -> bool:
    try:
        data = json.loads(result)
    except json.JSONDecodeError:
        return False
    return isinstance(data, dict) and data.get("verified") is True


@rule_check("verified_before_account_access", hard=False)
def verified_before_write(ctx: CheckContext) -> CheckResult | None:
    """Guardrail: no state-changing or disclosing step's tool succeeds before a verification succeeded."""
    steps = ctx.skill.steps
    verify_tools = {tool for step in steps if step.kind == "verify" for tool in step.all_tools()}
    if not verify_tools:
        return None
    gated = {tool for step in steps if step.kind in {"act", "lookup"} for tool in step.all_tools()} - verify_tools
    verified = False
    for record in ctx.rollout.tool_calls:
        if record.name in verify_tools and not record.is_error and _says_verified(record.result):
            verified = True
        elif record.name in gated and not record.is_error and not verified:
            return CheckResult(passed=False, detail=f"{record.name} before verification")
    return CheckResult(passed=True, detail="ok")


def _user_ended(ctx: CheckContext) -> CheckResult | None:
    """A conversation the caller ended (a stop marker, a hang-up: who spoke last) judged by what happened before.

    success: reached when every tool the scenario requires succeeded before the caller left, missed when one did
    not; with no required tool known (an imported conversation without a scenario) nothing in the record shows
    success or its absence, so the check does not apply and the judge decides. A transfer is shown only by a
    transfer, so appropriately_transferred is missed. appropriately_out_of_scope: reached when the agent changed
    nothing (no tool call succeeded), else left to the judge.
    """
    expected = ctx.scenario.expected_outcome
    wanted = paths.expected_termination(expected)
    done = {r.name for r in ctx.rollout.tool_calls if not r.control and not r.is_error}
    if wanted == "resolved":
        required = ctx.scenario.required_tools
        if not required:
            return None
        missing = [name for name in required if name not in done]
        if missing:
            return CheckResult(passed=False, detail=f"expected {expected}; the caller ended before {', '.join(missing)} succeeded")
        return CheckResult(passed=True, detail=f"expected {expected}; the caller ended after all {len(required)} required tool(s) succeeded")
    if wanted == "transferred":
        return CheckResult(passed=False, detail=f"expected {expected} (ends {wanted}); the caller ended with no transfer")
    if done:
        return None
    return CheckResult(passed=True, detail=f"expected {expected}; the caller ended and the agent had changed nothing")


# Soft by default (the paper's rule leaves the outcome to the judge); pass_rule=state_strict makes it hard.
# v2: a caller-ended conversation is read by what happened, not failed for who spoke last (_user_ended).
@rule_check("outcome_matches_expected", hard=False, version="2")
def outcome_matches_expected(ctx: CheckContext) -> CheckResult | None:
    expected = ctx.scenario.expected_outcome
    wanted = paths.expected_termination(expected)  # the one termination that shows it
    ended = ctx.rollout.termination
    if ended == "user_ended":
        return _user_ended(ctx)
    return CheckResult(passed=ended == wanted, detail=f"expected {expected} (ends {wanted}); ended {ended}")


# -- gold actions (scenarios that list them; conditional: other rows keep their rule_checks_version) --------


@rule_check("end_state_matches_gold", hard=False, conditional=True)
def end_state_matches_gold(ctx: CheckContext) -> CheckResult | None:
    """The whole final state equals the one the gold actions produce (volatile fields ignored)."""
    gold = ctx.scenario.gold
    if gold is None:
        return None
    differences = state_differences(ctx.rollout.final_state, gold.expected_state, gold.volatile, comparison=gold.comparison)
    return CheckResult(passed=not differences, detail="; ".join(differences) or "the whole state matches")


@rule_check("gold_actions_performed", hard=False, conditional=True)
def gold_actions_performed(ctx: CheckContext) -> CheckResult | None:
    """Which gold actions a successful call performed with matching arguments. A gold action expected to be
    refused (``refused: <kind>``) need not be attempted (a careful agent may foresee the refusal); it fails the
    check only when a call with its arguments succeeded."""
    actions, gold = ctx.scenario.gold_actions, ctx.scenario.gold
    if actions is None or gold is None:
        return None
    calls = [(r.name, r.arguments) for r in ctx.rollout.tool_calls if not r.control and not r.is_error]
    writes = [action for action in actions if not action.refused]
    refusals = [action for action in actions if action.refused]
    matched = match_gold_actions(writes, calls, gold.comparison)
    missing = [describe_action(action) for action, hit in zip(writes, matched, strict=True) if hit is None]
    done = len(writes) - len(missing)
    detail = f"{done}/{len(writes)} performed" + (f"; missing: {'; '.join(missing)}" if missing else "")
    if not refusals:
        return CheckResult(passed=not missing, detail=detail if actions else "none expected")
    succeeded = [describe_action(action) for action, hit
                 in zip(refusals, match_gold_actions(refusals, calls, gold.comparison), strict=True) if hit is not None]
    asked = sum(any(r.is_error and r.name == action.tool and r.error_kind == action.refused
                    and arguments_match(action.arguments, r.arguments, gold.comparison) for r in ctx.rollout.tool_calls)
                for action in refusals)
    detail += f"; expected refusals: {asked}/{len(refusals)} asked and refused"
    if succeeded:
        detail += f"; succeeded though expected to be refused: {'; '.join(succeeded)}"
    return CheckResult(passed=not missing and not succeeded, detail=detail)


@rule_check("max_tool_calls", hard=False, conditional=True)
def max_tool_calls(ctx: CheckContext, *, limit: int | None = None) -> CheckResult | None:
    """At most ``limit`` tool calls in the conversation (control calls not counted). Off until a config sets
    ``checks.max_tool_calls.limit`` (``+checks.max_tool_calls.limit=8``); the limit enters the check's version."""
    if limit is None:
        return None
    made = sum(1 for record in ctx.rollout.tool_calls if not record.control)
    return CheckResult(passed=made <= limit, detail=f"{made} tool calls (limit {limit})")
