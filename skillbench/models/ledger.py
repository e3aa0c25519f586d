"""What answered a unit of work and which replies were cut, gathered from every model call inside it.

The engine opens a ledger around one conversation (or one judgement); every :class:`ModelClient` call
inside it — agent, user simulator, the mock's model — notes the server-reported model id and fingerprint
and whether the reply was cut at ``max_tokens``. A context variable carries it, so the turn loop and the
tool servers need not pass it along (tasks started inside inherit it).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

from skillbench.core.records import ServedBy


@dataclass
class CallLedger:
    """Role → distinct servers that answered (in order seen), and role → replies cut at max_tokens."""

    served: dict[str, list[ServedBy]] = field(default_factory=dict)
    cut: Counter[str] = field(default_factory=Counter)

    def note(self, role: str, server: ServedBy | None, *, cut: bool) -> None:
        if server is not None:
            seen = self.served.setdefault(role, [])
            if server not in seen:
                seen.append(server)
        if cut:
            self.cut[role] += 1


_CURRENT: ContextVar[CallLedger | None] = ContextVar("skillbench_call_ledger", default=None)


@contextlib.contextmanager
def recording() -> Iterator[CallLedger]:
    """A fresh ledger for the calls made inside the block (nested blocks each get their own)."""
    ledger = CallLedger()
    token = _CURRENT.set(ledger)
    try:
        yield ledger
    finally:
        _CURRENT.reset(token)


def note_reply(role: str | None, server: ServedBy | None, *, cut: bool) -> None:
    """Called by the client for every answered request; a no-op outside a ledger or for an unlabelled client."""
    ledger = _CURRENT.get()
    if ledger is not None and role is not None:
        ledger.note(role, server, cut=cut)
