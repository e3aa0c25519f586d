"""The boundary around guest code: code that runs inside the engine but is not skillbench's own.

Guests are the agent program under test, a domain's code tools and plug-in rule checks and tables. Whatever a
guest raises — ``BaseException`` included (``SystemExit`` from a library's ``sys.exit``, a ``KeyboardInterrupt`` or
``GeneratorExit`` it raised itself) — becomes that guest's outcome, described by a :class:`GuestFault`; it never
ends the process or passes for the user's Ctrl-C.

Synchronous guest code (code tools) runs on a daemon worker thread under a time limit (:func:`call_sync`,
:func:`call_async`): a tool that sleeps or loops never blocks the event loop or the other conversations, a real
Ctrl-C still reaches the main thread, and a worker stuck past its limit never keeps the process from exiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import signal
import threading
import time
import traceback
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

MAX_TRACEBACK_CHARS = 16_000  # a traceback file stays readable; the innermost frames are the ones kept


@dataclass(frozen=True)
class GuestFault:
    """What guest code raised: the exception's type and message, where (the innermost frame), and the traceback."""

    kind: str
    message: str
    where: str
    traceback: str

    def line(self) -> str:
        """``RuntimeError: index not loaded (agents/mine.py:41)``: how rows and one-line errors name it."""
        text = f"{self.kind}: {self.message}" if self.message else self.kind
        return f"{text} ({self.where})" if self.where else text


def fault_of(exc: BaseException) -> GuestFault:
    """The :class:`GuestFault` of an exception raised by guest code (with its traceback, if it has one)."""
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ is not None else []
    where = f"{_short(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    text = "".join(traceback.format_exception(exc))
    if len(text) > MAX_TRACEBACK_CHARS:
        text = "…\n" + text[-MAX_TRACEBACK_CHARS:]
    return GuestFault(kind=type(exc).__name__, message=str(exc)[:500], where=where, traceback=text)


def _short(filename: str) -> str:
    """The last two parts of a path (``tools/loans.py``): enough to find it, no home folder in rows."""
    parts = filename.replace(os.sep, "/").rsplit("/", 2)
    return "/".join(parts[-2:])


class GuestTimeout(Exception):
    """Guest code did not return within its limit (its worker thread is left to finish on its own)."""

    def __init__(self, limit_s: float) -> None:
        super().__init__(f"did not return within {limit_s:g}s")
        self.limit_s = limit_s


class GuestRaised(Exception):
    """Guest code raised; ``fault`` describes it and ``original`` is what it raised (an expected exception type,
    such as a tool's refusal, is re-raised as itself instead: see ``passthrough``)."""

    def __init__(self, fault: GuestFault, original: BaseException) -> None:
        super().__init__(fault.line())
        self.fault = fault
        self.original = original


class _Workers:
    """Daemon worker threads fed from one queue; a new worker starts whenever none is idle, so a guest stuck past
    its limit only ever holds its own thread. Daemon threads never keep the interpreter from exiting."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            if self._idle:
                self._idle -= 1
            else:
                threading.Thread(target=self._work, name="skillbench-guest", daemon=True).start()
        self._jobs.put(job)

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            job()
            with self._lock:
                self._idle += 1


_WORKERS = _Workers()


def _start(function: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any],
           passthrough: tuple[type[BaseException], ...]) -> Future[T]:
    """Run ``function`` on a worker; its future holds the result, a ``passthrough`` exception as itself, or a
    :class:`GuestRaised` for anything else it raised (``BaseException`` included: nothing escapes the thread)."""
    future: Future[T] = Future()

    def job() -> None:
        if not future.set_running_or_notify_cancel():  # given up on before it started
            return
        try:
            result = function(*args, **kwargs)
        except passthrough as exc:
            future.set_exception(exc)
        except BaseException as exc:  # the guest's own, whatever it is: SystemExit, KeyboardInterrupt, ...
            future.set_exception(GuestRaised(fault_of(exc), exc))
        else:
            future.set_result(result)

    _WORKERS.submit(job)
    return future


def call_sync(function: Callable[..., T], *args: Any, limit_s: float,
              passthrough: tuple[type[BaseException], ...] = (), **kwargs: Any) -> T:
    """``function(*args, **kwargs)`` on a worker thread, waited for at most ``limit_s``: raises :class:`GuestTimeout`,
    :class:`GuestRaised`, or a ``passthrough`` exception as itself. The caller's thread stays interruptible."""
    future = _start(function, args, kwargs, passthrough)
    try:
        return future.result(timeout=limit_s)
    except TimeoutError:
        raise GuestTimeout(limit_s) from None


