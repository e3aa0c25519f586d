"""Which model calls share one rate limit: the limit scope of a model config.

A provider limits a key (or an organisation, a project, a server), not a litellm model string, so the limiter's
unit is the scope the provider counts in:

- ``group``: ``<role>.rate_limit_group`` names it; every model config giving the same name shares one limit,
  whatever its endpoint (several models behind one gateway key, a provider's model family that shares a pool).
- ``server``: a self-hosted OpenAI-compatible server (an ``api_base`` reached through a self-hosted route such as
  ``hosted_vllm/`` or ``openai/``): every model it serves shares its capacity, so one limit per server and key.
- ``model``: a hosted API (OpenAI, Anthropic, Gemini, Mistral, Groq, ...) limits each model separately per
  organisation or project (the key stands for it): one limit per model string, endpoint and key.

The key enters only as a short hash: never written or printed.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Literal

from skillbench.config.schema import ModelConfig

# litellm routes that reach a server of one's own (vLLM, llama.cpp, SGLang, TGI, Ollama, LM Studio): its capacity
# is the limit, shared by every model it serves.
SERVER_ROUTES = ("hosted_vllm/", "vllm/", "openai/", "custom_openai/", "text-completion-openai/", "ollama/",
                 "ollama_chat/", "lm_studio/", "llamafile/")

ScopeKind = Literal["group", "server", "model"]


@dataclass(frozen=True)
class LimitScope:
    """One rate limit: its stable id (the name of its state file), what kind of scope it is, and where it is."""

    ident: str
    kind: ScopeKind
    where: str  # the group's name, the server's api_base, or the model string (+ api_base)


def _digest(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def key_fingerprint(cfg: ModelConfig) -> str:
    """A short hash of the model's key (limits are per key at providers); 'nokey' when none is set."""
    key = os.environ.get(cfg.api_key_env) if cfg.api_key_env else None
    return hashlib.sha256(key.encode()).hexdigest()[:12] if key else "nokey"


def limit_scope(cfg: ModelConfig) -> LimitScope:
    """The scope ``cfg``'s calls are limited in (see the module docstring)."""
    if cfg.rate_limit_group:
        return LimitScope(_digest("group", cfg.rate_limit_group), "group", cfg.rate_limit_group)
    key = key_fingerprint(cfg)
    if cfg.api_base and cfg.model.startswith(SERVER_ROUTES):
        base = cfg.api_base.rstrip("/")
        return LimitScope(_digest("server", base, key), "server", base)
    where = cfg.model + (f" @ {cfg.api_base}" if cfg.api_base else "")
    return LimitScope(_digest("model", cfg.model, cfg.api_base or "", key), "model", where)
