"""Before a run: compose every job of a sweep, check it can run (preflight), estimate its size and cost."""

from skillbench.plan.estimate import JobEstimate, RunEstimate, estimate_run
from skillbench.plan.preflight import missing_keys, preflight_problems, probe_endpoints
from skillbench.plan.sweep import PlannedJob, plan_jobs

__all__ = [
    "JobEstimate",
    "PlannedJob",
    "RunEstimate",
    "estimate_run",
    "missing_keys",
    "plan_jobs",
    "preflight_problems",
    "probe_endpoints",
]
