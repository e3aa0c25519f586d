"""Processes share a limit scope through its lease file (models/limit_share.py): the rule never hands out more than
the ceiling or the rate, gives a process alone everything, splits fairly, forgets the dead; real processes renewing
at once through the file keep those properties; processes calling one rate-limited endpoint stay under its limit.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
from pathlib import Path
from typing import Any

import pytest

from skillbench.models.client import ClientPool
from skillbench.models.limit_share import (
    LEASE_S,
    Ask,
    fair_slots,
    member_name,
    read_state,
    share,
    sync_shared,
)
from skillbench.models.limiter import LIMITERS
from tests.conftest import compose_config
from tests.support.openai_stub import text_reply
from tests.support.ratelimited_stub import rate_limited_stub

MESSAGES: list[dict[str, Any]] = [{"role": "user", "content": "hello"}]


@pytest.fixture(autouse=True)
def _fresh_limiters() -> None:
    LIMITERS.limiters.clear()


def _held(state: dict[str, Any]) -> tuple[int, float]:
    members = state["members"].values()
    return sum(entry["slots"] for entry in members), sum(entry["rate_share"] for entry in members)


def test_a_process_alone_gets_everything_and_gives_it_back_when_idle() -> None:
    state: dict[str, Any] = {}
    grant = share(state, "a", Ask(ceiling=16, want=1, in_flight=0), now=100.0)
    assert (grant.slots, grant.rate_share, grant.members) == (16, 1.0, 1)
    idle = share(state, "a", Ask(ceiling=16, want=0, in_flight=0), now=100.2)
    assert (idle.slots, idle.rate_share) == (0, 0.0) and _held(state) == (0, 0.0)


def test_shares_converge_to_fair_and_never_exceed_the_ceiling_or_the_rate() -> None:
    # Three processes renewing in random order with random wants and calls in flight (never more than their last
    # grant, as the limiter admits): after every renewal the entries hold at most the ceiling and the whole rate.
    rng = random.Random(7)
    state: dict[str, Any] = {}
    granted = {"a": 0, "b": 0, "c": 0}
    for step in range(2000):
        member = rng.choice("abc")
        want = rng.randint(0, 20)
        in_flight = min(want, granted[member], rng.randint(0, 20))
        grant = share(state, member, Ask(ceiling=12, want=want, in_flight=in_flight), now=1000.0 + step * 0.01)
        granted[member] = max(in_flight, grant.slots)
        slots, rate = _held(state)
        assert slots <= 12 and rate <= 1.0 + 1e-9
    # Steady wants: after a few rounds each has its max-min fair share.
    for step in range(6):
        for member, want in (("a", 2), ("b", 20), ("c", 20)):
            grant = share(state, member, Ask(ceiling=12, want=want, in_flight=0), now=2000.0 + step)
            granted[member] = grant.slots
    assert granted == {"a": 2, "b": 5, "c": 5}
    assert fair_slots(12, {"a": 2, "b": 20, "c": 20}) == {"a": 2, "b": 5, "c": 5}
    assert fair_slots(12, {"a": 0, "b": 3}) == {"a": 0, "b": 12}


def test_a_process_that_stops_renewing_is_forgotten_after_the_lease() -> None:
    state: dict[str, Any] = {}
    share(state, "dead", Ask(ceiling=8, want=8, in_flight=8, learned_rpm=600), now=0.0)
    assert share(state, "alive", Ask(ceiling=8, want=8, in_flight=0), now=1.0).slots == 0
    later = share(state, "alive", Ask(ceiling=8, want=8, in_flight=0), now=LEASE_S + 0.1)
    assert (later.slots, later.rate_share, later.members) == (8, 1.0, 1)
    assert later.requests_per_minute == 600  # what the dead process learned from the provider stays


def test_members_on_other_hosts_hold_their_share_by_lease_whatever_their_pid(tmp_path: Path) -> None:
    # Array tasks on several nodes share one lease file. A member is kept while it renews, whatever its pid means on
    # the host reading the file: here one names this very process's pid, another a pid no process here has (an
    # earlier design kept in-flight counts per pid and dropped those whose pid was not alive on the reading host, so
    # each node ignored the other nodes' calls).
    path = tmp_path / ".limits" / "scope.json"
    same_pid, no_such_pid, here = f"node-a:{os.getpid()}:n1", "node-b:4194999:n2", member_name("n3")
    grants = {}
    for step in range(4):  # a few renewal rounds: the shares settle
        for number, member in enumerate((same_pid, no_such_pid, here)):
            grants[member] = sync_shared(path, member, Ask(ceiling=12, want=6, in_flight=0),
                                         now=100.0 + step * 0.25 + number * 0.01)
    assert {member: (grant.slots, grant.members) for member, grant in grants.items()} == {
        same_pid: (4, 3), no_such_pid: (4, 3), here: (4, 3)}
    assert grants[here].rate_share == pytest.approx(1 / 3, abs=1e-6)
    slots, rate = _held(read_state(path))
    assert slots == 12 and rate <= 1.0 + 1e-9
    # Once the other nodes stop renewing (their tasks ended, or their node died), their shares lapse after the lease.
    later = sync_shared(path, here, Ask(ceiling=12, want=6, in_flight=0), now=101.0 + LEASE_S)
    assert (later.slots, later.rate_share, later.members) == (12, 1.0, 1)


def _renew_many(path: str, rounds: int) -> None:
    name = f"p{os.getpid()}"
    rng = random.Random(os.getpid())
    held = 0
    bad = 0
    for _ in range(rounds):
        want = rng.randint(0, 10)
        grant = sync_shared(Path(path), name, Ask(ceiling=10, want=want, in_flight=min(want, held)))
        held = grant.slots
        state = read_state(Path(path))  # always whole: written to a temporary file and renamed
        slots, rate = _held(state)
        bad += slots > 10 or rate > 1.0 + 1e-9
    os._exit(0 if bad == 0 else 1)


def test_processes_renewing_at_once_through_the_file_never_hold_more_than_the_ceiling(tmp_path: Path) -> None:
    path = tmp_path / ".limits" / "scope.json"
    assert _forked(4, _renew_many, str(path), 150) == [0, 0, 0, 0]
    assert len(json.loads(path.read_text())["members"]) == 4


def _forked(count: int, target: Any, *args: Any) -> list[int | None]:
    """Exit codes of ``count`` forked processes running ``target(*args)`` at once (as launcher workers or array tasks)."""
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=target, args=args) for _ in range(count)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(180)
    return [worker.exitcode for worker in workers]


def _worker(base_url: str, shared: str, chains: int, length: int, *overrides: str) -> None:
    cfg = compose_config("agent=qwen3_5_9b", f"agent.api_base={base_url}", "agent.max_retries=0",
                         "agent.concurrency=16", *overrides).agent
    client = ClientPool(shared_dir=Path(shared)).client(cfg, role="agent")

    async def chain() -> None:
        for _ in range(length):
            await client.complete(MESSAGES)

    async def conversations() -> list[Any]:
        return await asyncio.wait_for(asyncio.gather(*(chain() for _ in range(chains)), return_exceptions=True), 120)

    results = asyncio.run(conversations())
    os._exit(0 if all(not isinstance(r, BaseException) for r in results) else 1)


def test_processes_on_one_store_stay_under_the_rate_the_provider_states_together(tmp_path: Path) -> None:
    # Two forked processes (as the parallel launcher's workers or two array tasks on one store), 8 conversations of
    # 4 calls each, against one endpoint stating 600 requests/min: each paces its share, so together they draw few
    # 429s (each would draw many pacing to the whole rate alone), and every call is answered.
    with rate_limited_stub(lambda body: text_reply("ok"), requests_per_minute=600, latency_s=0.05) as stub:
        codes = _forked(2, _worker, stub.base_url, str(tmp_path / ".limits"), 8, 4)
    assert codes == [0, 0]
    assert len(stub.accepted) == 64
    assert len(stub.refused) <= 0.05 * (len(stub.accepted) + len(stub.refused)), len(stub.refused)


def test_processes_sharing_a_rate_of_one_a_second_take_turns_instead_of_colliding(tmp_path: Path) -> None:
    # One request a second, burst one (a provider's lowest tier): two processes pacing half of it each from their own
    # buckets send within the same second now and then (7 of 19 requests refused in a run with turns switched off);
    # they take turns handed out through the lease file instead. A refusal or two are left at the start: a
    # process's first request leaves up to a second after its turn (litellm sets its client up).
    with rate_limited_stub(lambda body: text_reply("ok"), requests_per_minute=60) as stub:
        codes = _forked(2, _worker, stub.base_url, str(tmp_path / ".limits"), 6, 1, "agent.requests_per_minute=60")
    assert codes == [0, 0]
    assert len(stub.accepted) == 12
    assert len(stub.refused) <= 2, len(stub.refused)
