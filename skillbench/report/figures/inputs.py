"""What a report says about its inputs: how many jobs, rows and errors it read (``counts``), and the caveats a
reader must see before the numbers (``notes``): runs still going, damaged lines, simulated models, cells left out."""

from __future__ import annotations

from skillbench.report.jobs import running_lines
from skillbench.report.model import Cell
from skillbench.report.rows import ReportRows


def input_counts(rows: ReportRows, cells: list[Cell]) -> dict[str, int]:
    frame, jobs = rows.frame, rows.jobs
    return {
        "jobs": len(jobs),
        "jobs_finished": sum(j.finished for j in jobs),
        "jobs_unfinished": sum(j.status == "unfinished" for j in jobs),
        "jobs_unreadable": sum(j.status == "unreadable" for j in jobs),
        "cells_missing": sum(c.status == "missing" for c in cells),
        "rows": len(frame),
        "scored": int(frame["passed"].notna().sum()),
        "judge_errors": int((frame["status"] == "judge_error").sum()),
        "infra_errors": int((frame["status"] == "infra_error").sum()),
        "duplicates_dropped": rows.duplicates,
        "lines_damaged": sum(len(j.damaged) for j in jobs),
        "jobs_running": sum(j.running is not None for j in jobs),
    }


def input_notes(rows: ReportRows, cells: list[Cell]) -> list[str]:
    """Caveats the reader must see."""
    notes: list[str] = [f"STILL RUNNING: {line}" for line in running_lines(rows.jobs)]
    damaged = sum(len(j.damaged) for j in rows.jobs)
    if damaged:
        notes.append(f"DAMAGED INPUT: {damaged} line(s) of results.jsonl are not result rows and were skipped "
                     "(each named below); every other row is used")
    if rows.simulated:
        notes.append(
            "SIMULATED models present: offline, deterministic stand-ins; their numbers are not real model results."
        )
    for cell in cells:
        if cell.status in {"missing", "unfinished", "unreadable"}:
            notes.append(f"{cell.status} cell {cell.agent} × {cell.judge}: {cell.note}")
        elif cell.judge_errors or cell.infra_errors:
            notes.append(
                f"{cell.agent} × {cell.judge}: {cell.judge_errors} judge error(s) and {cell.infra_errors} infra error(s) "
                "excluded from the pass rate (not counted as failures)"
            )
    if rows.duplicates:
        notes.append(
            f"{rows.duplicates} duplicate row(s) of the same cell and scenario in several jobs: kept the latest finished job's"
        )
    for job in rows.jobs:
        notes.extend(job.problems)
    return notes
