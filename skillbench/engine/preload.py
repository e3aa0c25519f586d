"""Warm a process whose launcher forks its workers: import once, here, what every job imports.

A fresh worker pays a few seconds of imports (litellm alone is most of them) before its first job; forked
from a parent that has them, it starts at once. The ``hydra/launcher=parallel`` preset names this function as
its launcher's ``preload`` (hydra_plugins/skillbench_launchers/fork_launcher.py).
"""

from __future__ import annotations

import importlib


def preload_job_imports() -> None:
    """The engine, the MCP SDK behind the mock tools, and litellm with its settings. No provider plugin:
    a worker loads only the plugins its own job's models name (a job of real models never imports the
    simulated models)."""
    for module in (
        "skillbench.engine.job",  # rollout, evaluation, prompts, store
        "skillbench.tools.session",  # the MCP client and server
    ):
        importlib.import_module(module)
    from skillbench.models.litellm_setup import get_litellm

    get_litellm()
