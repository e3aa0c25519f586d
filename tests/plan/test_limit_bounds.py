"""A run whose calls a known rate limit cannot pass in reasonable time is told so before it starts (the preflight's
announcement and the dry run), from the configured limit or one the provider stated to an earlier run on the store."""

from __future__ import annotations

from pathlib import Path

from skillbench.models.limit_scope import limit_scope
from skillbench.models.limit_share import LIMITS_DIR, Ask, sync_shared
from tests.conftest import compose_config
from tests.test_paid_runs import Run, _announced, run  # noqa: F401  (the in-process CLI fixture)


def test_a_slow_configured_limit_is_said_before_the_run_and_in_the_dry_run(tmp_path: Path, run: Run) -> None:  # noqa: F811
    slow = ("agent=qwen3_5_9b", "agent.requests_per_minute=6", "benchmark.limit=20")
    said = _announced(tmp_path, *slow)
    # 20 conversations x 12 agent calls (the assumed profile) at 6 a minute
    assert ("skillbench: note: at 6 requests/min (agent.requests_per_minute), the ~240 calls of "
            "hosted_vllm/Qwen/Qwen3.5-9B @ http://localhost:8000/v1 need about 40 min") in said, said
    dry = run(tmp_path, *slow, "run.dry_run=true")
    assert dry.returncode == 0 and "rate limit: at 6 requests/min (agent.requests_per_minute)" in dry.stdout
    assert "note:" not in _announced(tmp_path, "agent=qwen3_5_9b", "agent.requests_per_minute=600", "benchmark.limit=20")


def test_a_limit_the_provider_stated_to_an_earlier_run_is_used(tmp_path: Path) -> None:
    store = tmp_path / "outputs" / "store"
    agent = compose_config("agent=qwen3_5_9b").agent
    sync_shared(store / LIMITS_DIR / f"{limit_scope(agent).ident}.json", "an-earlier-run",
                Ask(ceiling=16, want=0, in_flight=0, learned_rpm=30))
    said = _announced(tmp_path, "agent=qwen3_5_9b", f"store.root={store}", "benchmark.limit=50")
    assert "at 30 requests/min (stated by the provider to an earlier run on this store), the ~600 calls" in said, said
