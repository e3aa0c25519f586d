"""A benchmark's version: a hash of its content, so two runs on the same version ran the same benchmark.

The generator writes it into ``benchmark.yaml``; anyone can recompute it from the files on disk.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

MANIFEST = "benchmark.yaml"  # holds the version, so it is not part of it


def content_version(files: Mapping[str, str]) -> str:
    """First 16 hex digits of sha256 over each file but the manifest: relative path, NUL, text, NUL, in path order.

    The NUL after the text keeps the encoding unambiguous (YAML text never holds a NUL).
    """
    digest = hashlib.sha256()
    for relative in sorted(files):
        if relative != MANIFEST:
            digest.update(relative.encode() + b"\0" + files[relative].encode() + b"\0")
    return digest.hexdigest()[:16]
