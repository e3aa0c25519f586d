"""How the cyclic garbage collector runs through phases that allocate heavily and keep most of it alive.

Reference counting frees almost everything these phases drop; the cyclic collector mostly walks live
objects and finds nothing. Measured: at the default threshold (a young collection every 700 allocations)
it took a fifth of a job's CPU at 128 concurrent conversations, and half of a paper-scale report's loading.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Young collections every this many allocations instead of 700 (benchmarks/throughput.py measured 10,000 to
# 50,000 alike). Cyclic garbage then waits a little longer: at most this many container objects.
JOB_GEN0_THRESHOLD = 50_000


@contextmanager
def paused_gc() -> Iterator[None]:
    """No cyclic garbage collection inside: for building many long-lived objects at once.

    Loading 42,500 result rows allocates ~500,000 objects that all stay alive; each allocation
    threshold crossed starts a collection that walks the growing heap and frees nothing (about half
    of the loading CPU at paper scale). Reference counting still frees everything as usual; the
    collector runs again when the block ends (as it was: a caller that disabled it keeps it off).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def rare_collections(gen0_threshold: int = JOB_GEN0_THRESHOLD) -> Iterator[None]:
    """Fewer, cheaper collections inside: what exists on entry (imports, configs, the benchmark) is frozen out
    of every collection, and young collections wait ``gen0_threshold`` allocations. For a job's many
    concurrent conversations; the settings are restored on exit."""
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(gen0_threshold, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def quick_exit() -> None:
    """At interpreter exit, skip the final collection over every object still alive (every module of litellm,
    pydantic, pandas...): measured 2.5 s of a command's exit, finding nothing to free. Exit handlers still run,
    modules are still torn down and files closed as usual; only cycles left at exit are not collected."""
    atexit.unregister(gc.freeze)  # once, however many entry points ask
    atexit.register(gc.freeze)
