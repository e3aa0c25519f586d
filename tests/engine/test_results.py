"""assemble_row: a result row from the finished steps of one scenario, without models or files."""

from __future__ import annotations

from skillbench.benchmark import load_benchmark
from skillbench.core.records import Rollout, RuleCheck, Usage
from skillbench.core.rubric import JudgeScores
from skillbench.engine.results import assemble_row
from skillbench.evaluation.records import Verdict
from tests.conftest import compose_config

BENCH = load_benchmark("starter")
SCENARIO = BENCH.scenarios[0]
SKILL = BENCH.skill_of(SCENARIO)
CFG = compose_config()
GOOD = JudgeScores(
    task_completion="success", workflow_adherence=5, tool_use_correctness=5, guardrail_compliance=5,
    communication_quality=5, resolution_efficiency=5, hallucinated_action=False, explanation="fine",
)


def _rollout(**fields: object) -> Rollout:
    base: dict[str, object] = {
        "key": "r1", "scenario_id": SCENARIO.id, "skill_id": SKILL.id, "agent": "a", "messages": [],
        "termination": "resolved", "turns": 3,
    }
    return Rollout.model_validate({**base, **fields})


def _row(rollout: Rollout, checks: list[RuleCheck], verdict: Verdict | None):
    usage = {"agent": Usage(calls=2)}
    return assemble_row(CFG, SCENARIO, SKILL, "v123", rollout, checks, verdict, usage, (1.23456, 0.5))


def test_a_scored_row_carries_ids_labels_version_and_the_pass_rule_verdict() -> None:
    verdict = Verdict(key="v", judge="j", rollout_key="r1", scores=GOOD)
    row = _row(_rollout(), [RuleCheck(name="termination_reached", passed=True, hard=True)], verdict)
    assert (row.scenario_id, row.skill_id, row.industry, row.path) == (SCENARIO.id, SKILL.id, SKILL.industry, SCENARIO.path)
    assert (row.agent, row.judge, row.pass_rule, row.benchmark_version) == ("sim_careful", "sim_balanced", "paper", "v123")
    assert row.passed is True and row.rule_passed is True and row.fail_reasons == []
    assert row.verdict_key == "v" and row.rollout_s == 1.2346


def test_a_hard_rule_failure_fails_the_row_with_its_reason() -> None:
    verdict = Verdict(key="v", judge="j", rollout_key="r1", scores=GOOD)
    row = _row(_rollout(), [RuleCheck(name="termination_reached", passed=False, hard=True)], verdict)
    assert row.passed is False and row.rule_passed is False
    assert row.fail_reasons == ["hard rule failure: termination_reached"]


def test_a_judge_error_leaves_the_row_unscored() -> None:
    verdict = Verdict(key="v", judge="j", rollout_key="r1", judge_error="unparseable", error_kind="judge")
    row = _row(_rollout(), [], verdict)
    assert row.passed is None and row.judge_error == "unparseable" and row.infra_error is None
    assert row.fail_reasons == []


def test_an_unreachable_judge_is_an_infrastructure_error_not_a_judge_error() -> None:
    verdict = Verdict(key="v", judge="j", rollout_key="r1", judge_error="connection refused", error_kind="infra")
    row = _row(_rollout(), [], verdict)
    assert row.passed is None and row.judge_error is None
    assert row.infra_error == "judge endpoint: connection refused"


def test_an_infrastructure_rollout_has_no_verdict_and_no_score() -> None:
    row = _row(_rollout(termination="infra_error", infra_error="agent endpoint down"), [], None)
    assert row.passed is None and row.rule_passed is None and row.verdict_key is None
    assert row.infra_error == "agent endpoint down"
