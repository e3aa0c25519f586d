"""A whole job with real-provider configs (hosted vLLM agent and judge) against a local stub server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skillbench.engine import RESULTS_FILE, ResultRow, run_job
from skillbench.evaluation.records import Verdict
from skillbench.store import ArtifactStore
from tests.conftest import REPO, compose_config
from tests.support.openai_stub import NGINX_502, conversation_script, stub_server

SECRET = "sk-live-DO-NOT-STORE-4242"


def test_job_through_litellm_to_a_stub_and_no_secret_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with stub_server(conversation_script) as server:
        for name in ("QWEN3_5_9B", "GEMMA4"):
            monkeypatch.setenv(f"SKILLBENCH_{name}_API_BASE", server.base_url)
            monkeypatch.setenv(f"SKILLBENCH_{name}_API_KEY", SECRET)
        cfg = compose_config(
            "agent=qwen3_5_9b", "judge=gemma4", "user_sim=sim_user", f"store.root={tmp_path / 'store'}",
            "benchmark.scenarios=[hc-resched-happy-01]",
        )
        summary = run_job(cfg, tmp_path / "job")
    assert summary.infra_errors == 0 and summary.judge_errors == 0
    assert summary.usage["agent"].calls >= 3 and summary.usage["judge"].calls == 1
    assert summary.usage["agent"].prompt_tokens > 0
    [row] = [ResultRow.model_validate_json(line) for line in (tmp_path / "job" / RESULTS_FILE).read_text().splitlines()]
    assert not row.simulated
    assert row.termination in {"resolved", "user_ended"} and row.tool_calls >= 2
    assert row.scores is not None and row.scores.explanation == "stub"
    models = {request["model"] for request in server.requests}
    assert models == {"Qwen/Qwen3.5-9B", "google/gemma-4-31B-it"}
    first_agent_call = next(r for r in server.requests if r.get("tools"))
    offered = {tool["function"]["name"] for tool in first_agent_call["tools"]}
    assert {"identity__verify_customer", "end_conversation", "transfer_to_human"} <= offered
    for path in [*(tmp_path / "job").rglob("*"), *(tmp_path / "store").rglob("*")]:
        if path.is_file():
            assert SECRET not in path.read_text(errors="ignore"), path


_NO_PLUGIN_JOB = """
import sys
from pathlib import Path
from typing import Any
from skillbench.engine import run_job
from tests.conftest import compose_config

cfg = compose_config("agent=qwen3_5_9b", "judge=gemma4", "user_sim=gemma4_31b", "store.root={root}/store",
                     "benchmark.scenarios=[hc-resched-happy-01]")
summary = run_job(cfg, Path("{root}") / "job")
assert summary.infra_errors == 0, summary
print(sorted(name for name in sys.modules if name.startswith("skillbench.simulated")))
"""


def test_a_job_of_real_models_never_imports_the_simulator(tmp_path: Path) -> None:
    # In a fresh interpreter: the test session itself has imported the simulator through other tests.
    with stub_server(conversation_script) as server:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
        for name in ("QWEN3_5_9B", "GEMMA4", "USER_SIM"):
            env[f"SKILLBENCH_{name}_API_BASE"] = server.base_url
        result = subprocess.run([sys.executable, "-c", _NO_PLUGIN_JOB.format(root=tmp_path)], cwd=REPO, env=env,
                                capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "[]"


def _judge_replies(reply: str | None):
    """The conversation script, with the judge's every reply replaced by ``reply`` (None: content null)."""

    def script(body: dict[str, Any]) -> dict[str, Any]:
        if body.get("tools") or body["messages"][0]["role"] == "system":
            return conversation_script(body)
        return {"role": "assistant", "content": reply}

    return script


