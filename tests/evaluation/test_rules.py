"""Each built-in rule check on hand-made transcripts: no models, one edge case per test."""

from __future__ import annotations

from typing import Any

import pytest

from skillbench.benchmark.schema import Scenario, Skill, StateExpectation, WorkflowStep
from skillbench.core.records import Rollout, RuleCheck, ToolCallRecord
from skillbench.evaluation import RULE_CHECKS, CheckResult, rule_check, rule_checks_version, run_rule_checks
from skillbench.evaluation.checks import RegisteredCheck
from tests.support.toy_domain import make_benchmark, make_scenario

VERIFY, SEARCH, UPDATE, WIPE = "crm.verify_customer", "crm.search_orders", "crm.update_order_address", "crm.admin_wipe"
BUILT_IN = [
    "required_tools_invoked",
    "no_unrecovered_out_of_toolkit_call",
    "termination_reached",
    "no_forbidden_tool_succeeded",
    "target_state_reached",
    "verified_before_account_access",
    "outcome_matches_expected",
]


def call(name: str, *, offered: bool = True, error: bool = False, result: str = "{}", control: bool = False) -> ToolCallRecord:
    return ToolCallRecord(
        turn=1, call_id=name, name=name, arguments={}, offered=offered, is_error=error, result=result, control=control
    )


def rollout(*calls: ToolCallRecord, termination: Any = "resolved", state: dict | None = None) -> Rollout:
    return Rollout(
        key="k", scenario_id="toy-happy-01", skill_id="toy_orders", agent="a", messages=[],
        tool_calls=list(calls), termination=termination, final_state=state or {},
    )


def skill(*steps: WorkflowStep) -> Skill:
    base = make_benchmark().skills["toy_orders"]
    return base.model_copy(update={"steps": list(steps)}) if steps else base


def checks(r: Rollout, scenario: Scenario | None = None, sk: Skill | None = None) -> dict[str, RuleCheck]:
    return {c.name: c for c in run_rule_checks(r, scenario or make_scenario(), sk or skill())}


def test_registration_order_names_and_default_hardness_are_unchanged() -> None:
    scenario = make_scenario(target_state=[StateExpectation(collection="orders", match={"order_id": "O-2"})])
    found = run_rule_checks(rollout(), scenario, skill())
    assert [c.name for c in found] == BUILT_IN
    assert [c.hard for c in found] == [True, True, True, True, False, False, False]
    assert [c.name for c in RULE_CHECKS.values()][: len(BUILT_IN)] == BUILT_IN


def test_required_tools_missing_and_control_calls_do_not_count() -> None:
    scenario = make_scenario(required_tools=[VERIFY, UPDATE])
    found = checks(rollout(call(VERIFY), call(UPDATE, control=True)), scenario)["required_tools_invoked"]
    assert not found.passed and found.detail == f"missing: {UPDATE}"
    assert checks(rollout(call(VERIFY), call(UPDATE)), scenario)["required_tools_invoked"].detail == "all 2 succeeded"


def test_required_tools_count_only_successful_calls_and_report_failed_attempts() -> None:
    scenario = make_scenario(required_tools=[VERIFY, UPDATE])
    only_failed = checks(rollout(call(VERIFY), call(UPDATE, error=True), call(UPDATE, error=True)), scenario)
    assert not only_failed["required_tools_invoked"].passed
    assert only_failed["required_tools_invoked"].detail == f"missing: {UPDATE}; failed attempts: {UPDATE} ×2"
    # A failure then a success passes; the failed attempt is still told.
    retried = checks(rollout(call(VERIFY), call(UPDATE, error=True), call(UPDATE)), scenario)["required_tools_invoked"]
    assert retried.passed and retried.detail == f"all 2 succeeded; failed attempts: {UPDATE} ×1"
    # Failures of tools the scenario does not require are not this check's business.
    other = checks(rollout(call(VERIFY), call(UPDATE), call(SEARCH, error=True)), scenario)["required_tools_invoked"]
    assert other.passed and other.detail == "all 2 succeeded"


def test_a_required_tool_the_scenario_always_fails_counts_when_attempted() -> None:
    # tool_failures beyond the retry policy (2): success is impossible, the scenario expects a transfer.
    doomed = make_scenario(required_tools=[VERIFY, UPDATE], tool_failures={UPDATE: 3}, path="tool_failure",
                           expected_outcome="appropriately_transferred")
    found = checks(rollout(call(VERIFY), call(UPDATE, error=True), termination="transferred"), doomed)["required_tools_invoked"]
    assert found.passed
    assert found.detail == f"all 2 succeeded or were attempted ({UPDATE} always fails in this scenario); failed attempts: {UPDATE} ×1"
    assert not checks(rollout(call(VERIFY), termination="transferred"), doomed)["required_tools_invoked"].passed
    # Recoverable scripted failures (at most 2) still need a success.
    recoverable = make_scenario(required_tools=[VERIFY, UPDATE], tool_failures={UPDATE: 1}, path="tool_failure")
    assert not checks(rollout(call(VERIFY), call(UPDATE, error=True)), recoverable)["required_tools_invoked"].passed


