"""How a job ended, read from its folder: finished, failed (nothing scored, too many infra errors), stopped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

INTERRUPTED_FILE = "interrupted.json"  # Ctrl-C: finished rows kept, rerun resumes
STOPPED_FILE = "stopped.json"  # run.budget_usd reached: finished rows kept, rerun with a higher budget resumes


def _read(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def job_failure(summary: dict[str, Any], max_infra_error_share: float) -> str | None:
    """Why a finished job is not a result (None: it is one)."""
    scenarios, infra = summary.get("scenarios") or 0, summary.get("infra_errors") or 0
    if scenarios and infra / scenarios > max_infra_error_share:
        return (f"{infra} of {scenarios} conversations hit infrastructure errors (more than "
                f"{max_infra_error_share:.0%}, run.max_infra_error_share)")
    if not summary.get("scored"):
        return "no conversation was scored"
    return None


def sweep_spent_usd(sweep_dir: Path, exclude: Path | None = None) -> float:
    """Dollars the sweep's other jobs spent, finished or stopped (for a sweep-wide budget)."""
    spent = 0.0
    if not sweep_dir.is_dir():
        return spent
    for job in sweep_dir.iterdir():
        if job == exclude or not job.is_dir():
            continue
        summary = _read(job / "summary.json")
        stopped = _read(job / STOPPED_FILE)
        spent += float((summary or {}).get("cost_usd") or (stopped or {}).get("spent_usd") or 0.0)
    return spent


def sweep_outcome(sweep_dir: Path, max_infra_error_share: float) -> tuple[str, bool]:
    """One line for the sweep's end, and whether it failed."""
    finished = failed = stopped = crashed = 0
    first: str | None = None
    spent = 0.0
    for job in sorted(p for p in sweep_dir.iterdir() if p.is_dir() and (p / ".hydra").exists()):
        summary = _read(job / "summary.json")
        if summary is not None:
            spent += float(summary.get("cost_usd") or 0.0)
            why = job_failure(summary, max_infra_error_share)
            failed += why is not None
            finished += why is None
            first = first or (f"{job.name}: {why}" if why else None)
        elif (job / STOPPED_FILE).exists() or (job / INTERRUPTED_FILE).exists():
            stopped += 1
        else:
            crashed += 1
            error = _read(job / "job_error.json") or {}
            first = first or f"{job.name}: {error.get('error', 'did not finish')}"
    total = finished + failed + stopped + crashed
    line = (f"sweep: {total} job(s): {finished} finished, {failed} failed, {crashed} crashed, {stopped} stopped; "
            f"${spent:.4f} spent -> {sweep_dir}" + (f"; first problem: {first}" if first else ""))
    return line, bool(failed or crashed or stopped)
