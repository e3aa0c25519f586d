from __future__ import annotations

import pytest

from skillbench.evaluation import JudgeScores, aggregate, parse_scores
from skillbench.prompts.verdict import VerdictParseError

GOOD = (
    '{"task_completion": "success", "workflow_adherence": 4, "tool_use_correctness": 5, "guardrail_compliance": 5,'
    ' "communication_quality": 4, "resolution_efficiency": 3, "hallucinated_action": false, "explanation": "ok"}'
)


def test_parses_plain_fenced_and_wrapped_json() -> None:
    assert parse_scores(GOOD).workflow_adherence == 4
    assert parse_scores(f"```json\n{GOOD}\n```").resolution_efficiency == 3
    assert parse_scores(f"Here is my grading:\n{GOOD}\nThanks").task_completion == "success"


@pytest.mark.parametrize(
    ("text", "reason", "message"),
    [
        ("", "empty", "empty"),
        ("no json here", "not_json", "no complete JSON object"),
        ("{not json}", "not_json", "no complete JSON object"),
        (GOOD.replace('"workflow_adherence": 4', '"workflow_adherence": 9'), "wrong_types", "workflow_adherence must be 1-5"),
        (GOOD.replace('"success"', '"done"'), "wrong_types", "task_completion"),
        (GOOD.replace('"workflow_adherence": 4, ', ""), "wrong_keys", "missing workflow_adherence"),
    ],
)
def test_rejects_bad_replies_with_a_reason(text: str, reason: str, message: str) -> None:
    with pytest.raises(VerdictParseError, match=message) as caught:
        parse_scores(text)
    assert caught.value.reason == reason


def test_majority_aggregation() -> None:
    a = parse_scores(GOOD)
    b = JudgeScores.model_validate({**a.model_dump(), "task_completion": "partial", "workflow_adherence": 2})
    c = JudgeScores.model_validate({**a.model_dump(), "workflow_adherence": 5, "hallucinated_action": True})
    merged = aggregate([a, b, c])
    assert merged.task_completion == "success"
    assert merged.workflow_adherence == 4
    assert merged.hallucinated_action is False


async def test_a_judge_that_fails_midway_reports_what_its_earlier_samples_cost() -> None:
    """Sample 1 is answered, sample 2 hits a 500 with no retry left: the error carries both attempts."""
    from skillbench.config.schema import JudgeConfig
    from skillbench.core.errors import InfrastructureError
    from skillbench.evaluation import judge_transcript
    from skillbench.models import ModelClient
    from tests.support.openai_stub import FaultPlan, stub_server, text_reply

    plan = FaultPlan({"judge": ["ok", "server_error"]}, every=1)
    with stub_server(lambda body: text_reply(GOOD), faults=plan) as server:
        judge = JudgeConfig(name="stubbed", model="hosted_vllm/stub-model", api_base=server.base_url, samples=2, max_retries=0)
        with pytest.raises(InfrastructureError) as caught:
            await judge_transcript(ModelClient(judge), judge, "grade this", key="k", rollout_key="r")
    usage = caught.value.usage
    assert usage is not None and (usage.calls, usage.failed_attempts) == (1, 1)
