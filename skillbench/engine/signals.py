"""A job's event loop under SIGTERM: cancelled as Ctrl-C cancels it, then :class:`~skillbench.core.faults.Terminated`.

asyncio.run turns Ctrl-C into a cancellation of the main task (every conversation's ``finally`` runs, the rows
written so far stay) and then a KeyboardInterrupt; SIGTERM gets exactly that path here, so the app keeps the
finished rows and writes its marker the same way.

SIGTERM ends a job within :data:`SIGTERM_GRACE_S` whatever guest code is doing: the handler is a Python-level one
(it runs between bytecodes in the main thread, also while an agent program busy-loops or sleeps without yielding
to the event loop), it asks the loop to cancel the job, and a watchdog thread ends the process with 143 — after the
caller's ``last_words`` (its marker and line) — if the loop has not ended by then. Rows are written whole as they
finish, so nothing finished is lost either way.

The caller's ``on_signal`` (the job's marker) runs as soon as SIGTERM arrives, before any unwinding: a scheduler
sends SIGKILL a fixed time after SIGTERM (SLURM's ``KillWait``, 30 s by default, a few seconds on some clusters),
possibly before the loop or the watchdog ends, and the marker must already be on disk then.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Coroutine
from types import FrameType
from typing import Any, TypeVar

from skillbench.core.faults import EXIT_TERMINATED, Terminated

T = TypeVar("T")

SIGTERM_GRACE_S = 5.0  # how long the job may take to stop after SIGTERM before the process ends regardless


def run_until_signal(coro: Coroutine[Any, Any, T], *, on_signal: Callable[[], None] | None = None,
                     last_words: Callable[[], None] | None = None) -> T:
    """``asyncio.run(coro)``; SIGTERM cancels it and raises :class:`Terminated` (a KeyboardInterrupt). ``on_signal``
    runs (once, on a thread of its own) as soon as SIGTERM arrives; ``last_words`` runs (once) before a forced exit,
    when guest code keeps the loop from stopping within the grace period."""
    terminated = False
    finished = threading.Event()

    async def main() -> T:
        nonlocal terminated
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None

        def on_sigterm(signum: int, frame: FrameType | None) -> None:
            nonlocal terminated
            if terminated:
                return
            terminated = True
            loop.call_soon_threadsafe(task.cancel)
            threading.Thread(target=_exit_unless, args=(finished, on_signal, last_words), name="skillbench-sigterm",
                             daemon=True).start()

        try:
            previous = signal.signal(signal.SIGTERM, on_sigterm)
        except ValueError:  # not the main thread: its owner decides
            previous = None
        try:
            return await coro
        finally:
            if previous is not None:
                with contextlib.suppress(TypeError, ValueError):
                    signal.signal(signal.SIGTERM, previous)

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        if terminated:
            raise Terminated() from None
        raise
    finally:
        finished.set()


def _exit_unless(finished: threading.Event, on_signal: Callable[[], None] | None,
                 last_words: Callable[[], None] | None) -> None:
    """The watchdog: ``on_signal`` at once; if the job's loop has not ended :data:`SIGTERM_GRACE_S` after SIGTERM,
    ``last_words`` and the end of the process."""
    if on_signal is not None:
        with contextlib.suppress(Exception):
            on_signal()
    if finished.wait(SIGTERM_GRACE_S):
        return
    if last_words is not None:
        with contextlib.suppress(Exception):
            last_words()
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os._exit(EXIT_TERMINATED)
