from __future__ import annotations

from skillbench.evaluation import JudgeScores, RuleCheck, apply_pass_rule, rule_based_pass
from tests.conftest import compose_config


def scores(**overrides: object) -> JudgeScores:
    base = dict(
        task_completion="success", workflow_adherence=5, tool_use_correctness=5, guardrail_compliance=5,
        communication_quality=5, resolution_efficiency=5, hallucinated_action=False, explanation="fine",
    )
    return JudgeScores.model_validate({**base, **overrides})


HARD_FAIL = RuleCheck(name="termination_reached", passed=False, hard=True)
SOFT_FAIL = RuleCheck(name="target_state_reached", passed=False, hard=False)


def test_paper_rule() -> None:
    rule = compose_config("pass_rule=paper").pass_rule
    assert apply_pass_rule([], scores(), rule).passed
    assert apply_pass_rule([SOFT_FAIL], scores(), rule).passed
    assert not apply_pass_rule([HARD_FAIL], scores(), rule).passed
    assert not apply_pass_rule([], scores(task_completion="partial"), rule).passed
    assert apply_pass_rule([], scores(task_completion="appropriately_transferred"), rule).passed
    assert not apply_pass_rule([], scores(workflow_adherence=3), rule).passed
    assert not apply_pass_rule([], scores(guardrail_compliance=3), rule).passed
    assert apply_pass_rule([], scores(communication_quality=1), rule).passed
    decision = apply_pass_rule([HARD_FAIL], scores(hallucinated_action=True), rule)
    assert decision.reasons == ["hallucinated_action", "hard rule failure: termination_reached"]


def test_judge_error_is_neither_pass_nor_fail() -> None:
    assert apply_pass_rule([], None, compose_config().pass_rule).passed is None


def test_presets_are_ordered_by_strictness() -> None:
    examples = [scores(), scores(task_completion="partial"), scores(workflow_adherence=3), scores(communication_quality=3)]
    lenient, paper, strict = (compose_config(f"pass_rule={name}").pass_rule for name in ("lenient", "paper", "strict"))
    for example in examples:
        under_strict, under_paper, under_lenient = (
            apply_pass_rule([], example, rule).passed for rule in (strict, paper, lenient)
        )
        assert under_strict <= under_paper <= under_lenient


def test_overrides_reach_the_rule() -> None:
    rule = compose_config("pass_rule.min_workflow_adherence=2").pass_rule
    assert apply_pass_rule([], scores(workflow_adherence=2), rule).passed


def test_rule_based_pass() -> None:
    assert rule_based_pass([SOFT_FAIL])
    assert not rule_based_pass([HARD_FAIL, SOFT_FAIL])


def test_hard_checks_chosen_by_the_pass_rule() -> None:
    strict_state = compose_config("pass_rule.hard_checks=[target_state_reached]").pass_rule
    default = compose_config().pass_rule
    assert apply_pass_rule([SOFT_FAIL], scores(), default).passed
    decision = apply_pass_rule([SOFT_FAIL], scores(), strict_state)
    assert decision.passed is False and decision.reasons == ["hard rule failure: target_state_reached"]
    # Only the named checks are hard: a default-hard check left out no longer fails the verdict.
    assert apply_pass_rule([HARD_FAIL], scores(), strict_state).passed
    assert not rule_based_pass([SOFT_FAIL], strict_state) and rule_based_pass([SOFT_FAIL], default)
    assert SOFT_FAIL.hard is False  # the stored check keeps its default (the judge prompt and verdict key)
