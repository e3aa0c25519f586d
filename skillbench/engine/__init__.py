"""A job: the benchmark through rollout, checks, judge and pass rule, into results.jsonl and summary.json.

The records (``ResultRow``, ``JobSummary``) import nothing heavy; the runner (litellm, MCP) loads
only when first used, so readers of job folders (reports) start fast.
"""

from typing import Any

from skillbench.engine.results import CONFIG_FILE, RESULTS_FILE, SUMMARY_FILE, JobSummary, ResultRow
from skillbench.engine.summary import summarize

_RUNNER = {"rollout_key", "run_job", "run_job_async"}

__all__ = [
    "CONFIG_FILE",
    "RESULTS_FILE",
    "SUMMARY_FILE",
    "JobSummary",
    "ResultRow",
    "rollout_key",
    "run_job",
    "run_job_async",
    "summarize",
]


def __getattr__(name: str) -> Any:
    if name in _RUNNER:  # the runner loads litellm and the MCP SDK: only when first used
        from skillbench.engine import job

        return getattr(job, name)
    raise AttributeError(name)
