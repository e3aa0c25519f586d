"""litellm logs every call in the background (its LoggingWorker); a job waits for its own share at its end."""

from __future__ import annotations

import asyncio

import pytest

from skillbench.models.litellm_setup import flush_background_logging, get_litellm


def test_flush_waits_for_the_logging_litellm_queued() -> None:
    get_litellm()
    from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

    finished: list[int] = []

    async def slow_log(number: int) -> None:  # stands in for litellm's success handler of one call
        await asyncio.sleep(0.05)
        finished.append(number)

    async def job() -> int:
        for number in range(5):
            GLOBAL_LOGGING_WORKER.ensure_initialized_and_enqueue(slow_log(number))
        queued = GLOBAL_LOGGING_WORKER.pending_count
        await flush_background_logging()
        return queued

    queued = asyncio.run(job())
    assert queued > 0
    assert sorted(finished) == [0, 1, 2, 3, 4]
    assert GLOBAL_LOGGING_WORKER.pending_count == 0


def test_flush_without_litellm_imported_is_a_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    import skillbench.models.litellm_setup as setup

    monkeypatch.setattr(setup, "_LITELLM", None)
    asyncio.run(flush_background_logging())  # imports nothing, waits for nothing
