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
from skillbench.models.limiter import LIMITERS, EndpointLimiter, Hints, LimitSettings, read_hints
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


async def _calls(limiter: EndpointLimiter, count: int, outcome: str = "ok") -> None:
    async def one() -> None:
        ticket = await limiter.acquire()
        await asyncio.sleep(0.001)
        limiter.release(ticket, outcome, 0.001)

    await asyncio.gather(*(one() for _ in range(count)))


async def test_aimd_grows_while_calls_wait_halves_once_per_round_and_keeps_to_the_ceiling() -> None:
    limiter = EndpointLimiter("x", LimitSettings(ceiling=8))
    assert limiter.limit == 2
    for _ in range(3):  # one call at a time: nothing waits for a larger limit, so it does not grow untested
        await _calls(limiter, 1)
    assert limiter.limit == 2
    await _calls(limiter, 40)
    assert limiter.limit == 8  # grew to the ceiling, never past it
    tickets = [await limiter.acquire() for _ in range(3)]
    for ticket in tickets:  # three 429s of requests started before the first cut: one cut
        limiter.release(ticket, "throttled", 0.1, Hints(retry_after_s=1))
    assert limiter.limit == 4 and limiter.rate_limited == 3
    assert 0.5 < limiter.snapshot()["paused_s"] <= 1.0  # every caller waits out the pause
    fixed = EndpointLimiter("y", LimitSettings(ceiling=8, adaptive=False))
    ticket = await fixed.acquire()
    fixed.release(ticket, "throttled", 0.1, Hints(retry_after_s=1))
    assert fixed.limit == 8


async def test_a_rate_stated_in_a_reply_starts_a_bucket_with_what_the_provider_has_left() -> None:
    # Two calls go out before any rate is known (the provider counts them); the first reply states 600/min. The
    # bucket starts with one second's worth (at RATE_MARGIN) less those two, however long the limiter existed
    # before: a new bucket once counted the time since the limiter was made as refill and started full, and a
    # process alone against a 10 requests/s provider drew a 429 in its first second (two processes, several).
    limiter = EndpointLimiter("x", LimitSettings(ceiling=64, adaptive=False))
    await asyncio.sleep(0.2)
    first, _second = await limiter.acquire(), await limiter.acquire()
    limiter.release(first, "ok", 0.05, Hints(requests_per_minute=600))
    started = 0
    while True:
        try:
            await asyncio.wait_for(limiter.acquire(), 0.01)
        except TimeoutError:
            break
        started += 1
    assert started in (7, 8), started  # floor(10 × 0.97 − 2); 8 if the machine stalled 30 ms; 9 from a full bucket


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


async def _chains(client: ModelClient, chains: int, length: int) -> list[Any]:
    async def chain() -> None:
        for _ in range(length):
            await client.complete(MESSAGES)

    return await asyncio.gather(*(chain() for _ in range(chains)), return_exceptions=True)


async def test_an_endpoint_that_never_throttles_gets_the_whole_configured_concurrency(tmp_path: Path) -> None:
    # 32 conversations of 4 calls at 0.3 s each against a server with no limit, the limiter's state shared through a
    # store's .limits folder as in a job: the limit grows (from 2, doubling) to the ceiling, and since the provider
    # never made anything wait, nothing is counted as waited.
    with rate_limited_stub(lambda body: text_reply("ok"), requests_per_minute=None, latency_s=0.3) as stub:
        pool = ClientPool(shared_dir=tmp_path / ".limits")
        client = pool.client(_agent(stub.base_url, "agent.concurrency=32"), role="agent")
        results = await _chains(client, 32, 4)
    assert [r for r in results if isinstance(r, BaseException)] == []
    assert stub.peak_in_flight == 32 and len(stub.accepted) == 128
    [stats] = pool.endpoint_stats()
    assert stats["limit"] == 32 and stats["rate_limited"] == 0 and stats["waited_s"] == 0