async def call_async(function: Callable[..., T], *args: Any, limit_s: float,
                     passthrough: tuple[type[BaseException], ...] = (), **kwargs: Any) -> T:
    """:func:`call_sync` for the event loop: the loop keeps serving every other conversation while it runs."""
    future = _start(function, args, kwargs, passthrough)
    try:
        return await asyncio.wait_for(asyncio.wrap_future(future), limit_s)
    except TimeoutError:
        raise GuestTimeout(limit_s) from None


class GuestBlocked(BaseException):
    """Raised inside guest code that has kept the event loop from running for longer than its limit (a synchronous
    sleep, a busy loop): a ``BaseException``, so an ``except Exception`` in the guest does not swallow it."""


_ENTRY_CODES: set[Any] = set()  # code objects of the engine's wrappers around a guest's coroutine


def guest_entry(function: Callable[..., T]) -> Callable[..., T]:
    """Mark the engine's wrapper around a guest's coroutine (the turn loop's): code running below it on the main
    thread is that guest's, and :func:`watch_the_loop` may interrupt it there."""
    _ENTRY_CODES.add(function.__code__)
    return function


@contextlib.asynccontextmanager
async def watch_the_loop(limit_s: float) -> AsyncIterator[None]:
    """While inside, a guest that blocks the event loop longer than ``limit_s`` gets :class:`GuestBlocked` raised
    where it is: a watchdog thread sees the loop's heartbeat stop and signals the main thread (SIGUSR2), whose
    handler raises only when the interrupted code runs under a :func:`guest_entry` wrapper (skillbench's own slow
    code is never interrupted). At most three tries per stall: a guest that swallows them is left to SIGTERM.
    Jobs sharing one loop (``hydra/launcher=inflight``) share one watch, at the smallest of their limits."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_kill"):
        yield
        return
    watch = _LoopWatch.current or _LoopWatch.start()
    watch.limits.append(limit_s)
    try:
        yield
    finally:
        watch.limits.remove(limit_s)
        if not watch.limits:
            await watch.stop()


class _LoopWatch:
    """The one watch of the running loop: its heartbeat task, its watchdog thread and the SIGUSR2 handler."""

    current: _LoopWatch | None = None

    def __init__(self) -> None:
        self.limits: list[float] = []
        self.beat = time.monotonic()
        self.stopped = threading.Event()
        self.previous = signal.signal(signal.SIGUSR2, self._on_signal)
        self.heartbeat = asyncio.ensure_future(self._beat())
        threading.Thread(target=self._watch, args=(threading.main_thread().ident,), name="skillbench-loop-watch",
                         daemon=True).start()

    @classmethod
    def start(cls) -> _LoopWatch:
        cls.current = cls()
        return cls.current

    def limit_s(self) -> float:
        return min(self.limits) if self.limits else float("inf")

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        while frame is not None:
            if frame.f_code in _ENTRY_CODES:
                raise GuestBlocked(f"blocked the event loop for more than {self.limit_s():g}s")
            frame = frame.f_back

    async def _beat(self) -> None:
        while True:
            self.beat = time.monotonic()
            await asyncio.sleep(0.25)

    def _watch(self, main: int) -> None:
        tries = 0
        while not self.stopped.wait(0.25):
            limit, stalled = self.limit_s(), time.monotonic() - self.beat
            if stalled <= limit:
                tries = 0
            elif tries < 3 and stalled > limit * (tries + 1):
                tries += 1
                with contextlib.suppress(OSError):
                    signal.pthread_kill(main, signal.SIGUSR2)

    async def stop(self) -> None:
        self.stopped.set()
        self.heartbeat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.heartbeat
        signal.signal(signal.SIGUSR2, self.previous)
        _LoopWatch.current = None
