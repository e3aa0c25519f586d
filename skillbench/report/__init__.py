"""Reports from job folders: the paper's tables, judge agreement, plots, HTML, rescoring and diffs.

Public API (see docs/reports.md)::

    from skillbench.report import load_results, make_report, diff_runs
    df = load_results("outputs/multirun/2026-01-01_00-00-00")   # one row per scenario x agent x judge
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillbench.report.build import build_report
    from skillbench.report.diff import RunDiff, diff_runs
    from skillbench.report.frame import load_results
    from skillbench.report.jobs import Job, ReportError, load_jobs
    from skillbench.report.model import Report
    from skillbench.report.write import make_report, write_report

# Resolved on first use (PEP 562): importing skillbench.report.callback at every sweep's start, or the
# CLI's --help, must not pay for pandas, scipy and matplotlib.
_LAZY = {
    "build_report": "build",
    "RunDiff": "diff",
    "diff_runs": "diff",
    "load_results": "frame",
    "Job": "jobs",
    "ReportError": "jobs",
    "load_jobs": "jobs",
    "Report": "model",
    "make_report": "write",
    "write_report": "write",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'skillbench.report' has no attribute {name!r}")
    return getattr(importlib.import_module(f"skillbench.report.{_LAZY[name]}"), name)


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
