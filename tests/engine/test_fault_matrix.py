"""Provider faults at a stated rate, through real litellm to a local stub: every row gets exactly one
outcome class (docs/outcomes.md), nothing aborts the job, a rerun fills in only what is missing, and
the agent's own failures count as fails in the pass rate."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.engine import RESULTS_FILE, JobSummary, ResultRow, run_job
from tests.conftest import compose_config
from tests.support.nonempty import nonempty
from tests.support.openai_stub import FaultPlan, conversation_script, stub_server

# Every 5th request of a role (20 %) gets that role's next fault, in this order.
AGENT_FAULTS = ["empty_choices", "rate_limit", "bad_tool_json", "server_error", "null_content", "timeout",
                "bad_control", "config_400"]
USER_FAULTS = ["null_content", "server_error", "rate_limit"]
JUDGE_FAULTS = ["empty_choices", "server_error"]


def _rows(job: Path) -> list[ResultRow]:
    return [ResultRow.model_validate_json(line) for line in (job / RESULTS_FILE).read_text().splitlines()]


def _run(tmp_path: Path, name: str, base_url: str, monkeypatch: pytest.MonkeyPatch) -> tuple[JobSummary, list[ResultRow]]:
    for env in ("QWEN3_5_9B", "GEMMA4", "USER_SIM"):
        monkeypatch.setenv(f"SKILLBENCH_{env}_API_BASE", base_url)
    timeouts = [f"{role}.timeout_s=1" for role in ("agent", "judge", "user_sim")]
    cfg = compose_config(
        "agent=qwen3_5_9b", "judge=gemma4", "user_sim=gemma4_31b", "benchmark=smoke", "benchmark.limit=10",
        f"store.root={tmp_path / 'store'}", *timeouts,
    )
    summary = run_job(cfg, tmp_path / name)
    return summary, _rows(tmp_path / name)


def _status(row: ResultRow) -> str:
    statuses = [name for name, on in (("infra", row.infra_error is not None), ("judge", row.judge_error is not None),
                                      ("scored", row.passed is not None)) if on]
    assert len(statuses) == 1, (row.scenario_id, statuses)
    return statuses[0]


def test_fault_matrix_classifies_every_row_and_a_rerun_fills_only_the_gaps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = FaultPlan({"agent": AGENT_FAULTS, "user": USER_FAULTS, "judge": JUDGE_FAULTS}, every=5, hang_s=1.5)
    with stub_server(conversation_script, faults=plan) as server:
        first, rows = _run(tmp_path, "faulty", server.base_url, monkeypatch)
        first_requests = len(server.requests)
        injected = {fault for _role, fault in plan.injected}
        assert set(AGENT_FAULTS) <= injected and "model_400" in injected, injected

        # The job finished with a row per scenario, each in exactly one class.
        assert first.scenarios == len(rows) == 10
        statuses = [_status(row) for row in rows]
        assert first.infra_errors == statuses.count("infra") and first.judge_errors == statuses.count("judge")
        # Every request the stub saw is counted: answered or failed.
        assert first.llm_calls + first.failed_attempts == first_requests
        assert first.retries > 0 and first.failed_attempts >= first.retries

        # Model errors are the agent's failures: scored, failed, in the denominator.
        model_errors = [row for row in rows if row.termination == "model_error"]
        assert model_errors and first.model_errors == len(model_errors)
        for row in model_errors:
            assert row.passed is False and row.termination_detail.startswith("agent: ")
            assert any(c.name == "termination_reached" and not c.passed for c in row.rule_checks)
        details = " ".join(row.termination_detail for row in model_errors)
        assert "refused a request holding the model's own tool call" in details  # the 400 on echoed bad JSON
        # A bad config is infra, loud, and not retried as a conversation.
        config_rows = [row for row in rows if "configuration error" in (row.infra_error or "")]
        assert config_rows and first.config_errors == len(config_rows)
        # The malformed end_conversation ended nothing: the agent read an error and went on. Read from the
        # requests, not the store: which conversation gets which fault depends on the order requests arrive in,
        # and a conversation whose next fault is config_400 ends as an infra error, its rollout not stored.
        answers = [m for body in server.requests for m in body["messages"]
                   if m.get("role") == "tool" and m.get("tool_call_id") == "call_bad_control"]
        assert answers and all("was not applied" in m["content"] and "continues" in m["content"] for m in answers), answers

        # Rerun with the faults off: only the infrastructure rows are redone.
        plan.enabled = False
        infra_ids = {row.scenario_id for row in rows if row.infra_error is not None}
        second, again = _run(tmp_path, "rerun", server.base_url, monkeypatch)
        assert second.infra_errors == 0 and second.scored + second.judge_errors == 10
        for row in nonempty(again, "again"):
            redone = row.usage.get("agent") is not None and row.usage["agent"].calls > 0
            assert redone == (row.scenario_id in infra_ids), row.scenario_id
        assert second.llm_calls == len(server.requests) - first_requests
        assert second.model_errors == first.model_errors  # stored conversations are the model's, kept
        assert second.pass_rate == second.passed / second.scored
