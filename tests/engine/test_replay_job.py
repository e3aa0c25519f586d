"""Whole jobs against the replay server (exact real-server shapes on 127.0.0.1, through litellm): each shape
lands in its outcome class in the row, the summary and the transcript (docs/outcomes.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillbench.core.records import Rollout
from skillbench.engine import RESULTS_FILE, JobSummary, ResultRow, run_job
from skillbench.plan.outcome import job_failure
from skillbench.report.build import ReportContext
from skillbench.report.html import decode_transcripts
from skillbench.report.tables import all_tables
from skillbench.report.write import make_report, markdown
from skillbench.store import ArtifactStore
from tests.conftest import compose_config
from tests.support.openai_stub import conversation_script, request_role, stub_server
from tests.support.replay import (
    AGENT_TEXT_CUT,
    AGENT_TOOL_CALL_AS_JSON_TEXT,
    AGENT_TOOL_CALL_AS_TEXT,
    AGENT_TOOL_CALL_CUT,
    GENERIC_500,
    JUDGE_EXTRA_KEY,
    JUDGE_FENCED_TRAILING_BRACES,
    JUDGE_RUNAWAY_NESTING,
    JUDGE_STRING_SCORES,
    JUDGE_TRANSCRIPT_ECHO,
    LLAMACPP_TOOL_ARGUMENTS_500,
    USER_TEXT_CUT,
    judge_text,
)

Script = Callable[[dict[str, Any]], Any]


def _agent_requests(server: Any) -> int:
    return sum(1 for body in server.requests if request_role(body) == "agent")


def _job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: Script, name: str, *overrides: str,
         **stub: Any) -> tuple[JobSummary, ResultRow, Any]:
    with stub_server(script, **stub) as server:
        for env in ("QWEN3_5_9B", "GEMMA4", "USER_SIM"):
            monkeypatch.setenv(f"SKILLBENCH_{env}_API_BASE", server.base_url)
        cfg = compose_config("agent=qwen3_5_9b", "judge=gemma4", "user_sim=gemma4_31b", f"store.root={tmp_path / 'store'}",
                             "benchmark.scenarios=[hc-resched-happy-01]", "agent.max_retries=0", *overrides)
        summary = run_job(cfg, tmp_path / name)
    [row] = [ResultRow.model_validate_json(line) for line in (tmp_path / name / RESULTS_FILE).read_text().splitlines()]
    return summary, row, server


def _on_agent_call(n: int, reply: Any) -> Script:
    """The conversation script, with the agent's n-th request (1-based) answered by ``reply``."""
    seen = {"agent": 0}

    def script(body: dict[str, Any]) -> Any:
        if request_role(body) == "agent":
            seen["agent"] += 1
            if seen["agent"] == n:
                return reply
        return conversation_script(body)

    return script


def test_a_llamacpp_500_on_a_malformed_tool_call_is_the_agents_model_error_scored_as_a_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary, row, server = _job(tmp_path, monkeypatch, _on_agent_call(2, LLAMACPP_TOOL_ARGUMENTS_500), "llama")
    assert row.termination == "model_error" and row.passed is False and row.infra_error is None
    assert "Failed to parse tool call arguments as JSON" in row.termination_detail
    assert _agent_requests(server) == 2  # not retried, conversation not redone: no retry storm
    assert (summary.model_errors, summary.infra_errors, summary.redone_conversations) == (1, 0, 0)


def test_a_generic_500_is_infrastructure_the_conversation_is_redone_and_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary, row, _ = _job(tmp_path, monkeypatch, _on_agent_call(2, GENERIC_500), "generic")
    assert row.infra_error is None and row.passed is not None  # the second try went through
    assert row.abandoned_attempts == 1 and summary.redone_conversations == 1 and summary.abandoned_attempts == 1
    assert summary.failed_attempts == 1
    # Always 500: never scored, an infrastructure error after run.infra_retries redos.
    summary, row, _ = _job(tmp_path / "other", monkeypatch, lambda body: GENERIC_500 if request_role(body) == "agent"
                           else conversation_script(body), "down", "run.infra_retries=2")
    assert row.infra_error is not None and row.passed is None and row.abandoned_attempts == 2
    assert summary.infra_errors == 1 and summary.abandoned_attempts == 2


