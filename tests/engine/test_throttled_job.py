"""A whole job against rate-limited endpoints (local 429 stubs through litellm): no conversation lost or redone,
the limiter's state in summary.json, and a run that leaves rows unscored says so and exits 5."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.engine import RESULTS_FILE, ResultRow, run_job
from skillbench.models.limiter import LIMITERS
from tests.conftest import compose_config
from tests.support.ratelimited_stub import rate_limited_stub
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
                     "benchmark.limit=3", "hydra.run.dir=outputs/job", "run.max_infra_error_share=1.0")
    assert result.returncode == 5, result.stderr[-3000:]
    [line] = [line for line in result.stderr.splitlines() if line.startswith("skillbench: finished with")]
    assert "2 of 3 conversations unscored" in line, line
    assert "rate-limited" in line and "rerunning" in line
    summary = json.loads((tmp_path / "outputs" / "job" / "summary.json").read_text())
    assert summary["scored"] == 1 and summary["infra_errors"] + summary["judge_errors"] == 2
    assert len(judge.accepted) == 1
