"""A job: the benchmark through rollout, checks, judge and pass rule, into results.jsonl and summary.json."""

from skillbench.engine.job import rollout_key, run_job, run_job_async
from skillbench.engine.results import CONFIG_FILE, RESULTS_FILE, SUMMARY_FILE, JobSummary, ResultRow
from skillbench.engine.summary import summarize

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
