"""How processes share one limit scope: a lease in a small JSON file per scope (``<store>/.limits/<scope>.json``).

Each process keeps its limiter in memory (models/limiter.py) and, while it has calls in flight or waiting, renews a
lease every :data:`SYNC_S` (at once after a 429 or a newly stated limit), off the event loop: under an
exclusive ``flock`` of ``<scope>.lock`` it reads the file, records what it wants, takes its share and writes the
file back (temporary file + rename). :func:`sync_shared` is that transaction; :func:`share` its rule, a pure
function over the file's state:

- **Slots** (the scope's ``concurrency``): max-min fair over what each live process wants (calls in flight or
  waiting), the rest to those that want any. A process may start calls up to its share; its entry holds
  ``max(in flight, share)``, so the entries never add up to more than the ceiling, and a process whose share
  shrank gives slots back as its calls end.
- **Rate** (requests and tokens per minute, configured or stated by the provider): a fraction of it, by the
  same wants; the fractions on file never add up to more than 1. Each process paces its own fraction; where the
  whole rate is at most a couple of requests a second (a provider's burst of one or two), the processes take turns
  instead: the turns of one clock grid are handed out under the lock, one or two ahead to a process with calls
  waiting (:attr:`Grant.turns`), so two never send within one turn of each other.
- **Pause and stated limits**: the latest ``pause_until`` (a 429's ``Retry-After``) and limits any process
  learned from headers are kept in the file, so every process follows them from its next renewal.

An entry not renewed for :data:`LEASE_S` is dropped (its process ended, was killed, or its node died); a process
stops admitting on a share it could not renew for :data:`OWN_LEASE_S` (shorter, so a stalled process never uses a
share another has already taken; clocks of cluster nodes must agree to within about a second).

Where file locks are not honoured across hosts (NFS mounted ``nolock``/``local_lock=all``, Lustre ``localflock``,
BeeGFS without ``tuneUseGlobalFileLocks``) two nodes may update the file at once and one update is lost: each
process re-enters itself at its next renewal, so the shares are right again within :data:`SYNC_S`, but meanwhile
the processes together may exceed the rate; the provider's 429s and the shared pause then hold them.
Where locking fails outright (Lustre ``noflock``: ``ENOSYS``) the transaction goes on unlocked, with one warning.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import math
import os
import socket
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillbench.core.files import write_text_atomic

log = logging.getLogger(__name__)

LIMITS_DIR = ".limits"  # in the store: one lease file per limit scope (and its .lock)
FORMAT = 2  # the lease file's format (older limiter files are ignored and replaced)
# Renewal period while a process has calls in flight or waiting, alone or not: a process alone learns of a newcomer
# only at its next renewal and paces the whole rate until then, so this bounds the overlap (a newcomer starts with an
# empty bucket, so the overlap is at most SYNC_S of the rate).
SYNC_S = 0.25
OWN_LEASE_S = 2.0  # a share not renewed for this long is not used any more by its own process
LEASE_S = 5.0  # an entry not renewed for this long is dropped by the others
_NO_LOCKS = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL)
_warned: set[str] = set()


@dataclass(frozen=True)
class Ask:
    """What one process tells the others at a renewal."""

    ceiling: int  # the scope's concurrency as this process's configs set it
    want: int  # calls in flight or waiting (0: idle, its share is given back)
    in_flight: int
    learned_rpm: float | None = None  # a limit the provider stated since the last renewal
    learned_tpm: float | None = None
    pause_until: float = 0.0  # epoch seconds: the provider asked every caller to wait until then
    turns: int = 0  # turns it wants reserved (see Grant.turns), on a grid of turn_rate turns a second
    turn_rate: float = 0.0
    last_sent: float = 0.0  # epoch seconds: its latest request (no turn is reserved within a turn of it)


@dataclass(frozen=True)
class Grant:
    """What one process may use until its next renewal."""

    slots: int
    rate_share: float  # of the scope's requests and tokens per minute
    members: int  # live processes sharing the scope, this one included
    requests_per_minute: float | None = None  # stated by the provider to any of them
    tokens_per_minute: float | None = None
    pause_until: float = 0.0  # epoch seconds
    # Turns reserved for this process (numbers of the grid's turns, floor(epoch × turn_rate)): where a shared rate is
    # too low for the provider's burst to absorb two processes sending at once, a process sends only in its own
    # turns, each given to one process under the lock (models/limiter.py).
    turns: tuple[int, ...] = ()


def alone(ceiling: int) -> Grant:
    """The grant of a process that shares with nobody."""
    return Grant(slots=ceiling, rate_share=1.0, members=1)


def fair_slots(total: int, wants: Mapping[str, int]) -> dict[str, int]:
    """Max-min fair split of ``total`` slots over ``wants``; what is left goes to those that want any (in name
    order for the remainder), so a process alone gets every slot."""
    given = dict.fromkeys(wants, 0)
    left = total
    ordered = sorted(wants, key=lambda name: (wants[name], name))
    for index, name in enumerate(ordered):
        portion = min(wants[name], left // (len(ordered) - index))
        given[name] = portion
        left -= portion
    wanting = sorted(name for name, want in wants.items() if want > 0)
    for index, name in enumerate(wanting):
        extra = left // (len(wanting) - index)
        given[name] += extra
        left -= extra
    return given


def _entries(state: dict[str, Any], now: float) -> dict[str, dict[str, Any]]:
    members = state.get("members")
    if not isinstance(members, dict):
        return {}
    return {name: entry for name, entry in members.items()
            if isinstance(entry, dict) and now - float(entry.get("seen", 0.0)) < LEASE_S}


def share(state: dict[str, Any], member: str, ask: Ask, now: float) -> Grant:
    """The sharing rule: ``member``'s grant, with ``state`` (the file's content) updated in place."""
    others = {name: entry for name, entry in _entries(state, now).items() if name != member}
    state["format"] = FORMAT
    state["pause_until"] = max(float(state.get("pause_until") or 0.0), ask.pause_until)
    for field, learned in (("learned_rpm", ask.learned_rpm), ("learned_tpm", ask.learned_tpm)):
        if learned:
            state[field] = learned
    wants = {name: int(entry.get("want", 0)) for name, entry in others.items()} | {member: ask.want}
    free = ask.ceiling - sum(int(entry.get("slots", 0)) for entry in others.values())
    slots = max(0, min(fair_slots(ask.ceiling, wants)[member], free))
    wanted = sum(wants.values())
    free_rate = 1.0 - sum(float(entry.get("rate_share", 0.0)) for entry in others.values())
    rate_share = max(0.0, min(ask.want / wanted if wanted else 0.0, free_rate))
    state["members"] = {**others, member: {
        "seen": now, "want": ask.want, "in_flight": ask.in_flight, "slots": max(ask.in_flight, slots),
        "rate_share": round(rate_share, 6),
    }}
    return Grant(slots=slots, rate_share=rate_share, members=len(others) + 1,
                 requests_per_minute=state.get("learned_rpm"), tokens_per_minute=state.get("learned_tpm"),
                 pause_until=state["pause_until"], turns=_reserve_turns(state, ask, now))


def _reserve_turns(state: dict[str, Any], ask: Ask, now: float) -> tuple[int, ...]:
    """The next free turns of the grid for ``ask``: after every turn already given out, after the current one, and
    a whole turn after the latest request any process reported."""
    state["last_sent"] = max(float(state.get("last_sent") or 0.0), ask.last_sent)
    if not ask.turns or ask.turn_rate <= 0:
        return ()
    first = max(int(state.get("next_turn") or 0), math.floor(now * ask.turn_rate) + 1,
                math.floor(state["last_sent"] * ask.turn_rate) + 2)
    state["next_turn"] = first + ask.turns
    return tuple(range(first, first + ask.turns))


def member_name(nonce: str) -> str:
    """This process's name in the file: host, pid (read now: a forked worker is a member of its own), and a
    nonce telling apart two limiters of one process."""
    return f"{socket.gethostname()}:{os.getpid()}:{nonce}"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    fd = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            if exc.errno not in _NO_LOCKS:
                raise
            if str(path.parent) not in _warned:
                _warned.add(str(path.parent))
                log.warning("file locks are not supported in %s (%s): processes sharing rate limits through it update "
                            "their shares without a lock (a lost update is repaired at the next renewal)",
                            path.parent, exc)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def read_state(path: Path) -> dict[str, Any]:
    """The lease file's content ({} when absent, unreadable or of another format)."""
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) and state.get("format") == FORMAT else {}


def sync_shared(path: Path, member: str, ask: Ask, now: float | None = None) -> Grant:
    """One renewal: under the scope's lock, read its file, apply :func:`share` for ``member``, write it back.
    Safe to call from any number of processes and hosts at once (where the filesystem honours ``flock``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        state = read_state(path)
        grant = share(state, member, ask, time.time() if now is None else now)
        write_text_atomic(path, json.dumps(state))
    return grant


def stated_limits(path: Path) -> tuple[float | None, float | None]:
    """The requests and tokens per minute a provider stated to an earlier run of the scope (None: never stated)."""
    state = read_state(path)
    return state.get("learned_rpm"), state.get("learned_tpm")