@pytest.mark.parametrize(
    ("expected", "termination", "passed"),
    [
        ("success", "resolved", True),
        ("success", "transferred", False),  # success is not a transfer
        ("success", "out_of_scope", False),
        ("success", "max_turns", False),
        ("appropriately_transferred", "transferred", True),
        ("appropriately_transferred", "resolved", False),
        ("appropriately_out_of_scope", "out_of_scope", True),
        ("appropriately_out_of_scope", "transferred", False),
    ],
)
def test_outcome_matches_expected(expected: str, termination: str, passed: bool) -> None:
    found = checks(rollout(termination=termination), make_scenario(expected_outcome=expected))["outcome_matches_expected"]
    assert found.passed is passed and not found.hard
    assert found.detail.startswith(f"expected {expected} (ends ") and found.detail.endswith(f"ended {termination}")


def test_a_caller_ended_conversation_is_read_by_what_happened() -> None:
    """user_ended (the caller's stop marker or hang-up) says who spoke last, not how it went: success is reached when
    every required tool succeeded first, missed when one did not, and left to the judge when nothing shows it."""
    scenario = make_scenario(expected_outcome="success", required_tools=[VERIFY, UPDATE])
    done = checks(rollout(call(VERIFY), call(UPDATE), termination="user_ended"), scenario)["outcome_matches_expected"]
    assert done.passed and "after all 2 required tool(s) succeeded" in done.detail
    failed = checks(rollout(call(VERIFY), call(UPDATE, error=True), termination="user_ended"), scenario)["outcome_matches_expected"]
    assert not failed.passed and UPDATE in failed.detail
    # no required tool known (an imported conversation without a scenario): the check does not apply
    bare = make_scenario(expected_outcome="success", required_tools=[])
    assert "outcome_matches_expected" not in checks(rollout(call(VERIFY), termination="user_ended"), bare)
    transfer = make_scenario(expected_outcome="appropriately_transferred", required_tools=[])
    assert not checks(rollout(termination="user_ended"), transfer)["outcome_matches_expected"].passed  # only a transfer shows one
    refusal = make_scenario(expected_outcome="appropriately_out_of_scope", required_tools=[])
    assert checks(rollout(termination="user_ended"), refusal)["outcome_matches_expected"].passed  # nothing was changed
    assert "outcome_matches_expected" not in checks(rollout(call(UPDATE), termination="user_ended"), refusal)


@pytest.mark.parametrize(
    ("calls", "termination", "passed"),
    [
        ([call(WIPE, offered=False), call(SEARCH)], "max_turns", True),  # a later in-toolkit call recovers
        ([call(WIPE, offered=False)], "resolved", True),  # a proper ending recovers
        ([call(WIPE, offered=False)], "max_turns", False),  # neither
        ([call(WIPE, offered=False), call(WIPE, offered=False), call(SEARCH)], "resolved", False),  # repeated
        ([call(SEARCH, offered=False), call(WIPE, offered=False), call(SEARCH)], "resolved", True),  # two names once each
        ([call(SEARCH)], "max_turns", True),  # no outside call at all
    ],
)
def test_out_of_toolkit_recovery(calls: list[ToolCallRecord], termination: str, passed: bool) -> None:
    found = checks(rollout(*calls, termination=termination))["no_unrecovered_out_of_toolkit_call"]
    assert found.passed is passed
    if any(not c.offered for c in calls):
        assert ("; recovered" in found.detail) is passed


@pytest.mark.parametrize(
    ("termination", "passed"),
    [("resolved", True), ("transferred", True), ("out_of_scope", True), ("user_ended", True), ("max_turns", False)],
)
def test_termination_kinds(termination: str, passed: bool) -> None:
    found = checks(rollout(termination=termination))["termination_reached"]
    assert found.passed is passed and found.detail.startswith(termination)


def test_forbidden_tool_that_errored_passes_and_one_that_succeeded_fails() -> None:
    scenario = make_scenario(forbidden_tools=[UPDATE])
    assert checks(rollout(call(UPDATE, error=True)), scenario)["no_forbidden_tool_succeeded"].passed
    found = checks(rollout(call(UPDATE, error=True), call(UPDATE)), scenario)["no_forbidden_tool_succeeded"]
    assert not found.passed and found.detail == f"succeeded: {UPDATE}"


