"""One conversation through real litellm to a scripted stub: strict control tools, empty agent turns as
model errors, blank user-simulator replies as infrastructure errors, and failures kept inside a scenario."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skillbench.engine import RESULTS_FILE, JobSummary, ResultRow, run_job
from skillbench.engine import job as job_module
from tests.conftest import compose_config
from tests.support.openai_stub import conversation_script, request_role, stub_server, text_reply, tool_reply

SCENARIO = "hc-resched-happy-01"


def _agent_turns(body: dict[str, Any]) -> int:
    return sum(1 for message in body["messages"] if message["role"] == "assistant")


def _job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, agent: Callable[[dict[str, Any]], dict[str, Any]],
         user: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
         scenarios: str = SCENARIO) -> tuple[JobSummary, list[ResultRow], list[dict[str, Any]]]:
    def script(body: dict[str, Any]) -> dict[str, Any]:
        role = request_role(body)
        if role == "agent":
            return agent(body)
        if role == "user" and user is not None:
            return user(body)
        return conversation_script(body)

    with stub_server(script) as server:
        for env in ("QWEN3_5_9B", "GEMMA4", "USER_SIM"):
            monkeypatch.setenv(f"SKILLBENCH_{env}_API_BASE", server.base_url)
        cfg = compose_config("agent=qwen3_5_9b", "judge=gemma4", "user_sim=gemma4_31b",
                             f"store.root={tmp_path / 'store'}", f"benchmark.scenarios=[{scenarios}]")
        summary = run_job(cfg, tmp_path / "job")
    rows = [ResultRow.model_validate_json(line) for line in (tmp_path / "job" / RESULTS_FILE).read_text().splitlines()]
    return summary, rows, server.requests


def _stored_rollout(tmp_path: Path) -> dict[str, Any]:
    [path] = [p for p in (tmp_path / "store").rglob("*.json") if "rollouts" in str(p)]
    return json.loads(path.read_text())


def test_malformed_end_conversation_is_an_error_result_and_the_agent_may_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def agent(body: dict[str, Any]) -> dict[str, Any]:
        if _agent_turns(body) == 0:
            reply = tool_reply("end_conversation", {}, call_id="bad")
            reply["tool_calls"][0]["function"]["arguments"] = "{outcome: resolved"
            return reply
        return tool_reply("end_conversation", {"outcome": "resolved"}, call_id="good")

    summary, [row], _ = _job(tmp_path, monkeypatch, agent)
    assert row.termination == "resolved"
    bad, good = _stored_rollout(tmp_path)["tool_calls"]
    assert bad["is_error"] and bad["control"] and "not a JSON object" in bad["result"]
    assert not good["is_error"] and summary.scored == 1


def test_an_agent_that_never_ends_properly_fails_termination_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def agent(body: dict[str, Any]) -> dict[str, Any]:
        return tool_reply("end_conversation", {"outcome": "done"}, call_id=f"c{_agent_turns(body)}")

    _summary, [row], _ = _job(tmp_path, monkeypatch, agent)
    assert row.termination == "max_turns" and row.passed is False
    assert any(c.name == "termination_reached" and not c.passed for c in row.rule_checks)
    assert "must be one of ['resolved', 'out_of_scope']" in _stored_rollout(tmp_path)["tool_calls"][0]["result"]


def test_an_empty_agent_turn_is_a_model_error_scored_as_a_fail_and_reasoning_is_not_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def agent(body: dict[str, Any]) -> dict[str, Any]:
        if _agent_turns(body) == 0:
            return {"role": "assistant", "content": "Hello, how can I help?", "reasoning_content": "SECRET-PLAN"}
        return text_reply("<think>nothing to add</think>  \n")

    summary, [row], requests = _job(tmp_path, monkeypatch, agent)
    assert row.termination == "model_error" and row.passed is False
    assert row.termination_detail == "agent: the reply had neither text nor tool calls"
    assert summary.model_errors == 1 and summary.scored == 1 and summary.pass_rate == 0.0
    judge_prompt = next(r for r in requests if request_role(r) == "judge")["messages"][0]["content"]
    assert "SECRET-PLAN" not in judge_prompt and "nothing to add" not in judge_prompt
    messages = _stored_rollout(tmp_path)["messages"]
    assert [m["reasoning"] for m in messages if m["role"] == "assistant"] == ["SECRET-PLAN"]


def test_blank_user_simulator_replies_are_asked_again_then_infra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary, [row], requests = _job(tmp_path, monkeypatch, conversation_script, user=lambda body: text_reply("  "))
    assert row.infra_error is not None and "user simulator" in row.infra_error and row.passed is None
    # Asked twice per attempt, three attempts (run.infra_retries=2); every request counted.
    assert summary.usage["user"].calls == 6 == sum(request_role(r) == "user" for r in requests)
    assert not [path for path in (tmp_path / "store").rglob("*.json") if "rollouts" in path.parts]  # nothing stored


def test_an_exception_inside_one_scenario_stays_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = job_module.run_rule_checks

    def broken(rollout: Any, scenario: Any, skill: Any, params: Any = None) -> Any:
        if scenario.id == SCENARIO:
            raise IndexError("list index out of range")
        return real(rollout, scenario, skill, params)

    monkeypatch.setattr(job_module, "run_rule_checks", broken)
    summary, rows, _ = _job(tmp_path, monkeypatch, conversation_script, scenarios=f"{SCENARIO},hc-resched-missing-01")
    by_id = {row.scenario_id: row for row in rows}
    assert by_id[SCENARIO].infra_error == "internal error: IndexError: list index out of range"
    assert by_id["hc-resched-missing-01"].passed is not None
    assert summary.scenarios == 2 and summary.infra_errors == 1 and (tmp_path / "job" / "summary.json").exists()
