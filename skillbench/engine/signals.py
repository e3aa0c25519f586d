"""A job's event loop under SIGTERM: cancelled as Ctrl-C cancels it, then :class:`~skillbench.core.faults.Terminated`.

asyncio.run turns Ctrl-C into a cancellation of the main task (every conversation's ``finally`` runs, the rows
written so far stay) and then a KeyboardInterrupt; SIGTERM gets exactly that path here, so the app keeps the
finished rows and writes its marker the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Coroutine
from typing import Any, TypeVar

from skillbench.core.faults import Terminated

T = TypeVar("T")


def run_until_signal(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``; SIGTERM cancels it and raises :class:`Terminated` (a KeyboardInterrupt)."""
    terminated = False

    async def main() -> T:
        nonlocal terminated
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None

        def on_sigterm() -> None:
            nonlocal terminated
            if not terminated:
                terminated = True
                task.cancel()

        previous = signal.getsignal(signal.SIGTERM)
        try:
            loop.add_signal_handler(signal.SIGTERM, on_sigterm)
            installed = True
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread: the Python handler applies
            installed = False
        try:
            return await coro
        finally:
            if installed:
                loop.remove_signal_handler(signal.SIGTERM)
                with contextlib.suppress(TypeError, ValueError):
                    signal.signal(signal.SIGTERM, previous)

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if terminated:
            raise Terminated() from None
        raise
