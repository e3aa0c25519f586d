"""An agent running as a service (examples/agent_service.py, a separate process on 127.0.0.1 speaking
OpenAI-compatible chat completions) evaluated end to end with ``agent=service``: its conversations are scored;
its outage is infrastructure (retried, never scored, nothing stored, the rerun does them); its malformed reply is
the agent's own failure (model_error, scored as a fail)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import REPO
from tests.support.nonempty import nonempty

SERVICE = REPO / "examples" / "agent_service.py"
ENV = {**os.environ, "PYTHONPATH": str(REPO), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


@contextmanager
def agent_service(port: int = 0, mode: str = "agent", *extra: str) -> Iterator[int]:
    process = subprocess.Popen([sys.executable, str(SERVICE), "--port", str(port), "--mode", mode, *extra],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield int(process.stdout.readline())
    finally:
        process.terminate()
        process.wait(timeout=10)


def _run(tmp_path: Path, port: int, name: str, *extra: str) -> tuple[int, list[dict], str]:
    job = tmp_path / name
    done = subprocess.run(
        [sys.executable, "-m", "skillbench", "agent=service", "judge=sim_balanced", "benchmark.limit=3",
         "agent.max_retries=1", "run.infra_retries=1", f"store.root={tmp_path / 'store'}", f"hydra.run.dir={job}", *extra],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**ENV, "SKILLBENCH_AGENT_SERVICE_URL": f"http://127.0.0.1:{port}/v1"},
    )
    rows_file = job / "results.jsonl"
    rows = [json.loads(line) for line in rows_file.read_text().splitlines()] if rows_file.exists() else []
    return done.returncode, rows, done.stderr


def test_a_service_is_evaluated_end_to_end_and_its_outage_is_infrastructure(tmp_path: Path) -> None:
    with agent_service() as port:
        code, rows, stderr = _run(tmp_path, port, "up")
    assert code == 0, stderr[-2000:]
    assert len(rows) == 3 and all(row["passed"] is not None and row["infra_error"] is None for row in rows)
    assert all(row["usage"]["agent"]["calls"] >= 2 for row in rows)
    assert {row["termination"] for row in rows} <= {"transferred", "user_ended"}

    # The service is down before the run: the preflight refuses it, one line, nothing written.
    code, rows, stderr = _run(tmp_path, port, "refused")
    assert code == 2 and f"endpoint http://127.0.0.1:{port}/v1 does not answer" in stderr and rows == []

    # Down during the run (the preflight skipped): every request retried, every row an unscored
    # infrastructure error, nothing stored; once it is back, a rerun of the same config has the conversations.
    code, rows, stderr = _run(tmp_path, port, "outage", "run.preflight=false", "benchmark.limit=2",
                              "run.seed=7")
    assert code == 1 and "infrastructure" in stderr
    assert len(rows) == 2 and all(row["termination"] == "infra_error" and row["passed"] is None for row in rows)
    assert all(row["usage"]["agent"]["retries"] >= 1 and row["usage"]["agent"]["calls"] == 0 for row in rows)
    with agent_service(port) as same_port:
        code, again, stderr = _run(tmp_path, same_port, "back", "benchmark.limit=2", "run.seed=7")
    assert code == 0, stderr[-2000:]
    assert all(row["passed"] is not None and row["usage"]["agent"]["calls"] > 0 for row in nonempty(again, "rows"))
    assert [row["rollout_key"] for row in again] == [row["rollout_key"] for row in rows]


def test_a_malformed_reply_from_the_service_is_the_agents_failure_scored_as_a_fail(tmp_path: Path) -> None:
    with agent_service(mode="malformed") as port:
        code, rows, stderr = _run(tmp_path, port, "malformed", "benchmark.limit=2")
    assert code == 0, stderr[-2000:]
    assert len(rows) == 2
    for row in rows:
        assert row["termination"] == "model_error" and row["passed"] is False and row["infra_error"] is None
        assert "neither text nor tool calls" in row["termination_detail"]


def test_a_service_that_crashes_on_one_scenario_every_time_has_failed_that_scenario(tmp_path: Path) -> None:
    """The service answers the banking conversation and crashes (HTTP 500) on every try of the telecom one: that is
    the agent's own failure on that scenario's content (agent.service: true), scored as a fail, not an outage that
    no rerun could ever fill in (docs/outcomes.md)."""
    with agent_service(0, "agent", "--crash-on", "billing__change_plan") as port:
        code, rows, stderr = _run(tmp_path, port, "crash", "benchmark.scenarios=[bk-fee-happy-01,tc-plan-missing-01]",
                                  "run.scenario_concurrency=1")
    assert code == 0, stderr[-2000:]
    answered, crashed = rows
    assert answered["passed"] is not None and answered["termination"] != "model_error"
    assert crashed["termination"] == "model_error" and crashed["passed"] is False and crashed["infra_error"] is None
    assert crashed["termination_detail"].startswith("agent: the agent service failed on every one of the 2 tries")
    assert "InternalServerError" in crashed["termination_detail"]