def _job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: Any, name: str) -> tuple[Any, ResultRow, int]:
    with stub_server(script) as server:
        for model in ("QWEN3_5_9B", "GEMMA4"):
            monkeypatch.setenv(f"SKILLBENCH_{model}_API_BASE", server.base_url)
        # The stub agent never calls the required tools: with hard checks deciding, a judge error would not leave the
        # row unscored (a known failure stays a failure). These tests are about the judge, so its verdict is needed.
        cfg = compose_config("agent=qwen3_5_9b", "judge=gemma4", "user_sim=sim_user", f"store.root={tmp_path / 'store'}",
                             "benchmark.scenarios=[hc-resched-happy-01]", "pass_rule.fail_on_hard_rule_failure=false")
        summary = run_job(cfg, tmp_path / name)
    [row] = [ResultRow.model_validate_json(line) for line in (tmp_path / name / RESULTS_FILE).read_text().splitlines()]
    judge_requests = sum(1 for request in server.requests if not request.get("tools") and request["messages"][0]["role"] == "user")
    return summary, row, judge_requests


def _stored_verdicts(tmp_path: Path) -> list[Verdict]:
    store = ArtifactStore(tmp_path / "store")
    found = [store.get("verdicts", path.stem, Verdict) for path in (tmp_path / "store" / "verdicts").rglob("*.json")]
    return [verdict for verdict in found if verdict is not None]


@pytest.mark.parametrize(("reply", "reason"), [(None, "empty"), ("", "empty"), ("  \n", "empty"),
                                               ("I think the agent did fine.", "not_json")])
def test_a_judge_error_keeps_its_evidence_and_heals_on_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: str | None, reason: str
) -> None:
    summary, row, asked = _job(tmp_path, monkeypatch, _judge_replies(reply), "down")
    assert asked == 3 and summary.judge_errors == 1  # 1 + max_parse_retries, then a judge error: never a pass or fail
    assert row.passed is None and row.judge_error is not None and row.infra_error is None
    assert row.judge_error_reason == reason and [a.reply for a in row.judge_attempts] == [(reply or "")] * 3
    # Stored as evidence only: never final.
    [stored] = _stored_verdicts(tmp_path)
    assert stored.scores is None and stored.failed_requests == 3 and len(stored.attempts) == 3
    # The judge recovers: the stored rollout is reused, the judge is asked again and the row is scored.
    summary, row, asked = _job(tmp_path, monkeypatch, conversation_script, "recovered")
    assert asked == 1 and summary.usage["agent"].calls == 0 and summary.judge_errors == 0
    assert row.scores is not None and row.passed is not None
    # ... and that verdict is final: a third run asks nobody.
    summary, _, asked = _job(tmp_path, monkeypatch, conversation_script, "again")
    assert asked == 0 and summary.judge_errors == 0


def test_a_judge_that_keeps_failing_counts_its_attempts_over_reruns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _job(tmp_path, monkeypatch, _judge_replies("I think the agent did fine."), "first")
    summary, row, asked = _job(tmp_path, monkeypatch, _judge_replies("still prose"), "second")
    assert asked == 3 and summary.judge_errors == 1
    assert row.judge_error is not None and "6 in all over reruns" in row.judge_error
    [stored] = _stored_verdicts(tmp_path)
    assert stored.failed_requests == 6 and [a.reply for a in stored.attempts][-1] == "still prose"


def test_a_502_page_from_a_proxy_is_sent_again_and_the_row_is_scored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """nginx answers the judge's first request with its 502 HTML page (the server behind it restarting): the
    client sends it again (by status, docs/outcomes.md), so the row is scored with 2 judge requests, not redone."""
    pages = iter([NGINX_502])
    with stub_server(lambda body: next(pages, None) or conversation_script(body)) as server:
        monkeypatch.setenv("SKILLBENCH_GEMMA4_API_BASE", server.base_url)
        cfg = compose_config("agent=sim_careful", "judge=gemma4", "user_sim=sim_user", f"store.root={tmp_path / 'store'}",
                             "benchmark.scenarios=[hc-resched-happy-01]")
        summary = run_job(cfg, tmp_path / "job")
    [row] = [ResultRow.model_validate_json(line) for line in (tmp_path / "job" / RESULTS_FILE).read_text().splitlines()]
    assert len(server.requests) == 2 and summary.infra_errors == 0 and summary.judge_errors == 0
    assert row.scores is not None and row.passed is not None and row.infra_error is None
    assert summary.usage["judge"].calls == 1 and summary.usage["judge"].failed_attempts == 1
