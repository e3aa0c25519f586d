"""Faults from outside the code: termination signals and storage that cannot be written.

SIGTERM (what ``kill``, SLURM on preemption or time-out, and container runtimes send) is made to behave like Ctrl-C:
it raises :class:`Terminated`, a ``KeyboardInterrupt``, wherever Ctrl-C would, so every path that keeps finished
work on Ctrl-C keeps it on SIGTERM too; only the words and the exit code (143 = 128 + 15) differ.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import time
from types import FrameType

EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as Ctrl-C raises KeyboardInterrupt. A launcher may stop a job the same way on another signal
    (a subclass naming it: SLURM's advance notice of a time limit is SIGUSR2)."""

    signal_name = "SIGTERM"  # recorded in the job's interrupted.json
    reason = "terminated"  # ditto
    words = "terminated (SIGTERM)"  # how the lines that say the job stopped put it


def exit_code(exc: BaseException) -> int:
    return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED


def stop_word(exc: BaseException) -> str:
    return exc.words if isinstance(exc, Terminated) else "interrupted"


def child_pids() -> list[int]:
    """This process's direct children (Linux ``/proc``; elsewhere none are known)."""
    me, children = os.getpid(), []
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            fields = _stat(int(entry))
            if fields is not None and int(fields[1]) == me:
                children.append(int(entry))
    return children


def _stat(pid: int) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (state, ppid, ...); None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None


def wait_for_children(timeout_s: float = 120.0) -> None:
    """Until every child has ended (each is keeping its finished work), at most ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass  # reap the ones that ended
        alive = [pid for pid in child_pids() if not _zombie(pid)]
        if not alive:
            return
        time.sleep(0.1)


def _zombie(pid: int) -> bool:
    fields = _stat(pid)
    return fields is None or fields[0] == b"Z"


def install_sigterm(*, forward: bool = False, signum: int = signal.SIGTERM, error: type[Terminated] = Terminated) -> None:
    """From now on SIGTERM raises :class:`Terminated` in the main thread (once; a repeat while it is being
    handled is ignored, so the cleanup finishes). ``forward``: first pass it on to this process's children (a
    sweep's workers or submitit's job controllers), so each keeps its own finished work. ``signum`` and ``error``:
    another signal that stops a job the same way (a launcher's: SLURM's SIGUSR2), raising a subclass naming it."""
    raised = False

    def on_signal(received: int, frame: FrameType | None) -> None:
        nonlocal raised
        if forward:
            for pid in child_pids():
                with contextlib.suppress(OSError):
                    os.kill(pid, received)
        if not raised:
            raised = True
            raise error()

    with contextlib.suppress(ValueError):  # not the main thread: its owner decides
        signal.signal(signum, on_signal)


# Storage faults: the disk or the folder, never the data.
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG})


def _full(folder: str) -> bool:
    """Whether the file system holding ``folder`` (or its nearest existing parent) has no room left."""
    path = os.path.abspath(folder)
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    try:
        stats = os.statvfs(path)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < 64 * 1024


def storage_problem(exc: BaseException, candidates: tuple[str, ...] = ()) -> str | None:
    """One line for a write that failed because of the storage (full, read-only, not permitted); None otherwise.
    ``candidates``: the folders the job writes (run folder, store), named when the error itself names no file."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:  # the OSError may be the cause of what was raised
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS:
            where = os.path.dirname(exc.filename) if isinstance(exc.filename, str) else None
            if where is None and candidates:
                named = [c for c in candidates if exc.errno != errno.ENOSPC or _full(c)] or list(candidates)
                where = " and ".join(dict.fromkeys(named))
            place = f" in {where}" if where else ""
            return (f"cannot write{place}: {exc.strerror or exc}. Fix: free space there or make it writable, or point "
                    "store.root / hydra.run.dir / hydra.sweep.dir at another disk; then rerun the same command "
                    "(finished work is kept and reused)")
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return None
