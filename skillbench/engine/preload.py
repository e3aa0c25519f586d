"""Warm a process whose launcher forks its workers: import once, here, what every job imports.

A fresh worker pays a few seconds of imports (litellm alone is most of them) before its first job; forked
from a parent that has them, it starts at once. The ``hydra/launcher=parallel`` preset names this function as
its launcher's ``preload`` (hydra_plugins/skillbench_plugins/fork_launcher.py).
"""

from __future__ import annotations

import contextlib
import importlib

from skillbench.core.collector import paused_gc
from skillbench.models.litellm_setup import get_litellm

# What litellm imports only on its first call (a job's first call in each worker): its tokenizer and the proxy's
# file-id helpers that its chat transformation consults, 0.5 s between them (python -X importtime on a job).
LITELLM_FIRST_CALL_IMPORTS = (
    "litellm.litellm_core_utils.default_encoding",
    "litellm.proxy.openai_files_endpoints.common_utils",
)


def preload_job_imports() -> None:
    """The engine, the MCP SDK behind the mock tools, and litellm with its settings. No provider plugin:
    a worker loads only the plugins its own job's models name (a job of real models never imports the
    simulated models)."""
    with paused_gc():  # long-lived objects only (see get_litellm)
        for module in (
            "skillbench.engine.job",  # rollout, evaluation, prompts, store
            "skillbench.tools.session",  # the MCP client and server
        ):
            importlib.import_module(module)
        get_litellm()
        for module in LITELLM_FIRST_CALL_IMPORTS:
            with contextlib.suppress(ImportError):  # a warm-up only: another litellm may have moved them
                importlib.import_module(module)
