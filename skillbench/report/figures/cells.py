"""Cells: one per agent × judge, with its coverage (scenarios, verdicts, errors), pass rate and bootstrap CI."""

from __future__ import annotations

import itertools
from typing import NamedTuple, TypedDict

import numpy as np

from skillbench.report import resampling
from skillbench.report.jobs import Job
from skillbench.report.model import Cell, CellStatus
from skillbench.report.rows import ReportRows


class CellFigures(NamedTuple):
    """Every cell, agents alphabetical then judges; per scored cell, the bootstrap draws of its pass rate and its
    passes and scored rows per scenario (the clusters of its interval, and of the mean over judges')."""

    cells: list[Cell]
    draws: dict[tuple[str, str], np.ndarray]
    counts: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]


class _CellTallies(TypedDict):
    """Per agent × judge cell (in ``cell_figures`` order): counts of the frame's rows."""

    scenarios: np.ndarray
    scored: np.ndarray
    passed: np.ndarray
    judge_errors: np.ndarray
    infra_errors: np.ndarray
    model_errors: np.ndarray
    redone: np.ndarray


def cell_figures(rows: ReportRows) -> CellFigures:
    frame = rows.frame
    keys = list(itertools.product(rows.agents_seen, rows.judges))
    # Each row's cell and scenario as integer codes: every count below is one bincount over them.
    cell_of = {key: i for i, key in enumerate(keys)}
    labels = zip(frame["agent_label"].tolist(), frame["judge_label"].tolist(), strict=True)
    code = np.array([cell_of[key] for key in labels], dtype=int)
    position = rows.scenario_codes
    known = frame["passed"].notna().to_numpy(dtype=bool)
    passed = frame["passed"].fillna(False).to_numpy(dtype=bool)

    def per_cell(selected: np.ndarray | None = None) -> np.ndarray:
        weights = None if selected is None else selected.astype(float)
        return np.bincount(code, weights=weights, minlength=len(keys))

    tallies = _CellTallies(
        scenarios=per_cell(),
        scored=per_cell(known),
        passed=per_cell(passed),
        judge_errors=per_cell((frame["status"] == "judge_error").to_numpy(dtype=bool)),
        infra_errors=per_cell((frame["status"] == "infra_error").to_numpy(dtype=bool)),
        model_errors=per_cell((frame["termination"] == "model_error").to_numpy(dtype=bool)),
        redone=per_cell((frame["abandoned_attempts"].fillna(0) > 0).to_numpy(dtype=bool)),
    )
    cells = [_cell(rows, agent, judge, tallies, i) for i, (agent, judge) in enumerate(keys)]
    errors = frame[frame["status"] == "judge_error"]
    if not errors.empty:  # why each cell's judge gave no verdict (the judge_errors table)
        reasons = errors["judge_error_reason"].fillna("other")
        for (agent, judge, reason), count in reasons.groupby(
            [errors["agent_label"], errors["judge_label"], reasons]
        ).size().items():
            cells[cell_of[(agent, judge)]].judge_error_reasons[str(reason)] = int(count)
    # Every cell's interval and bootstrap at once (one pass per cell was most of the report's CPU): per scenario and
    # scored cell, how many verdicts are known and how many of them pass.
    scored = [i for i, cell in enumerate(cells) if cell.pass_rate is not None]
    column = np.full(len(keys), -1)
    column[scored] = np.arange(len(scored))
    take = known & (column[code] >= 0)
    at = (position[take], column[code[take]])
    numerators, denominators = np.zeros((2, len(rows.scenario_ids), len(scored)))
    np.add.at(denominators, at, 1.0)
    np.add.at(numerators, at, passed[take].astype(float))
    lows, highs = resampling.share_intervals(numerators, denominators, rows.level)
    draws: dict[tuple[str, str], np.ndarray] = {}
    counts: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
    cell_draws = resampling.ratio_draws_many(rows.weights, numerators, denominators)
    for column, i in enumerate(scored):
        cells[i].ci_low, cells[i].ci_high = float(lows[column]), float(highs[column])
        draws[keys[i]] = cell_draws[column]
        counts[keys[i]] = (numerators[:, column], denominators[:, column])
    return CellFigures(cells, draws, counts)


def _cell(rows: ReportRows, agent: str, judge: str, tallies: _CellTallies, i: int) -> Cell:
    """The cell's counts and rate (its CI is filled in by ``cell_figures``); ``i``: its column of ``tallies``."""
    cell_jobs = [j for j in rows.jobs if rows.labels[j.path] == (agent, judge)]
    paths = [str(j.path) for j in cell_jobs]
    finished = [j for j in cell_jobs if j.finished]
    if tallies["scenarios"][i] and finished:
        scored, passed = int(tallies["scored"][i]), int(tallies["passed"][i])
        rate = passed / scored if scored else None
        cell = Cell(
            agent=agent,
            judge=judge,
            status="ok" if rate is not None else "no_verdicts",
            scenarios=int(tallies["scenarios"][i]),
            scored=scored,
            passed=passed,
            judge_errors=int(tallies["judge_errors"][i]),
            infra_errors=int(tallies["infra_errors"][i]),
            model_errors=int(tallies["model_errors"][i]),
            redone_conversations=int(tallies["redone"][i]),
            pass_rate=rate,
            jobs=paths,
        )
        if len(cell_jobs) > len(finished):
            cell.note = f"{len(cell_jobs) - len(finished)} other job(s) of this cell did not finish"
        return cell
    if finished:
        return Cell(agent=agent, judge=judge, status="no_verdicts", jobs=paths, note="the job finished with no result rows")
    if cell_jobs:
        return _unfinished_cell(agent, judge, cell_jobs, paths)
    return Cell(agent=agent, judge=judge, status="missing", note="no job folder for this agent × judge")


def _unfinished_cell(agent: str, judge: str, cell_jobs: list[Job], paths: list[str]) -> Cell:
    """A cell none of whose jobs finished: why, and what was kept."""
    status: CellStatus = "unreadable" if any(j.status == "unreadable" for j in cell_jobs) else "unfinished"
    kept = sum(len(j.rows) for j in cell_jobs)
    running = next((j.running for j in cell_jobs if j.running), None)
    note = (
        f"still running ({running})" if running
        else "job did not finish (no summary.json)" if status == "unfinished"
        else "summary.json is invalid"
    )
    note += (f"; {kept} whole row(s) kept, left out of the rates until it finishes"
             + ("" if running else " (rerun the same command: finished work is reused)"))
    hint = next((j.error_hint for j in cell_jobs if j.error_hint and not j.running), None)
    note += f"; reason: {hint}" if hint else ""
    return Cell(agent=agent, judge=judge, status=status, jobs=paths, note=note)
