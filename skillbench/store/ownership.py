"""Exclusive output folders: one process owns a run or sweep folder while it writes there.

The owner holds an exclusive ``flock`` on ``<folder>/.skillbench.lock`` for its whole life. The kernel drops the
lock when the process ends however it ends (exit, crash, ``kill -9``), so a stale lock never blocks a rerun; the
file itself only records who held it last (pid, host, start, command). Processes forked by the owner (the
``parallel`` launcher's workers) share its lock, as they write the same sweep; a second run or sweep aimed at
the folder, or at a folder inside it, is refused before it writes anything (:class:`FolderBusy`).

Reusable by any launcher: :func:`claim` before the first write, keep the returned :class:`FolderClaim` alive
until the last, and :func:`live_owner` to ask (``skillbench report`` labels a sweep still running this way).
Whether a folder's *finished* results may be written over is :mod:`skillbench.store.finished`'s question.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shlex
import socket
import sys
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from skillbench.core.errors import SkillbenchError

LOCK_FILE = ".skillbench.lock"


# The claims of this process (a process never contends with itself: an in-process rerun takes its folder back).
_HELD: dict[Path, FolderClaim] = {}


class FolderBusy(SkillbenchError):
    """Another live process owns the folder (or a folder around it)."""


@dataclass(frozen=True)
class Owner:
    """Who holds (or last held) a folder's lock."""

    pid: int
    host: str
    started: str  # ISO 8601, UTC
    kind: str  # "run" or "sweep"
    command: str
    planned: int | None = None  # a sweep's number of jobs, when known (a report mid-sweep says "k of N")

    def describe(self) -> str:
        plan = f" ({self.planned} job(s) planned)" if self.planned else ""
        return f"{self.kind} pid {self.pid} on {self.host}, started {self.started}{plan}"


def _read_owner(lock_path: Path) -> Owner | None:
    try:
        data = json.loads(lock_path.read_text(encoding="utf-8"))
        return Owner(**{name: data[name] for name in Owner.__dataclass_fields__ if name in data})
    except (OSError, ValueError, KeyError, TypeError):
        return None


def lock_held(lock_path: Path) -> bool:
    """Whether some live process (or another open file of this one) holds ``lock_path``'s ``flock`` now
    (probed without taking it for long); False if the file is missing."""
    try:
        fd = os.open(lock_path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def live_owner(folder: str | Path) -> tuple[Path, Owner | None] | None:
    """The folder (``folder`` or one around it) a live process owns now, with its recorded owner; None if free."""
    here = Path(os.path.abspath(folder))
    for candidate in (here, *here.parents):
        lock_path = candidate / LOCK_FILE
        if lock_held(lock_path):
            return candidate, _read_owner(lock_path)
    return None


def busy_message(folder: Path, owned: Path, owner: Owner | None, *, option: str) -> str:
    who = owner.describe() if owner else "another process"
    inside = "" if owned == folder else f" (it is inside {owned})"
    return (f"{folder} is being written by {who}{inside}. Fix: wait for it to end, or choose another folder "
            f"({option}=<new folder>).")


def _command() -> str:
    program = "python -m skillbench" if sys.argv and sys.argv[0].endswith("__main__.py") else sys.argv[0]
    return " ".join([program, *(shlex.quote(arg) for arg in sys.argv[1:])])


class FolderClaim:
    """An owned folder: the lock is held until :meth:`release` or the end of the process."""

    def __init__(self, folder: Path, fd: int, owner: Owner, *, created: bool, previous: bytes | None) -> None:
        self.folder, self._fd, self.owner, self.created = folder, fd, owner, created
        self._previous = previous  # the lock file's record before this claim (None: there was no lock file)

    def release(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1

    def abandon(self) -> None:
        """Release and leave no trace: the lock file as it was (or gone), the folder gone when this claim made it."""
        with contextlib.suppress(OSError):
            if self._previous is None:
                (self.folder / LOCK_FILE).unlink()
            elif self._fd >= 0:
                os.ftruncate(self._fd, 0)
                os.pwrite(self._fd, self._previous, 0)
        self.release()
        if self.created:
            with contextlib.suppress(OSError):
                self.folder.rmdir()


def claim(folder: str | Path, kind: str, *, option: str = "hydra.run.dir", planned: int | None = None) -> FolderClaim:
    """Own ``folder`` (created if missing) or raise :class:`FolderBusy` naming its owner and the fix.

    ``option`` is the setting that chose the folder, named in the fix. A folder inside one a live process owns
    is refused too (a run aimed into a running sweep's folder).
    """
    path = Path(os.path.abspath(folder))
    earlier = _HELD.pop(path, None)
    if earlier is not None:  # re-entrant per process: a run of this process that ended without releasing it
        earlier.release()
    around = live_owner(path.parent) if path.parent != path else None
    if around is not None and not (around[1] is not None and around[1].pid == os.getpid()):
        raise FolderBusy(busy_message(path, around[0], around[1], option=option))
    created = not path.exists()
    path.mkdir(parents=True, exist_ok=True)
    lock_path = path / LOCK_FILE
    previous: bytes | None = None
    with contextlib.suppress(OSError):
        previous = lock_path.read_bytes()
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise FolderBusy(busy_message(path, path, _read_owner(lock_path), option=option)) from None
    owner = Owner(
        pid=os.getpid(), host=socket.gethostname(), started=datetime.now(UTC).isoformat(timespec="seconds"),
        kind=kind, command=_command(), planned=planned,
    )
    record = (json.dumps(asdict(owner), indent=2) + "\n").encode("utf-8")
    # Written in place under the lock (readers only read it to name the owner); truncated first.
    os.ftruncate(fd, 0)
    os.pwrite(fd, record, 0)
    _HELD[path] = claimed = FolderClaim(path, fd, owner, created=created, previous=previous)
    return claimed
