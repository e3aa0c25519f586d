"""Content-addressed artifact store shared by every job: atomic writes, one producer per key across processes."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from skillbench.core.files import temp_beside
from skillbench.store.ownership import lock_held

M = TypeVar("M", bound=BaseModel)

# Durable writes (fsync: milliseconds each) run here, off the event loop, so no conversation waits on
# the disk. A pool of its own, so slow disks never starve the default executor litellm uses.
_WRITER = ThreadPoolExecutor(max_workers=4, thread_name_prefix="skillbench-store-writer")


def _write_durable(path: Path, data: bytes) -> None:
    """Temp file in the same folder → fsync → rename: ``path`` is absent or whole, even after a kill."""
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


# Every artifact carries the SHA-256 of its own JSON as a last member, ``,"sha256":"<hex>"}``: the file stays one JSON
# object, and checking it needs no parse (the digest is of the bytes before that suffix, closed by ``}``).
_SEAL = b',"sha256":"'
_SEALED_TAIL = len(_SEAL) + 64 + 2  # the seal, the hex digest, '"}'
log = logging.getLogger("skillbench.store")


class ArtifactCorrupt(OSError):
    """A stored artifact whose content does not match its checksum (edited by hand, or damaged)."""


def seal(data: bytes) -> bytes:
    """``data`` (one JSON object) with its checksum as the object's last member."""
    digest = hashlib.sha256(data).hexdigest().encode("ascii")
    if data.endswith(b"}") and data.rstrip() != b"{}":
        return data[:-1] + _SEAL + digest + b'"}'
    return data  # not an object with members: stored as it is (never the case for a pydantic artifact)


def unseal(data: bytes) -> tuple[bytes, bool | None]:
    """The artifact's own bytes and whether they match the checksum (None: stored before checksums existed)."""
    if len(data) > _SEALED_TAIL and data.endswith(b'"}') and data[-_SEALED_TAIL:-66] == _SEAL:
        body = data[:-_SEALED_TAIL] + b"}"
        return body, hashlib.sha256(body).hexdigest().encode("ascii") == data[-66:-2]
    return data, None


class ArtifactStore:
    """Artifacts live at ``<root>/<kind>/<key[:2]>/<key>.json``.

    Writes go to a temporary file in the same folder and are renamed into place, so a reader never
    sees half an artifact. ``get_or_create`` holds an exclusive ``flock`` on ``<key>.lock`` while it
    produces, so two processes (or two coroutines) wanting the same artifact produce it once.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._root = str(self.root)
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        self.corrupt: list[str] = []  # artifacts this store found tampered with (set aside and produced again)

    def location(self, kind: str, key: str) -> str:
        """Where the artifact lives, as a string (a report reads 8,500 of them: pathlib costs more than the read)."""
        return os.path.join(self._root, kind, key[:2], f"{key}.json")

    def path(self, kind: str, key: str) -> Path:
        return Path(self.location(kind, key))

    def read(self, kind: str, key: str) -> bytes:
        """The artifact's bytes, checked against their checksum; raises OSError (FileNotFoundError when there is
        none, :class:`ArtifactCorrupt` when the content does not match its checksum)."""
        location = self.location(kind, key)
        with open(location, "rb") as handle:
            data, intact = unseal(handle.read())
        if intact is False:
            raise ArtifactCorrupt(f"{location}: content does not match its checksum (edited or damaged)")
        return data

    def get(self, kind: str, key: str, model: type[M]) -> M | None:
        """The stored artifact; None when there is none, when it fails its checksum (moved aside to ``*.corrupt``,
        never deleted, and named in the log: the caller produces it again) or was written by an incompatible version."""
        try:
            data = self.read(kind, key)
        except FileNotFoundError:
            return None
        except ArtifactCorrupt as exc:
            self._set_aside(kind, key, exc)
            return None
        try:
            return model.model_validate_json(data)
        except ValidationError:
            return None  # written by an incompatible version: produce it again

    def _set_aside(self, kind: str, key: str, exc: ArtifactCorrupt) -> None:
        path = self.path(kind, key)
        aside = path.with_name(f"{path.name}.corrupt")
        with contextlib.suppress(OSError):
            os.replace(path, aside)
        self.corrupt.append(str(aside))
        log.warning("%s; kept as %s and produced again", exc, aside.name)

    def put(self, kind: str, key: str, artifact: BaseModel) -> Path:
        """Blocking write, for code outside an event loop (``put_async`` inside one)."""
        path = self.path(kind, key)
        _write_durable(path, seal(artifact.model_dump_json().encode("utf-8")))
        return path

    async def put_async(self, kind: str, key: str, artifact: BaseModel) -> Path:
        """The same durable write as ``put``, done on the writer thread while the loop runs on."""
        path = self.path(kind, key)
        data = seal(artifact.model_dump_json().encode("utf-8"))  # serialised here: the artifact may be mutated later
        future = _WRITER.submit(_write_durable, path, data)
        try:
            await asyncio.shield(asyncio.wrap_future(future))
        except asyncio.CancelledError:
            # Finish the write before the caller's lock is released, so no other producer starts on
            # this key while the file is still being written (rare: blocks the loop only on cancel).
            future.result()
            raise
        return path

    def lock_path(self, kind: str, key: str) -> Path:
        """The file a producer of ``key`` holds an exclusive ``flock`` on (next to the artifact)."""
        return self.path(kind, key).with_suffix(".lock")

    def being_produced(self, kind: str, key: str) -> bool:
        """Whether another producer (another process, or another task of this one) holds ``key``'s lock
        now, with no artifact stored yet. A hint for scheduling only: the answer may change at once."""
        return not self.path(kind, key).exists() and lock_held(self.lock_path(kind, key))

    @contextlib.asynccontextmanager
    async def _exclusive(self, kind: str, key: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault((kind, key), asyncio.Lock())
        async with lock:
            lock_path = self.lock_path(kind, key)
            try:
                fd = os.open(lock_path, os.O_CREAT | os.O_RDWR, 0o644)
            except FileNotFoundError:  # the key's first artifact in its folder
                lock_path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(lock_path, os.O_CREAT | os.O_RDWR, 0o644)
            try:
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        await asyncio.sleep(0.05)  # another process is producing it; poll without blocking the loop
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
                self._locks.pop((kind, key), None)

    async def get_or_create(
        self, kind: str, key: str, model: type[M], produce: Callable[[], Awaitable[M]], *,
        keep: Callable[[M], bool] = lambda _: True, reuse: Callable[[M], bool] = lambda _: True,
    ) -> tuple[M, bool]:
        """The stored artifact, or ``produce()``'s result stored under ``key``. Returns (artifact, reused).

        ``keep`` decides whether a fresh artifact is stored (infrastructure failures are not, so a
        re-run retries them); ``reuse`` whether a stored one is final (a stored judge error is kept as
        evidence but produced again).
        """
        found = self.get(kind, key, model)
        if found is not None and reuse(found):
            return found, True
        async with self._exclusive(kind, key):
            found = self.get(kind, key, model)
            if found is not None and reuse(found):
                return found, True
            artifact = await produce()
            if keep(artifact):
                # Still under the lock: another process sees the key only once the file is whole.
                await self.put_async(kind, key, artifact)
            return artifact, False


