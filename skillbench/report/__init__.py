"""Reports from job folders: the paper's tables, judge agreement, plots, HTML, rescoring and diffs.

Public API (see docs/reports.md)::

    from skillbench.report import load_results, make_report, diff_runs
    df = load_results("outputs/multirun/2026-01-01_00-00-00")   # one row per scenario x agent x judge
"""

from skillbench.report.build import build_report
from skillbench.report.diff import RunDiff, diff_runs
from skillbench.report.frame import load_results
from skillbench.report.jobs import Job, ReportError, load_jobs
from skillbench.report.model import Report
from skillbench.report.write import make_report, write_report

__all__ = [
    "Job",
    "Report",
    "ReportError",
    "RunDiff",
    "build_report",
    "diff_runs",
    "load_jobs",
    "load_results",
    "make_report",
    "write_report",
]
