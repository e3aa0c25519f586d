"""The artifact store: atomic writes, reuse, one producer per key across coroutines and processes."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest
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


async def test_durable_write_runs_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow fsync (a loaded or network disk) must not stall other conversations on the loop."""
    import skillbench.store.artifacts as artifacts

    real_fsync = artifacts.os.fsync

    def slow_fsync(fd: int) -> None:
        time.sleep(0.3)
        real_fsync(fd)

    monkeypatch.setattr(artifacts.os, "fsync", slow_fsync)
    store = ArtifactStore(tmp_path)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    async def produce() -> Thing:
        return Thing(value=3)

    task = asyncio.create_task(ticker())
    await store.get_or_create("things", "aa" * 32, Thing, produce)
    task.cancel()
    assert ticks >= 10  # the loop kept running during the 0.3 s write
    assert store.get("things", "aa" * 32, Thing) == Thing(value=3)


def _race(root: str, log: str, keys: int) -> None:
    async def main() -> None:
        async def produce_for(key: str) -> Thing:
            with open(log, "a") as handle:  # O_APPEND: one short line per write, never interleaved
                handle.write(key + "\n")
            await asyncio.sleep(0.01)
            return Thing(value=int(key[:4], 16))

        store = ArtifactStore(root)
        names = [content_hash({"k": i}) for i in range(keys)]
        await asyncio.gather(*(store.get_or_create("things", k, Thing, lambda k=k: produce_for(k)) for k in names))

    asyncio.run(main())


def test_processes_racing_for_the_same_keys_produce_each_once(tmp_path: Path) -> None:
    log, keys = tmp_path / "produced", 40
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_race, args=(str(tmp_path / "s"), str(log), keys)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    produced = log.read_text().split()
    assert len(produced) == len(set(produced)) == keys
    store = ArtifactStore(tmp_path / "s")
    assert all(store.get("things", k, Thing) is not None for k in produced)
    assert not list((tmp_path / "s").rglob("*.tmp"))


def _write_forever(root: str) -> None:
    async def main() -> None:
        store = ArtifactStore(root)
        big = Thing(value=1)
        for i in range(100_000):
            await store.put_async("things", content_hash({"i": i}), big)

    asyncio.run(main())


def test_a_killed_writer_leaves_no_artifact_that_reads_as_valid_but_is_half(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    worker = context.Process(target=_write_forever, args=(str(tmp_path),))
    worker.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(list(tmp_path.rglob("*.json"))) < 20:
        time.sleep(0.05)
    os.kill(worker.pid, signal.SIGKILL)
    worker.join(10)
    written = list(tmp_path.rglob("*.json"))
    assert written
    store = ArtifactStore(tmp_path)
    # Every artifact under its final name is whole; a kill leaves at most a hidden *.tmp behind.
    assert all(store.get("things", p.stem, Thing) == Thing(value=1) for p in written)


def test_atomic_writes_get_the_mode_of_any_other_output(tmp_path: Path) -> None:
    """0666 less the umask, as Path.write_text gives (mkstemp's 0600 made summary.json and lab.json owner-only)."""
    from skillbench.store import write_json_atomic

    old = os.umask(0o022)
    try:
        write_json_atomic(tmp_path / "summary.json", {"a": 1})
        ArtifactStore(tmp_path / "store").put("things", "cd" * 32, Thing(value=1))
        (tmp_path / "report.md").write_text("plain")
    finally:
        os.umask(old)
    modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.rglob("*") if p.is_file()}
    assert modes == {"summary.json": 0o644, f"{'cd' * 32}.json": 0o644, "report.md": 0o644}
