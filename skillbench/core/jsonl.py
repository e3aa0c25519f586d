"""JSON Lines: one JSON value per line, split where JSON itself can hold no raw line break."""

from __future__ import annotations

from typing import AnyStr


def json_lines(data: AnyStr) -> list[AnyStr]:
    """The lines of a JSON Lines text (str or bytes), split at "\\n" only, without a last empty one.

    Not ``str.splitlines``: it also splits at U+2028, U+2029, U+0085 and other separators, which JSON
    strings may hold raw (``json.dumps(ensure_ascii=False)`` and pydantic write them so), so one row
    whose text holds one would read as two broken lines. A "\\r" left by a CRLF file is JSON whitespace.
    """
    lines = data.split(b"\n" if isinstance(data, bytes) else "\n")  # type: ignore[arg-type]
    if lines and not lines[-1]:
        lines.pop()
    return lines
