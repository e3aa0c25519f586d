"""Files written whole or not at all: a temporary file beside the target, then a rename.

In the core layer so that every layer (the store, the engine, the models' rate-limiter state) writes the same way.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from pathlib import Path


def temp_beside(path: Path) -> tuple[int, str]:
    """A new temporary file next to ``path`` (same folder, so the rename is atomic), open for writing. Created with
    mode 0666 less the umask, as ``Path.write_text`` creates a file: mkstemp's 0600 would leave every atomically
    written output (summary.json, lab.json, artifacts) readable by its owner only, unlike the files beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), str(tmp)
        except FileExistsError:  # another writer drew the same name: draw again
            continue


def write_json_atomic(path: Path, data: object) -> None:
    """Write JSON to ``path`` via a temporary file and rename, so the file is whole or absent."""
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False, default=str)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file and rename: whole or absent; no temporary file is left behind
    when the write fails (a full disk)."""
    fd, tmp = temp_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
