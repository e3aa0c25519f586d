"""A whole job against rate-limited endpoints (local 429 stubs through litellm): no conversation lost or redone,
the limiter's state in summary.json, and a run that leaves rows unscored says so and exits 5."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from skillbench.engine import RESULTS_FILE, ResultRow, run_job
from skillbench.models.limiter import LIMITERS
from tests.conftest import compose_config
from tests.support.ratelimited_stub import RateLimitedStub, rate_limited_stub
from tests.test_paid_runs import Run, run  # noqa: F401  (the in-process CLI fixture)


@pytest.fixture(autouse=True)
def _fresh_limiters() -> None:
    LIMITERS.limiters.clear()


def test_more_conversations_than_the_limits_allow_all_finish_once(tmp_path: Path) -> None:
    # 8 conversations at once (scenario_concurrency 16) against an agent endpoint allowing 4 requests/s that
    # states no limit (only Retry-After, so AIMD must find it) and a judge endpoint allowing 1 request/s.
    with rate_limited_stub(requests_per_minute=240, retry_after_s=0.5, state_limits=False, latency_s=0.05) as agent, \
            rate_limited_stub(requests_per_minute=60, retry_after_s=1) as judge:
        cfg = compose_config(
            "agent=qwen3_5_9b", f"agent.api_base={agent.base_url}", "agent.max_retries=0", "agent.concurrency=16",
            "judge=gemma4", f"judge.api_base={judge.base_url}", "judge.max_retries=0", "user_sim=sim_user",
            f"store.root={tmp_path / 'store'}", "benchmark.limit=8", "run.scenario_concurrency=16",
        )
        summary = run_job(cfg, tmp_path / "job")
    assert summary.infra_errors == 0 and summary.judge_errors == 0 and summary.scored == 8
    assert agent.refused, "the stub never throttled: the test does not test throttling"
    # Nothing redone: every accepted request is one the rows account for, once.
    assert summary.usage["agent"].calls == len(agent.accepted)
    assert summary.usage["judge"].calls == len(judge.accepted) == 8
    assert summary.failed_attempts == len(agent.refused) + len(judge.refused)
    rows = [ResultRow.model_validate_json(line) for line in (tmp_path / "job" / RESULTS_FILE).read_text().splitlines()]
    assert len(rows) == 8 and all(row.infra_error is None for row in rows)
    limits = {entry["endpoint"].split(" @ ")[0]: entry for entry in summary.rate_limits}
    assert set(limits) == {"hosted_vllm/Qwen/Qwen3.5-9B", "hosted_vllm/google/gemma-4-31B-it"}
    agent_limits = limits["hosted_vllm/Qwen/Qwen3.5-9B"]
    assert agent_limits["rate_limited"] == len(agent.refused) and 1 <= agent_limits["limit"] <= 16
    saved = json.loads((tmp_path / "job" / "summary.json").read_text())
    assert saved["rate_limits"] == summary.model_dump(mode="json")["rate_limits"]


def test_rows_left_unscored_by_throttling_exit_5_saying_how_many_and_why(tmp_path: Path, run: Run) -> None:  # noqa: F811
    # The judge's endpoint allows 1 request a minute and the judge's patience is 2 s: of 3 conversations, the
    # judge scores one and the others stay unscored. The conversations are not redone (one agent pass each).
    with rate_limited_stub(requests_per_minute=1, retry_after_s=1, models=("google/gemma-4-31B-it",)) as judge:
        result = run(tmp_path, "judge=gemma4", f"judge.api_base={judge.base_url}", "judge.rate_limit_patience_s=2",
                     "benchmark.limit=3", "hydra.run.dir=outputs/job")
    assert result.returncode == 5, result.stderr[-3000:]
    [line] = [line for line in result.stderr.splitlines() if line.startswith("skillbench: finished with")]
    assert "2 of 3 conversations unscored" in line, line
    assert "rate-limited" in line and "rerunning" in line
    summary = json.loads((tmp_path / "outputs" / "job" / "summary.json").read_text())
    assert summary["scored"] == 1 and summary["infra_errors"] + summary["judge_errors"] == 2
    assert len(judge.accepted) == 1


class _AlwaysThrottled(RateLimitedStub):
    """An endpoint that answers every request 429 (Retry-After 0.2 s), as a key over a quota that never resets."""

    def answer(self, body: dict[str, Any]) -> tuple[int, bytes, dict[str, str]]:
        self.refused.append(time.monotonic())
        return 429, b'{"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}', {"retry-after": "0.2"}


def test_an_endpoint_throttling_forever_leaves_rows_unscored_with_exit_5_not_a_failed_job(tmp_path: Path,
                                                                                          run: Run) -> None:  # noqa: F811
    # Every judge call is refused; with the default run.max_infra_error_share (0.5), the run still ends as a finished
    # run with unscored rows (exit 5 and its line), not "job failed": a rerun scores them once the provider lets it.
    stub = _AlwaysThrottled(models=("google/gemma-4-31B-it",))
    stub.start()
    try:
        result = run(tmp_path, "judge=gemma4", f"judge.api_base={stub.base_url}", "judge.rate_limit_patience_s=1",
                     "benchmark.limit=2", "hydra.run.dir=outputs/job")
    finally:
        stub.stop()
    assert result.returncode == 5, result.stderr[-3000:]
    [line] = [line for line in result.stderr.splitlines() if line.startswith("skillbench: finished with")]
    assert "2 of 2 conversations unscored" in line and "still rate-limited" in line, line
    summary = json.loads((tmp_path / "outputs" / "job" / "summary.json").read_text())
    assert summary["scored"] == 0 and sum(summary["throttled_errors"].values()) == 2
    assert not (tmp_path / "outputs" / "job" / "job_error.json").exists()


def test_the_limits_in_force_are_in_the_summary_and_the_progress_line(tmp_path: Path,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    # A judge endpoint stating its requests and tokens per minute: both are what summary.json and the job's last
    # progress line show for it.
    caplog.set_level(logging.INFO, logger="skillbench")
    with rate_limited_stub(requests_per_minute=600, tokens_per_minute=300_000, models=("google/gemma-4-31B-it",)) as judge:
        cfg = compose_config("judge=gemma4", f"judge.api_base={judge.base_url}", f"store.root={tmp_path / 'store'}",
                             "benchmark.limit=2")
        summary = run_job(cfg, tmp_path / "job")
    [limits] = summary.rate_limits
    assert limits["requests_per_minute"] == 600 and limits["tokens_per_minute"] == 300_000
    assert any("600 req/min 300,000 tok/min" in record.getMessage() for record in caplog.records), \
        [r.getMessage() for r in caplog.records if "limits" in r.getMessage()]