def test_an_agent_reply_cut_at_max_tokens_is_a_model_error_named_so_and_kept_in_the_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary, row, _ = _job(tmp_path, monkeypatch, _on_agent_call(1, AGENT_TEXT_CUT), "cut", "+agent.params.max_tokens=64",
                           fingerprint="b6936-6a2c1e0f")
    assert row.termination == "model_error" and row.passed is False
    assert row.termination_detail == "agent: reply cut at max_tokens (64)"
    assert row.cut_replies == {"agent": 1} and summary.cut_replies == {"agent": 1}
    assert summary.max_tokens["agent"] == 64 and summary.max_tokens["judge"] is None
    rollout = ArtifactStore(tmp_path / "store").get("rollouts", row.rollout_key or "", Rollout)
    assert rollout is not None and rollout.messages[-1].cut == "cut at max_tokens (64)"
    # What answered is recorded per role (the server's model id and build).
    assert {server.fingerprint for server in row.served_by["agent"]} == {"b6936-6a2c1e0f"}
    assert "b6936-6a2c1e0f" in summary.served_by["judge"][0]


def test_an_agent_tool_call_cut_inside_its_arguments_is_named_a_cut_not_run_and_not_a_malformed_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary, row, server = _job(tmp_path, monkeypatch, _on_agent_call(1, AGENT_TOOL_CALL_CUT), "cut-call",
                                "+agent.params.max_tokens=32")
    assert row.termination == "model_error" and row.termination_detail == "agent: reply cut at max_tokens (32)"
    assert row.tool_calls == 0 and row.tool_errors == 0  # never sent to the mock, never charged as a malformed call
    assert _agent_requests(server) == 1 and summary.cut_replies == {"agent": 1}


@pytest.mark.parametrize(("reply", "form"), [
    (AGENT_TOOL_CALL_AS_TEXT, "a <tool_call> block naming identity__verify_customer"),
    (AGENT_TOOL_CALL_AS_JSON_TEXT, "a JSON object naming identity__verify_customer"),
], ids=["tool-call-block", "json-object"])
def test_a_tool_call_written_as_text_is_the_agents_model_error_never_said_to_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: dict[str, Any], form: str
) -> None:
    summary, row, server = _job(tmp_path, monkeypatch, _on_agent_call(1, reply), "text-call")
    assert row.termination == "model_error" and row.passed is False and row.infra_error is None
    assert row.termination_detail.startswith(f"agent: tool call written as text ({form}): ")
    assert row.tool_calls == 0 and summary.model_errors == 1  # nothing ran, scored as the agent's fail
    rollout = ArtifactStore(tmp_path / "store").get("rollouts", row.rollout_key or "", Rollout)
    assert rollout is not None and all(m.content != reply["content"] for m in rollout.messages)  # never spoken
    user_requests = [body for body in server.requests if request_role(body) == "user"]
    assert len(user_requests) == 1  # the caller's opening line only: the caller never answered the written call


def test_a_user_simulator_reply_cut_at_max_tokens_is_kept_and_marked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def script(body: dict[str, Any]) -> Any:
        return USER_TEXT_CUT if request_role(body) == "user" and len(body["messages"]) == 2 else conversation_script(body)

    summary, row, _ = _job(tmp_path, monkeypatch, script, "user-cut", "+user_sim.params.max_tokens=32")
    assert row.cut_replies == {"user": 1} and summary.max_tokens["user"] == 32
    rollout = ArtifactStore(tmp_path / "store").get("rollouts", row.rollout_key or "", Rollout)
    assert rollout is not None
    [first_caller] = [m for m in rollout.messages if m.role == "user"][:1]
    assert first_caller.cut == "cut at max_tokens (32)" and first_caller.content == USER_TEXT_CUT["content"]
    # Every role's model is in every table: the prompt-cache table names the user simulator's model too.
    report, _ = make_report([tmp_path / "user-cut"], tmp_path / "report", formats=["md"])
    tables = {t.key: t for t in all_tables(ReportContext.of(report))}
    models = {line[0]: line[2] for line in tables["prompt_cache"].data}
    assert models["user"] == "hosted_vllm/google/gemma-4-31B-it" and models["agent"] == "hosted_vllm/Qwen/Qwen3.5-9B"
    assert "user gemma4_31b: hosted_vllm/google/gemma-4-31B-it, max_tokens 32" in " ".join(tables["cost"].footnotes)


def _judge_says(reply: Any) -> Script:
    return lambda body: reply if request_role(body) == "judge" else conversation_script(body)