def test_target_state_met_unmet_and_absent() -> None:
    moved = StateExpectation(collection="orders", match={"order_id": "O-2"}, expect={"shipping_address": "5 Oak Ave"})
    gone = StateExpectation(collection="notes", match={"note_id": "N-1"}, absent=True)
    scenario = make_scenario(target_state=[moved, gone])
    met = {"orders": [{"order_id": "O-2", "shipping_address": "5 Oak Ave"}], "notes": []}
    unmet = {"orders": [{"order_id": "O-2", "shipping_address": "1 Main St"}], "notes": [{"note_id": "N-1"}]}
    assert checks(rollout(state=met), scenario)["target_state_reached"].passed
    found = checks(rollout(state=unmet), scenario)["target_state_reached"]
    assert not found.passed and "expected absent" in found.detail and "shipping_address" in found.detail
    assert "target_state_reached" not in checks(rollout(), make_scenario())  # no target state: not applicable


def test_verification_must_succeed_before_gated_tools() -> None:
    sk = skill(
        WorkflowStep(id="v", kind="verify", instruction="Verify.", tools=[VERIFY]),
        WorkflowStep(id="l", kind="lookup", instruction="Look up.", tools=[SEARCH]),
        WorkflowStep(id="a", kind="act", instruction="Act.", tools=[UPDATE]),
    )
    ok, not_ok = '{"verified": true}', '{"verified": false}'
    name = "verified_before_account_access"
    assert checks(rollout(call(VERIFY, result=ok), call(SEARCH), call(UPDATE)), sk=sk)[name].passed
    early = checks(rollout(call(SEARCH), call(VERIFY, result=ok)), sk=sk)[name]
    assert not early.passed and early.detail == f"{SEARCH} before verification"
    assert not checks(rollout(call(VERIFY, result=not_ok), call(UPDATE)), sk=sk)[name].passed  # verified: false
    assert not checks(rollout(call(VERIFY, result="not json"), call(UPDATE)), sk=sk)[name].passed
    assert not checks(rollout(call(VERIFY, result=ok, error=True), call(UPDATE)), sk=sk)[name].passed
    assert checks(rollout(call(SEARCH, error=True), call(VERIFY, result=ok)), sk=sk)[name].passed  # failed lookup
    no_verify = skill(WorkflowStep(id="l", kind="lookup", instruction="Look up.", tools=[SEARCH]))
    assert name not in checks(rollout(call(SEARCH)), sk=no_verify)


def test_a_registered_check_runs_last_and_changes_the_version() -> None:
    before = rule_checks_version()

    def toy(ctx: Any) -> CheckResult:
        return CheckResult(passed=len(ctx.rollout.tool_calls) < 2, detail="few calls")

    with RULE_CHECKS.registered("toy_few_calls", RegisteredCheck(name="toy_few_calls", fn=toy, hard=False, version="1")):
        found = run_rule_checks(rollout(call(SEARCH), call(SEARCH)), make_scenario(), skill())
        assert found[-1] == RuleCheck(name="toy_few_calls", passed=False, hard=False, detail="few calls")
        assert rule_checks_version() != before
    assert rule_checks_version() == before
    assert "toy_few_calls" not in RULE_CHECKS


def test_decorator_registers_once() -> None:
    try:

        @rule_check("toy_decorated", hard=True, version="2")
        def toy(ctx: Any) -> None:
            return None

        assert RULE_CHECKS.get("toy_decorated").version == "2"
        with pytest.raises(ValueError, match="registered twice"):
            rule_check("toy_decorated", hard=True)(toy)
    finally:
        RULE_CHECKS.unregister("toy_decorated")


def test_a_check_takes_its_parameters_from_config_and_they_enter_its_version() -> None:
    made = rollout(call(VERIFY), call(SEARCH), call(UPDATE), call("end_conversation", control=True))
    default = run_rule_checks(made, make_scenario(), skill())
    assert "max_tool_calls" not in {c.name for c in default}  # off until a limit is configured
    assert rule_checks_version(default) == rule_checks_version(default, {})  # so every existing row keeps its version
    two = {c.name: c for c in run_rule_checks(made, make_scenario(), skill(), {"max_tool_calls": {"limit": 2}})}
    three = {c.name: c for c in run_rule_checks(made, make_scenario(), skill(), {"max_tool_calls": {"limit": 3}})}
    assert not two["max_tool_calls"].passed and two["max_tool_calls"].detail == "3 tool calls (limit 2)"
    assert three["max_tool_calls"].passed
    assert rule_checks_version(two.values(), {"max_tool_calls": {"limit": 2}}) != rule_checks_version(
        three.values(), {"max_tool_calls": {"limit": 3}})
    assert RULE_CHECKS.get("max_tool_calls").params_problem({"limt": 2}) == (
        "rule check 'max_tool_calls' has no parameter 'limt' (its parameters: limit)")
