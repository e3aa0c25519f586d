"""The judge-reply reading rules of skillbench/prompts/verdict.py (docs/judges.md), on the shapes real judges
gave (tests/support/replay.py) and on every accepted spelling."""

from __future__ import annotations

import json

import pytest

from skillbench.prompts.verdict import FLAG_SPELLINGS, VerdictParseError, parse_verdict
from tests.support.replay import (
    JUDGE_EXTRA_KEY,
    JUDGE_FENCED_TRAILING_BRACES,
    JUDGE_RUNAWAY_NESTING,
    JUDGE_STRING_SCORES,
    JUDGE_STRING_SCORES_VALID_OUTCOME,
    JUDGE_TRANSCRIPT_ECHO,
    VALID_VERDICT,
)


def _with(**changes: object) -> str:
    return json.dumps({**VALID_VERDICT, **changes})


def _reason(text: str) -> str:
    with pytest.raises(VerdictParseError) as caught:
        parse_verdict(text)
    return caught.value.reason


def test_a_fenced_verdict_followed_by_prose_with_braces_is_read() -> None:
    parsed = parse_verdict(JUDGE_FENCED_TRAILING_BRACES)
    assert parsed.scores.task_completion == "success" and parsed.scores.workflow_adherence == 4


def test_the_first_object_holding_the_rubric_wins_even_nested_or_after_other_json() -> None:
    assert parse_verdict('{"note": 1} then ' + _with(workflow_adherence=2)).scores.workflow_adherence == 2
    assert parse_verdict('{"verdict": ' + _with(workflow_adherence=3) + "}").scores.workflow_adherence == 3
    assert parse_verdict(_with(workflow_adherence=5) + " " + _with(workflow_adherence=1)).scores.workflow_adherence == 5


def test_extra_keys_are_ignored_and_noted_never_fatal() -> None:
    parsed = parse_verdict(JUDGE_EXTRA_KEY)
    assert parsed.ignored_keys == ["confidence", "notes"] and parsed.scores.explanation == "replayed"


def test_string_valued_scores_are_wrong_types_and_never_a_flag() -> None:
    assert _reason(JUDGE_STRING_SCORES) == "wrong_types"
    with pytest.raises(VerdictParseError, match="not a string"):
        parse_verdict(JUDGE_STRING_SCORES_VALID_OUTCOME)  # lax parsing made this hallucinated_action=True
    with pytest.raises(VerdictParseError, match="hallucinated_action"):
        parse_verdict(_with(hallucinated_action="1"))
    with pytest.raises(VerdictParseError, match="hallucinated_action"):
        parse_verdict(_with(hallucinated_action=1))


def test_transcript_echo_runaway_nesting_prose_and_missing_keys_each_have_their_reason() -> None:
    assert _reason(JUDGE_TRANSCRIPT_ECHO) == "transcript_echoed"
    assert _reason(JUDGE_TRANSCRIPT_ECHO + "\n" + json.dumps({"turn": 1, "speaker": "agent", "text": "hi"})) == "transcript_echoed"
    assert _reason(JUDGE_RUNAWAY_NESTING) == "not_json"  # the runner names it cut_at_max_tokens when finish_reason says so
    assert _reason("The agent did well.") == "not_json"
    assert _reason('{"task_completion": "success"}') == "wrong_keys"
    assert _reason("   ") == "empty"


@pytest.mark.parametrize(("spelling", "value"), [
    *[(s, v) for s, v in FLAG_SPELLINGS.items()], *[(s.upper(), v) for s, v in FLAG_SPELLINGS.items()],
    (" Yes ", True), (True, True), (False, False),
])
def test_every_documented_flag_spelling_is_accepted(spelling: object, value: bool) -> None:
    assert parse_verdict(_with(hallucinated_action=spelling)).scores.hallucinated_action is value


@pytest.mark.parametrize("spelling", ["1", "0", "y", "n", "maybe", "True!", None, 0, [], {}])
def test_anything_else_as_a_flag_is_refused(spelling: object) -> None:
    assert _reason(_with(hallucinated_action=spelling)) == "wrong_types"


def test_outcomes_ignore_case_and_spaces_scores_take_integral_numbers_only() -> None:
    assert parse_verdict(_with(task_completion=" Success ")).scores.task_completion == "success"
    assert parse_verdict(_with(workflow_adherence=4.0)).scores.workflow_adherence == 4
    for bad in ("4", 4.5, True, None, 0, 6):
        assert _reason(_with(workflow_adherence=bad)) == "wrong_types", bad
    assert parse_verdict(_with(explanation=None)).scores.explanation == ""
    no_explanation = {k: v for k, v in VALID_VERDICT.items() if k != "explanation"}
    assert parse_verdict(json.dumps(no_explanation)).scores.explanation == ""
