"""Throttling never loses or redoes work: ModelClient → litellm → a local rate-limited stub (HTTP 429 + headers).

Behaviour only (no timing assertions): every call ends answered however hard it is throttled, the endpoint's
limiter (not each caller) paces the retries, its state is shared across processes, and a call whose patience
runs out is an unscored row that is never restarted in the run.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from skillbench.core.errors import InfrastructureError
from skillbench.models.client import ClientPool, ModelClient, is_throttled
from skillbench.models.limiter import LIMITERS, Hints, LimitSettings, finish, new_state, read_hints, try_start
from tests.conftest import compose_config
from tests.support.openai_stub import text_reply
from tests.support.ratelimited_stub import RateLimitedStub, rate_limited_stub

MESSAGES: list[dict[str, Any]] = [{"role": "user", "content": "hello"}]


def _agent(base_url: str, *overrides: str):
    return compose_config("agent=qwen3_5_9b", f"agent.api_base={base_url}", "agent.max_retries=0", *overrides).agent


@pytest.fixture(autouse=True)
def _fresh_limiters() -> None:
    LIMITERS.limiters.clear()  # each test's stub is a new endpoint; no state carried between tests


async def _burst(client: ModelClient, calls: int) -> list[Any]:
    return await asyncio.gather(*(client.complete(MESSAGES) for _ in range(calls)), return_exceptions=True)


@pytest.mark.parametrize("state_limits", [True, False], ids=["x-ratelimit headers", "retry-after only"])
async def test_a_throttled_burst_is_answered_in_full_and_paced_by_the_limiter(state_limits: bool) -> None:
    # 40 calls at once against 5 requests/s; the client gives up transient errors at once (max_retries=0), so
    # only the throttling patience can carry them through.
    with rate_limited_stub(lambda body: text_reply("ok"), requests_per_minute=300, retry_after_s=0.5,
                           state_limits=state_limits) as stub:
        pool = ClientPool()
        client = pool.client(_agent(stub.base_url, "agent.concurrency=16"), role="agent")
        results = await _burst(client, 40)
    assert [r for r in results if isinstance(r, BaseException)] == []
    assert all(r.content == "ok" for r in results)
    assert len(stub.accepted) == 40  # each call answered once: nothing lost, nothing redone
    [stats] = pool.endpoint_stats()
    assert stats["requests"] == 40 + len(stub.refused) and stats["rate_limited"] == len(stub.refused)
    assert 1 <= stats["limit"] <= stats["ceiling"] == 16
    # Waiting callers do not hammer: the refused attempts stay well below one per waiting call per pause.
    assert len(stub.refused) < 40, len(stub.refused)
    if state_limits:  # the stated limit is learned and used
        assert stats["requests_per_minute"] == 300


async def test_a_judge_call_gets_the_same_patience() -> None:
    with rate_limited_stub(lambda body: text_reply('{"x": 1}'), requests_per_minute=120, retry_after_s=0.5,
                           state_limits=False) as stub:
        cfg = compose_config("judge=gemma4", f"judge.api_base={stub.base_url}", "judge.max_retries=0").judge
        client = ClientPool().client(cfg, role="judge")
        results = await _burst(client, 12)
    assert not [r for r in results if isinstance(r, BaseException)]
    assert len(stub.accepted) == 12 and stub.refused


async def test_patience_spent_is_a_throttled_infrastructure_error() -> None:
    with rate_limited_stub(lambda body: text_reply("ok"), requests_per_minute=1, retry_after_s=0.2) as stub:
        client = ClientPool().client(_agent(stub.base_url, "agent.rate_limit_patience_s=1.5"), role="agent")
        results = await _burst(client, 3)
    errors = [r for r in results if isinstance(r, InfrastructureError)]
    assert errors and all(e.throttled and e.retryable for e in errors)
    assert "still rate-limited" in str(errors[0]) and "rate_limit_patience_s" in str(errors[0])


async def test_a_503_with_a_reason_is_throttling_and_one_without_is_not() -> None:
    import litellm

    statuses = iter([(503, {"retry-after": "0"}), (503, {})])

    class Server(RateLimitedStub):
        def answer(self, body: dict[str, Any]) -> tuple[int, bytes, dict[str, str]]:
            status, headers = next(statuses, (200, {}))
            if status != 200:
                return status, b'{"error": {"message": "upstream"}}', headers
            return super().answer(body)

    stub = Server(lambda body: text_reply("ok"), requests_per_minute=None)
    stub.start()
    try:
        seen = []
        for _ in range(2):
            with pytest.raises(Exception) as caught:
                await litellm.acompletion(model="hosted_vllm/stub", api_base=stub.base_url, messages=MESSAGES,
                                          num_retries=0)
            seen.append(is_throttled(caught.value))
    finally:
        stub.stop()
    assert seen == [True, False]


def test_headers_of_each_provider_family_are_read() -> None:
    openai = read_hints({"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "0",
                         "x-ratelimit-reset-requests": "1m0.5s", "x-ratelimit-limit-tokens": "30000",
                         "retry-after-ms": "250"})
    assert (openai.requests_per_minute, openai.tokens_per_minute, openai.retry_after_s, openai.wait_s) == (500, 30000, 0.25, 60.5)
    anthropic = read_hints({"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "0",
                            "anthropic-ratelimit-requests-reset": "2999-01-01T00:00:00Z", "retry-after": "7"})
    assert anthropic.requests_per_minute == 50 and anthropic.retry_after_s == 7 and anthropic.wait_s > 0
    assert read_hints({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}).retry_after_s == 0.0  # a date in the past


def test_aimd_grows_on_success_halves_once_per_round_and_keeps_to_the_ceiling() -> None:
    settings = LimitSettings(ceiling=8)
    state = new_state(settings)
    for _ in range(20):
        assert try_start(state, settings, 100.0, "1", 0) == 0.0
        finish(state, settings, 100.0, "1", started=100.0, outcome="ok", latency_s=0.3, hints=Hints())
    assert state["limit"] == 8  # grew to the ceiling, never past it
    for _ in range(3):  # three 429s of requests started before the first cut: one cut
        finish(state, settings, 101.0, "1", started=100.5, outcome="throttled", latency_s=0.3, hints=Hints(retry_after_s=1))
    assert state["limit"] == 4 and state["pause_until"] == 102.0
    assert try_start(state, settings, 101.5, "1", 0) == pytest.approx(0.5)  # every caller waits out the pause
    fixed = LimitSettings(ceiling=8, adaptive=False)
    state = new_state(fixed)
    finish(state, fixed, 1.0, "1", started=1.0, outcome="throttled", latency_s=0.1, hints=Hints(retry_after_s=1))
    assert state["limit"] == 8


def _worker(base_url: str, shared: str, calls: int) -> None:
    cfg = _agent(base_url, "agent.concurrency=2", "agent.adaptive_concurrency=false")
    client = ClientPool(shared_dir=Path(shared)).client(cfg, role="agent")
    results = asyncio.run(_burst(client, calls))
    os._exit(0 if all(not isinstance(r, BaseException) for r in results) else 1)


def test_processes_sharing_a_store_share_the_endpoint_limit(tmp_path: Path) -> None:
    # Two forked processes (as the parallel launcher's workers), 6 calls at once each, ceiling 2 per endpoint:
    # the endpoint never sees more than 2 in flight.
    with rate_limited_stub(lambda body: text_reply("ok"), requests_per_minute=None, latency_s=0.2) as stub:
        context = multiprocessing.get_context("fork")
        workers = [context.Process(target=_worker, args=(stub.base_url, str(tmp_path / ".limits"), 6)) for _ in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(120)
    assert [w.exitcode for w in workers] == [0, 0]
    assert len(stub.accepted) == 12 and stub.peak_in_flight <= 2
    assert list((tmp_path / ".limits").glob("*.json"))