async def test_queueing_behind_our_own_slots_neither_spends_patience_nor_counts_as_waiting() -> None:
    # One slot (fixed), 12 calls at once of 0.2 s each: the last one queues ~2.2 s for the slot, with a patience
    # of 0.5 s. The provider never refused anything, so every call is answered.
    with rate_limited_stub(lambda body: text_reply("ok"), requests_per_minute=None, latency_s=0.2) as stub:
        pool = ClientPool()
        client = pool.client(_agent(stub.base_url, "agent.concurrency=1", "agent.adaptive_concurrency=false",
                                    "agent.rate_limit_patience_s=0.5"), role="agent")
        results = await _burst(client, 12)
    assert [r for r in results if isinstance(r, BaseException)] == []
    assert len(stub.accepted) == 12 and stub.peak_in_flight == 1
    [stats] = pool.endpoint_stats()
    assert stats["waited_s"] == 0 and stats["queued_s"] > 2.0


async def test_a_paced_rate_is_waited_for_the_provider_without_spending_patience() -> None:
    # The provider states 300 requests/min (5/s): 30 calls at once take ~6 s of pacing, with a patience of 3 s.
    # Pacing is the provider's limit (so it is counted as waited) but no refusal: every call is answered.
    with rate_limited_stub(lambda body: text_reply("ok"), requests_per_minute=300, latency_s=0.02) as stub:
        pool = ClientPool()
        client = pool.client(_agent(stub.base_url, "agent.concurrency=30", "agent.rate_limit_patience_s=3"),
                             role="agent")
        results = await _burst(client, 30)
    assert [r for r in results if isinstance(r, BaseException)] == []
    [stats] = pool.endpoint_stats()
    assert stats["requests_per_minute"] == 300 and stats["waited_s"] > 1.0
    assert len(stub.refused) <= 0.05 * (len(stub.accepted) + len(stub.refused))


async def test_waiting_calls_start_highest_priority_first() -> None:
    limiter = EndpointLimiter("x", LimitSettings(ceiling=1, adaptive=False))
    first = await limiter.acquire()
    order: list[float] = []

    async def call(priority: float) -> None:
        ticket = await limiter.acquire(priority=priority)
        order.append(priority)
        limiter.release(ticket, "ok", 0.0)

    tasks = [asyncio.create_task(call(priority)) for priority in (1, 5, 3, 5, 2)]
    await asyncio.sleep(0.01)  # every call is waiting
    limiter.release(first, "ok", 0.0)
    await asyncio.gather(*tasks)
    assert order == [5, 5, 3, 2, 1]


async def test_a_judge_call_goes_before_conversation_calls_on_a_shared_server() -> None:
    # The agent and the judge on one self-hosted server (one limit scope), one slot: while an agent call is in
    # flight, 4 more agent calls and then a judge call queue; the judge's is answered next (it ends a row).
    with rate_limited_stub(lambda body: text_reply("ok"), requests_per_minute=None, latency_s=0.2,
                           models=("Qwen/Qwen3.5-9B", "google/gemma-4-31B-it")) as stub:
        cfg = compose_config("agent=qwen3_5_9b", f"agent.api_base={stub.base_url}", "agent.concurrency=1",
                             "agent.adaptive_concurrency=false", "judge=gemma4", f"judge.api_base={stub.base_url}",
                             "judge.concurrency=1", "judge.adaptive_concurrency=false")
        pool = ClientPool()
        agent, judge = pool.client(cfg.agent, role="agent"), pool.client(cfg.judge, role="judge")
        first = asyncio.create_task(agent.complete(MESSAGES))
        await asyncio.sleep(0.05)
        rest = [asyncio.create_task(agent.complete(MESSAGES)) for _ in range(4)]
        await asyncio.sleep(0.05)
        verdict = asyncio.create_task(judge.complete(MESSAGES))
        await asyncio.gather(first, *rest, verdict)
    assert [body["model"] for body in stub.bodies][:2] == ["Qwen/Qwen3.5-9B", "google/gemma-4-31B-it"]
    assert stub.peak_in_flight == 1 and len(pool.endpoint_stats()) == 1


def _sent_over_allowed(stub: RateLimitedStub) -> float:
    """Attempts (answered and refused) per second over the span they were sent in, ÷ the stub's allowed rate."""
    times = sorted(stub.accepted + stub.refused)
    allowed = stub.allowed_rate()
    assert allowed is not None
    burst = max(1.0, allowed)  # the provider's bucket holds one second's worth
    return (len(times) - burst) / max(1e-9, (times[-1] - times[0])) / allowed


