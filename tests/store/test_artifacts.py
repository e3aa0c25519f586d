"""The artifact store: atomic writes, reuse, one producer per key across coroutines and processes."""

from __future__ import annotations

import asyncio
import multiprocessing
from pathlib import Path

from pydantic import BaseModel

from skillbench.store import ArtifactStore, content_hash


class Thing(BaseModel):
    value: int


async def test_get_or_create_reuses(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    calls = 0

    async def produce() -> Thing:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        return Thing(value=7)

    results = await asyncio.gather(*(store.get_or_create("things", "ab" * 32, Thing, produce) for _ in range(5)))
    assert calls == 1
    assert [reused for _, reused in results].count(False) == 1
    assert store.get("things", "ab" * 32, Thing) == Thing(value=7)
    assert not list(tmp_path.rglob("*.tmp"))


async def test_rejected_artifacts_are_not_stored(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)

    async def produce() -> Thing:
        return Thing(value=-1)

    _, reused = await store.get_or_create("things", "cd" * 32, Thing, produce, keep=lambda t: t.value >= 0)
    assert not reused
    assert store.get("things", "cd" * 32, Thing) is None


def test_corrupt_artifact_reads_as_missing(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path)
    path = store.path("things", "ef" * 32)
    path.parent.mkdir(parents=True)
    path.write_text('{"value": ')
    assert store.get("things", "ef" * 32, Thing) is None


def _produce_in_process(root: str, counter: str) -> None:
    async def produce() -> Thing:
        with open(counter, "a") as handle:
            handle.write("x")
        await asyncio.sleep(0.3)
        return Thing(value=1)

    asyncio.run(ArtifactStore(root).get_or_create("things", "12" * 32, Thing, produce))


def test_two_processes_produce_once(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_produce_in_process, args=(str(tmp_path / "s"), str(counter))) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert counter.read_text() == "x"


def test_content_hash_is_order_independent() -> None:
    assert content_hash({"a": 1, "b": [1, 2]}) == content_hash({"b": [1, 2], "a": 1})
    assert content_hash({"a": 1}) != content_hash({"a": 2})