@pytest.mark.parametrize(("reply", "reason"), [
    (judge_text(JUDGE_RUNAWAY_NESTING, finish_reason="length"), "cut_at_max_tokens"),
    (judge_text(JUDGE_STRING_SCORES), "wrong_types"),
    (judge_text(JUDGE_TRANSCRIPT_ECHO), "transcript_echoed"),
    (LLAMACPP_TOOL_ARGUMENTS_500, "refused"),
], ids=["cut", "string-scores", "transcript-echo", "server-500-model-output"])
def test_each_real_judge_failure_is_a_judge_error_with_its_reason_and_raw_replies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: Any, reason: str
) -> None:
    # The stub agent never calls the required tools; a hard check deciding the row would make the judge's verdict
    # unnecessary (a known failure stays a failure): these cases are about the judge, so its verdict is needed.
    summary, row, server = _job(tmp_path, monkeypatch, _judge_says(reply), "judge", "+judge.params.max_tokens=400",
                                "pass_rule.fail_on_hard_rule_failure=false")
    assert row.passed is None and row.infra_error is None and row.judge_error_reason == reason
    assert summary.judge_errors == 1 and summary.infra_errors == 0
    judge_requests = sum(1 for body in server.requests if request_role(body) == "judge")
    if reason == "refused":  # the server's words kept; not re-asked, not retried
        assert judge_requests == 1 and "Failed to parse tool call arguments" in row.judge_attempts[0].detail
    else:
        assert judge_requests == 3 and len(row.judge_attempts) == 3
        assert row.judge_attempts[0].reply == reply["content"] and row.judge_attempts[0].reason == reason
    if reason == "cut_at_max_tokens":
        assert "cut at max_tokens (400)" in (row.judge_error or "") and summary.cut_replies == {"judge": 3}
        assert row.judge_attempts[0].finish_reason == "length"
    # Every row a judge error: the job's failure line names the judge, why, and how to retry.
    failure = job_failure(summary.model_dump(mode="json"), 0.5) or ""
    assert failure.startswith("judge gemma4 (hosted_vllm/google/gemma-4-31B-it) gave no usable verdict on 1 of 1")
    assert reason.replace("_", " ") in failure and "rerun the same command" in failure
    if reason == "cut_at_max_tokens":
        assert "raise judge.params.max_tokens (now 400)" in failure
        # The report summarises the reasons per judge and shows each raw reply on the transcript page.
        report, written = make_report([tmp_path / "judge"], tmp_path / "report", formats=["md", "html"])
        assert "Judge errors by reason" in markdown(report)
        table = next(t for t in all_tables(ReportContext.of(report)) if t.key == "judge_errors")
        assert table.data == [["gemma4", 1, 1, 1]] and table.data_headers == ["judge", "transcripts", "judge_errors",
                                                                              "cut_at_max_tokens"]
        page = "".join(decode_transcripts(written["html"].read_text()).values())  # transcript pages are embedded
        assert "attempt 3: cut at max tokens (finish_reason length)" in page and "raw replies (3)" in page


@pytest.mark.parametrize("content", [JUDGE_FENCED_TRAILING_BRACES, JUDGE_EXTRA_KEY], ids=["fenced-trailing", "extra-key"])
def test_a_verdict_in_fences_with_trailing_braces_or_extra_keys_is_scored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str
) -> None:
    summary, row, _ = _job(tmp_path, monkeypatch, _judge_says(judge_text(content)), "judge")
    assert row.passed is not None and row.scores is not None and summary.judge_errors == 0
    assert row.judge_ignored_keys == (["confidence", "notes"] if content == JUDGE_EXTRA_KEY else [])


def test_a_model_error_whose_judge_gives_no_verdict_stays_a_fail_in_the_denominator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A known failure never leaves the pass rate: the agent's reply is cut (a model error, failing the hard
    termination_reached check) and the judge only echoes the transcript (a judge error). The row is a fail, scored;
    the judge's failure is still counted and named."""
    def script(body: dict[str, Any]) -> Any:
        role = request_role(body)
        if role == "agent":
            return AGENT_TEXT_CUT
        return judge_text(JUDGE_TRANSCRIPT_ECHO) if role == "judge" else conversation_script(body)

    summary, row, _ = _job(tmp_path, monkeypatch, script, "decided", "+agent.params.max_tokens=64")
    assert row.termination == "model_error" and row.judge_error_reason == "transcript_echoed"
    assert row.passed is False and "hard rule failure: termination_reached" in row.fail_reasons
    assert (summary.scored, summary.passed, summary.pass_rate) == (1, 0, 0.0)
    assert summary.judge_errors == 1 and summary.judge_errors_decided == 1 and summary.model_errors == 1
    # The judge gave nothing usable on any row: the job still says so, naming the judge and the fix.
    failure = job_failure(summary.model_dump(mode="json"), 0.5) or ""
    assert failure.startswith("judge gemma4") and "transcript echoed" in failure
