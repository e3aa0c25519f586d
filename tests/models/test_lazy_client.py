"""LazyClient: ``cfg`` without building; the real client (and litellm) only at first use, then reused."""

from __future__ import annotations

from skillbench.config.schema import AgentConfig
from skillbench.models.client import ClientPool, ModelClient
from skillbench.models.lazy import LazyClient


def test_lazy_client_builds_once_on_first_use() -> None:
    cfg = AgentConfig(name="sim_careful", model="skillbench_sim/sim_careful", simulated=True)
    pool = ClientPool(seed=0)
    lazy = LazyClient(pool, cfg)
    assert lazy.cfg is cfg and not lazy.built
    complete = lazy.complete
    assert lazy.built and isinstance(lazy._client, ModelClient)
    assert lazy.complete.__self__ is complete.__self__  # the same client, not a new one per access
    assert lazy.limiter is pool.client(cfg).limiter  # shares the endpoint's concurrency limit
