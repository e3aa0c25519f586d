"""Exclusive output folders: one process owns a run or sweep folder while it writes there.

The owner holds an exclusive ``flock`` on ``<folder>/.skillbench.lock`` for its whole life. The kernel drops the
lock when the process ends however it ends (exit, crash, ``kill -9``), so a stale lock never blocks a rerun; the
file itself only records who held it last (pid, host, start, command). Processes forked by the owner (the
``parallel`` launcher's workers) share its lock, as they write the same sweep; a second run or sweep aimed at
the folder, or at a folder inside it, is refused before it writes anything (:class:`FolderBusy`).

A sweep whose jobs run as SLURM jobs on other nodes goes on writing after its launching process has ended (killed,
or returned after submitting them): the owner records their job ids (:meth:`FolderClaim.add_scheduler_jobs`), and
while the scheduler says any of them is queued or running the folder stays owned, whatever the lock says. A pid says
nothing about a process on another host, and a lock on a shared filesystem holds across nodes only where the
filesystem honours it (docs/cluster.md); the scheduler's queue holds wherever the job runs.

Reusable by any launcher: :func:`claim` before the first write, keep the returned :class:`FolderClaim` alive
until the last (:func:`held_claim` finds it again), and :func:`live_owner` to ask (``skillbench report`` labels a sweep still running this way).
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
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

from skillbench.core.errors import SkillbenchError
from skillbench.core.scheduler import live_jobs

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
    scheduler_jobs: tuple[str, ...] = ()  # SLURM jobs (arrays) writing this folder on its behalf, maybe elsewhere
    # Of those, the tasks the scheduler says are queued or running (filled in by live_owner; never written)
    queued: tuple[str, ...] = field(default=(), compare=False)

    def describe(self) -> str:
        plan = f" ({self.planned} job(s) planned)" if self.planned else ""
        if self.queued:
            shown = ", ".join(self.queued[:4]) + (f" and {len(self.queued) - 4} more" if len(self.queued) > 4 else "")
            return (f"SLURM job(s) {', '.join(self.scheduler_jobs)} of the {self.kind} launched by pid {self.pid} on "
                    f"{self.host} at {self.started}{plan}: {len(self.queued)} task(s) still queued or running ({shown})")
        return f"{self.kind} pid {self.pid} on {self.host}, started {self.started}{plan}"

    def is_this_process(self) -> bool:
        """Whether this process is the owner (a pid alone names a process only on its own host)."""
        return self.pid == os.getpid() and self.host == socket.gethostname()

    def record(self) -> bytes:
        fields = {name: value for name, value in asdict(self).items() if name != "queued"}
        return (json.dumps(fields, indent=2) + "\n").encode("utf-8")


def _read_owner(lock_path: Path) -> Owner | None:
    try:
        data = json.loads(lock_path.read_text(encoding="utf-8"))
        owner = Owner(**{name: data[name] for name in Owner.__dataclass_fields__ if name in data and name != "queued"})
        return replace(owner, scheduler_jobs=tuple(str(job) for job in owner.scheduler_jobs))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _scheduled_owner(lock_path: Path) -> Owner | None:
    """The recorded owner when SLURM jobs it launched are still queued or running (its lock may be long released)."""
    owner = _read_owner(lock_path)
    if owner is None or not owner.scheduler_jobs:
        return None
    queued = live_jobs(owner.scheduler_jobs)
    return replace(owner, queued=tuple(queued)) if queued else None


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
    """The folder (``folder`` or one around it) a live process, or a SLURM job launched for it, owns now, with its
    recorded owner; None if free."""
    here = Path(os.path.abspath(folder))
    for candidate in (here, *here.parents):
        lock_path = candidate / LOCK_FILE
        if lock_held(lock_path):
            return candidate, _read_owner(lock_path)
        scheduled = _scheduled_owner(lock_path) if lock_path.exists() else None
        if scheduled is not None:
            return candidate, scheduled
    return None


def busy_message(folder: Path, owned: Path, owner: Owner | None, *, option: str) -> str:
    who = owner.describe() if owner else "another process"
    inside = "" if owned == folder else f" (it is inside {owned})"
    jobs = ",".join(owner.scheduler_jobs) if owner and owner.queued else ""
    wait = f"wait for it to end (squeue --jobs={jobs}) or cancel it (scancel {jobs.replace(',', ' ')})" if jobs else (
        "wait for it to end")
    return f"{folder} is being written by {who}{inside}. Fix: {wait}, or choose another folder ({option}=<new folder>)."


def _command() -> str:
    program = "python -m skillbench" if sys.argv and sys.argv[0].endswith("__main__.py") else sys.argv[0]
    return " ".join([program, *(shlex.quote(arg) for arg in sys.argv[1:])])


class FolderClaim:
    """An owned folder: the lock is held until :meth:`release` or the end of the process."""

    def __init__(self, folder: Path, fd: int, owner: Owner, *, created: bool, previous: bytes | None) -> None:
        self.folder, self._fd, self.owner, self.created = folder, fd, owner, created
        self._previous = previous  # the lock file's record before this claim (None: there was no lock file)

    def add_scheduler_jobs(self, job_ids: list[str]) -> None:
        """Record SLURM jobs that write this folder on the owner's behalf: it stays owned while any is queued or
        running, even after this process has ended (a second launch into a sweep whose array still runs is refused)."""
        if self._fd < 0:
            return
        self.owner = replace(self.owner, scheduler_jobs=tuple(dict.fromkeys([*self.owner.scheduler_jobs, *job_ids])))
        record = self.owner.record()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, record, 0)

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


def held_claim(folder: str | Path) -> FolderClaim | None:
    """This process's claim on ``folder``, if it holds one (a launcher records its scheduler jobs on it)."""
    return _HELD.get(Path(os.path.abspath(folder)))


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
    if around is not None and not (around[1] is not None and around[1].is_this_process()):
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
    scheduled = _scheduled_owner(lock_path)  # its owner has ended, but the SLURM jobs it launched still write here
    if scheduled is not None and not scheduled.is_this_process():
        os.close(fd)
        raise FolderBusy(busy_message(path, path, scheduled, option=option))
    owner = Owner(
        pid=os.getpid(), host=socket.gethostname(), started=datetime.now(UTC).isoformat(timespec="seconds"),
        kind=kind, command=_command(), planned=planned,
    )
    # Written in place under the lock (readers only read it to name the owner); truncated first.
    os.ftruncate(fd, 0)
    os.pwrite(fd, owner.record(), 0)
    _HELD[path] = claimed = FolderClaim(path, fd, owner, created=created, previous=previous)
    return claimed
