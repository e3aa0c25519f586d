"""How a job ended, read from its folder: finished, failed (nothing scored, too many infra errors), stopped."""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from pathlib import Path
from typing import Any, NamedTuple

from skillbench.core.money import usd

INTERRUPTED_FILE = "interrupted.json"  # Ctrl-C: finished rows kept, rerun resumes
UNSCORED_EXIT = 5  # a finished run with rows that have no verdict: its rerun fills them in
BENCHMARK_ERROR_EXIT = 6  # the benchmark's own code failed on some rows: fix it (its version changes), then rerun
STOPPED_FILE = "stopped.json"  # run.budget_usd reached: finished rows kept, rerun with a higher budget resumes


def _read(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def job_failure(summary: dict[str, Any], max_infra_error_share: float) -> str | None:
    """Why a finished job is not a result (None: it is one). Rows a provider kept throttling past their patience
    are not the run's failure: they are unscored rows a rerun fills in (:func:`job_unscored`, exit 5)."""
    throttled: dict[str, int] = summary.get("throttled_errors") or {}
    scenarios = summary.get("scenarios") or 0
    infra = (summary.get("infra_errors") or 0) - throttled.get("infra", 0)
    judged = (summary.get("judge_errors") or 0) - throttled.get("judge", 0)
    if scenarios and infra / scenarios > max_infra_error_share:
        return (f"{infra} of {scenarios} conversations hit infrastructure errors (more than "
                f"{max_infra_error_share:.0%}, run.max_infra_error_share)")
    # The judge gave nothing usable (rows a hard check decided included; rows the provider throttled aside).
    if judged and judged + infra + sum(throttled.values()) >= scenarios:
        return judge_failure(summary)
    if not summary.get("scored"):
        if throttled and not judged:
            return None
        return "no conversation was scored"
    return None


# What to change first, by the reason the judge's replies gave no verdict (docs/judges.md).
_JUDGE_FIXES: dict[str, str] = {
    "cut_at_max_tokens": "give the judge room: raise judge.params.max_tokens{cap}",
    "refused": "the judge's server rejected its output (its message is in results.jsonl, judge_attempts): use a judge "
               "model or server template that returns plain JSON",
    "empty": "check the judge endpoint (it answered blank)",
}
_FORMAT_FIX = ("use a judge model that returns the rubric's JSON (docs/judges.md 'How a judge reply is read'), "
               "or raise judge.max_parse_retries")


def judge_failure(summary: dict[str, Any]) -> str:
    """One line for a job whose every scored row is a judge error: which judge, why, and how to retry."""
    reasons: dict[str, int] = summary.get("judge_error_reasons") or {}
    judged = summary.get("judge_errors") or 0
    why = ", ".join(f"{reason.replace('_', ' ')} {count}" for reason, count in
                    sorted(reasons.items(), key=lambda item: -item[1])) or "see results.jsonl"
    main = max(reasons, key=lambda reason: reasons[reason]) if reasons else ""
    cap = (summary.get("max_tokens") or {}).get("judge")
    fix = _JUDGE_FIXES.get(main, _FORMAT_FIX).format(cap=f" (now {cap})" if cap else "")
    return (f"judge {summary.get('judge', '?')} ({summary.get('judge_model', '?')}) gave no usable verdict on {judged} of "
            f"{summary.get('scenarios', judged)} conversation(s) ({why}); its raw replies are in results.jsonl "
            f"(judge_attempts) and the report. Fix: {fix}; then rerun the same command: the conversations are reused "
            f"and only the judging is redone")


def job_benchmark_errors(summary: dict[str, Any], job_dir: Path) -> str | None:
    """One line for a finished job whose benchmark code failed on some rows (None when it did not): how many, the
    first (domain, tool or check, exception, scenario), where its traceback is, and the fix."""
    count = summary.get("benchmark_errors") or 0
    if not count:
        return None
    first, traceback_file = "", None
    with contextlib.suppress(OSError):
        for line in (job_dir / "results.jsonl").open(encoding="utf-8"):
            row = json.loads(line)
            if row.get("benchmark_error"):
                first, traceback_file = row["benchmark_error"], row.get("traceback_file")
                break
    where = f"; traceback: {job_dir / traceback_file}" if traceback_file else ""
    return (f"{count} of {summary.get('scenarios', count)} conversations hit benchmark errors: the benchmark's own "
            f"code failed (never scored, never the agent's failure); first: {first}{where}. Fix that code (its "
            "benchmark version changes, so those conversations are redone), then rerun the same command")


def job_unscored(summary: dict[str, Any]) -> str | None:
    """How many rows of a finished job have no verdict, and why (None when every row was scored)."""
    scenarios = summary.get("scenarios") or 0
    infra = summary.get("infra_errors") or 0
    judge = (summary.get("judge_errors") or 0) - (summary.get("judge_errors_decided") or 0)
    if not infra and not judge:
        return None
    patience = sum((summary.get("throttled_errors") or {}).values())
    why = [f"{infra} infrastructure error(s)" if infra else "", f"{judge} judge error(s)" if judge else "",
           f"{patience} of them still rate-limited after their rate_limit_patience_s" if patience else ""]
    limits = summary.get("rate_limits") or []
    throttled = sum(e.get("rate_limited") or 0 for e in limits)
    waited = sum(e.get("waited_s") or 0.0 for e in limits)
    return (f"{infra + judge} of {scenarios} conversations unscored ({', '.join(w for w in why if w)}"
            + (f"; rate-limited: {throttled} requests refused, {waited:.0f}s waited for the providers' limits"
               if throttled or waited >= 1 else "") + ")")


def resume_command() -> str:
    """The command that was run; rerunning it redoes only unfinished work (the store keeps the rest)."""
    return "python -m skillbench " + " ".join(shlex.quote(arg) for arg in sys.argv[1:])


def continue_hint(*, budget: bool) -> str:
    """How a stopped run or sweep continues: the same command (with a higher budget when the budget stopped it)."""
    more = " with a higher run.budget_usd" if budget else ""
    return f"Continue (finished work is reused, not redone) by rerunning{more}: {resume_command()}"


class SweepOutcome(NamedTuple):
    """How a sweep ended: the summary line, its exit code, and whether the budget stopped it."""

    line: str
    exit_code: int
    budget_stopped: bool


def sweep_outcome(sweep_dir: Path, max_infra_error_share: float, *, planned: int = 0,
                  budget_usd: float | None = None) -> SweepOutcome:
    """One line for the sweep's end. ``planned``: the sweep's size (jobs with no folder did not start, because an
    earlier job reached the budget). Exit 1 when a job failed or crashed, else 3 when the budget stopped the sweep."""
    finished = failed = stopped = crashed = incomplete = broken = 0
    first: str | None = None
    spent = 0.0
    any_stop = False  # a job the budget stopped (its stopped.json), whatever else its folder holds
    jobs = sorted(p for p in sweep_dir.iterdir() if p.is_dir() and (p / ".hydra").exists())
    for job in jobs:
        summary = _read(job / "summary.json")
        stop = _read(job / STOPPED_FILE)
        any_stop |= stop is not None
        if summary is not None:
            spent += float(summary.get("cost_usd") or 0.0)
            benchmark = job_benchmark_errors(summary, job)  # the benchmark's own fault is named first
            why = job_failure(summary, max_infra_error_share) if benchmark is None else None
            failed += why is not None
            finished += why is None
            broken += benchmark is not None
            first = first or (f"{job.name}: {benchmark}" if benchmark else None)
            unscored = job_unscored(summary) if why is None and benchmark is None else None
            incomplete += unscored is not None
            first = first or (f"{job.name}: {unscored}" if unscored else None)
            first = first or (f"{job.name}: {why}" if why else None)
        elif stop is not None or (job / INTERRUPTED_FILE).exists():
            stopped += 1
            spent += float((stop or {}).get("spent_usd") or 0.0)  # what it spent counts too
        else:
            crashed += 1
            error = _read(job / "job_error.json") or {}
            first = first or f"{job.name}: {error.get('error', 'did not finish')}"
    not_started = max(0, planned - len(jobs)) if budget_usd is not None else 0  # only the budget skips a job
    budget_stopped = budget_usd is not None and (not_started > 0 or any_stop)
    total = len(jobs) + not_started
    of_budget = f" of the {usd(budget_usd)} budget" if budget_usd is not None else ""
    line = (f"sweep: {total} job(s): {finished} finished, {failed} failed, {crashed} crashed, {stopped} stopped"
            + (f", {not_started} not started (budget spent)" if not_started else "")
            + (f" ({broken} finished with benchmark errors: the benchmark's own code failed)" if broken else "")
            + (f" ({incomplete} finished with unscored rows: rerun the same command to fill them in)" if incomplete else "")
            + f"; {usd(spent)} spent{of_budget} -> {sweep_dir}" + (f"; first problem: {first}" if first else ""))
    code = (1 if failed or crashed else 3 if budget_stopped else 1 if stopped else BENCHMARK_ERROR_EXIT if broken
            else UNSCORED_EXIT if incomplete else 0)
    return SweepOutcome(line, code, budget_stopped)
