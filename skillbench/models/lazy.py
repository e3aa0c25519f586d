"""A client built on first use, so a job whose artifacts are all cached never imports litellm."""

from __future__ import annotations

from typing import Any

from skillbench.config.schema import ModelConfig
from skillbench.models.client import ClientPool, ModelClient


class LazyClient:
    """Stands in for ``pool.client(cfg)``; the real :class:`ModelClient` (and litellm) comes at the first call.

    ``cfg`` is answered without building anything; every other attribute builds the client once.
    """

    def __init__(self, pool: ClientPool, cfg: ModelConfig, role: str | None = None, seed: int | None = None) -> None:
        self.cfg = cfg
        self.role = role
        self.seed_override = seed  # a repeated trial's seed (None: the pool's)
        self._pool = pool
        self._client: ModelClient | None = None

    @property
    def built(self) -> bool:
        return self._client is not None

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes not set in __init__ (complete, limiter, ...).
        if name.startswith("__") or name in {"_pool", "_client", "seed_override"}:
            raise AttributeError(name)
        if self._client is None:
            self._client = self._pool.client(self.cfg, self.role, self.seed_override)
        return getattr(self._client, name)
