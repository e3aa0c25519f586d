"""Artifact keys: the hash of exactly the inputs that determine an artifact (never secrets)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

from skillbench.config.schema import MockConfig, ModelConfig

# Before the mock config became one class per response mode, every mode's dump had these two fields.
# Filling them in keeps the rollout keys (and so the stored rollouts) of earlier runs valid.
_FLAT_MOCK_FIELDS: dict[str, Any] = {"llm": None, "static_responses": {}}

# Fields of a model config that change what the model answers. Endpoints, keys, concurrency,
# timeouts and retries do not, so changing them reuses stored artifacts.
_BEHAVIOURAL_FIELDS = ("model", "params", "prompt_template")


def content_hash(obj: Any) -> str:
    """SHA-256 of JSON-able content with sorted keys."""
    if isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")
    blob = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def model_identity(cfg: ModelConfig) -> dict[str, Any]:
    return {name: getattr(cfg, name) for name in _BEHAVIOURAL_FIELDS}


def mock_identity(cfg: MockConfig) -> dict[str, Any]:
    """Every mock setting but its name, as the rollout key hashes it."""
    return {**_FLAT_MOCK_FIELDS, **cfg.model_dump(mode="json", exclude={"name"})}