async def test_two_models_behind_one_server_share_its_limit() -> None:
    # One self-hosted server serving the agent's and the user simulator's models, 600 requests/min stated in its
    # headers: both models' calls are paced together (one scope), so the 429 share stays under 5 %.
    with rate_limited_stub(lambda body: text_reply("ok"), requests_per_minute=600, latency_s=0.05,
                           models=("Qwen/Qwen3.5-9B", "google/gemma-4-31B-it")) as stub:
        cfg = compose_config("agent=qwen3_5_9b", f"agent.api_base={stub.base_url}", "user_sim=gemma4_31b",
                             f"user_sim.api_base={stub.base_url}")
        pool = ClientPool()
        agent, user = pool.client(cfg.agent, role="agent"), pool.client(cfg.user_sim, role="user")
        results = await asyncio.gather(_chains(agent, 8, 4), _chains(user, 8, 4))
    assert [r for part in results for r in part if isinstance(r, BaseException)] == []
    assert len(stub.accepted) == 64
    assert len(stub.refused) <= 0.05 * (len(stub.accepted) + len(stub.refused)), len(stub.refused)
    assert _sent_over_allowed(stub) <= 1.0
    [scope] = pool.endpoint_stats()
    assert scope["scope"] == "server" and scope["requests_per_minute"] == 600
    assert "Qwen/Qwen3.5-9B" in scope["endpoint"] and "gemma-4-31B-it" in scope["endpoint"]


async def test_a_rate_limit_group_joins_models_the_default_scopes_keep_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two models reached with two different keys on one gateway that limits the account, not the key: by default
    # they are two scopes (per server and key); rate_limit_group=gateway makes them one.
    monkeypatch.setenv("KEY_A", "a-key")
    monkeypatch.setenv("KEY_B", "b-key")
    with rate_limited_stub(lambda body: text_reply("ok"), requests_per_minute=600, latency_s=0.05,
                           models=("Qwen/Qwen3.5-9B", "google/gemma-4-31B-it")) as stub:
        def models(*extra: str):
            cfg = compose_config("agent=qwen3_5_9b", f"agent.api_base={stub.base_url}", "agent.api_key_env=KEY_A",
                                 "user_sim=gemma4_31b", f"user_sim.api_base={stub.base_url}", "user_sim.api_key_env=KEY_B",
                                 *[f"{role}.{setting}" for role in ("agent", "user_sim") for setting in extra])
            return cfg.agent, cfg.user_sim

        assert len({id(ClientPool().client(model).limiter) for model in models()}) == 2
        LIMITERS.limiters.clear()
        pool = ClientPool()
        agent, user = (pool.client(model, role=role) for model, role in zip(models("rate_limit_group=gateway"),
                                                                             ("agent", "user"), strict=True))
        results = await asyncio.gather(_chains(agent, 8, 4), _chains(user, 8, 4))
    assert [r for part in results for r in part if isinstance(r, BaseException)] == []
    assert len(stub.refused) <= 0.05 * (len(stub.accepted) + len(stub.refused)), len(stub.refused)
    [scope] = pool.endpoint_stats()
    assert scope["scope"] == "group" and scope["endpoint"].endswith("@ gateway")


def test_a_waiter_left_behind_by_a_closed_event_loop_does_not_block_the_next_job() -> None:
    # Jobs of one process each run their own event loop (the basic launcher) and share the limiter: a call still
    # waiting when its job's loop ended abruptly must not hold up the next job's calls.
    limiter = EndpointLimiter("x", LimitSettings(ceiling=1, adaptive=False))
    loop = asyncio.new_event_loop()
    held = loop.run_until_complete(limiter.acquire())
    waiting = loop.create_task(limiter.acquire())
    loop.run_until_complete(asyncio.sleep(0.01))
    loop.close()  # never cancelled, never resumed
    waiting._log_destroy_pending = False  # type: ignore[attr-defined]  (that it never ended is the point)
    limiter.release(held, "ok", 0.0)

    async def next_job() -> Any:
        return await asyncio.wait_for(limiter.acquire(), 5)

    assert asyncio.run(next_job()) is not None and not waiting.done()
