"""Repeated trials: pass^k and pass@k per agent × judge with their intervals, and per-scenario consistency.

Applies when some row has ``trial > 0`` (``run.trials`` > 1). The estimators and the population they average over
are ``skillbench/engine/trials.py``'s (the one implementation; the job's summary uses it too): per scenario with n
scored trials of which c pass, pass^k = C(c,k)/C(n,k) and pass@k = 1 − C(n−c,k)/C(n,k), averaged over every scenario
with a scored trial, for k up to the fewest scored trials of any of them. Intervals are the exact ones over those
scenarios (``report/resampling.py``: each scenario's estimate one unit). Shown by ``skillbench/report/trial_tables.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from skillbench.engine.trials import Estimator, TrialPopulation, pass_at_k, pass_hat_k, trial_population
from skillbench.report.model import TrialRate
from skillbench.report.resampling import share_intervals
from skillbench.report.rows import ReportRows

Interval = tuple[float | None, float | None]


@dataclass
class TrialCell:
    """One agent × judge cell over repeated trials: its population and, per k up to the cap, the estimates."""

    agent: str
    judge: str
    population: TrialPopulation
    pass_hat: dict[int, float | None] = field(default_factory=dict)
    pass_hat_ci: dict[int, Interval] = field(default_factory=dict)
    pass_at: dict[int, float | None] = field(default_factory=dict)
    pass_at_ci: dict[int, Interval] = field(default_factory=dict)
    consistency: float | None = None  # share of the scenarios whose scored trials all agree (cap ≥ 2)
    consistency_ci: Interval = (None, None)

    @property
    def counts(self) -> dict[str, tuple[int, int]]:
        return self.population.counts


def has_trials(rows: ReportRows) -> bool:
    """Some row has trial > 0 (a report read back from report.json re-reads its rows: see ReportRows)."""
    frame = rows.frame
    return not frame.empty and "trial" in frame and bool((frame["trial"] > 0).any())


def scenario_counts(cell_rows: pd.DataFrame) -> dict[str, tuple[int, int]]:
    """Scenario → (n scored trials, c passes) over ``cell_rows`` (one agent × judge); NA verdicts left out."""
    scored = cell_rows[cell_rows["passed"].notna()]
    grouped = scored.groupby("scenario_id")["passed"].agg(["size", "sum"])
    return {str(s): (int(n), int(c)) for s, (n, c) in grouped.iterrows()}


def _intervals(rows: ReportRows, per_k: list[dict[str, float]]) -> list[Interval]:
    """The interval of each mean over scenarios of ``per_k``'s values (each scenario one cluster, one unit)."""
    if not per_k:
        return []
    num, den = np.zeros((len(rows.scenario_ids), len(per_k))), np.zeros((len(rows.scenario_ids), len(per_k)))
    for column, values in enumerate(per_k):
        for scenario, value in values.items():
            num[rows.scenario_position[scenario], column], den[rows.scenario_position[scenario], column] = value, 1.0
    lows, highs = share_intervals(num, den, rows.level)
    return [(None, None) if np.isnan(low) else (float(low), float(high)) for low, high in zip(lows, highs, strict=True)]


def trial_cell(rows: ReportRows, agent: str, judge: str, cell_rows: pd.DataFrame, planned: int) -> TrialCell:
    """One agent × judge's pass^k and pass@k for k = 1..``planned`` (None above the cap), and its consistency."""
    population = trial_population(scenario_counts(cell_rows), planned)
    cell = TrialCell(agent=agent, judge=judge, population=population)
    estimators: list[tuple[Estimator, dict[int, float | None], dict[int, Interval]]] = [
        (pass_hat_k, cell.pass_hat, cell.pass_hat_ci), (pass_at_k, cell.pass_at, cell.pass_at_ci)]
    ks = range(1, population.planned + 1)
    for estimator, point, interval in estimators:
        for k in ks:
            point[k] = population.mean(estimator, k)
        supported = [k for k in ks if point[k] is not None]
        interval.update(zip(supported, _intervals(rows, [population.values(estimator, k) for k in supported]), strict=True))
        interval.update({k: (None, None) for k in ks if k not in interval})
    agree = population.consistent()
    if agree:
        cell.consistency = float(np.mean(list(agree.values())))
        cell.consistency_ci = _intervals(rows, [agree])[0]
    return cell


def _planned(rows: ReportRows) -> dict[tuple[str, str], int]:
    """The trials each agent × judge's finished jobs asked for (their summary.json's ``trials``)."""
    planned: dict[tuple[str, str], int] = {}
    for job in rows.jobs:
        if job.summary is not None:
            key = rows.labels[job.path]
            planned[key] = max(planned.get(key, 0), job.summary.trials)
    return planned


def trial_cells(rows: ReportRows, agents: list[str]) -> list[TrialCell]:
    """Every agent × judge cell with scored rows, in ``agents`` (Table 1) order then judge."""
    frame = rows.frame
    groups = dict(list(frame.groupby(["agent_label", "judge_label"]))) if not frame.empty else {}
    planned = _planned(rows)
    return [
        trial_cell(rows, agent, judge, groups[(agent, judge)], planned.get((agent, judge), 0))
        for agent in agents
        for judge in rows.judges
        if (agent, judge) in groups
    ]


def trial_rates(cells: list[TrialCell]) -> list[TrialRate]:
    """The report's repeated-trials part (report.json ``trials``): one record per agent × judge × k ≤ the trials."""
    return [
        TrialRate(
            agent=c.agent, judge=c.judge, k=k, trials=c.population.planned, max_k=c.population.max_k,
            scenarios=c.population.scenarios, short=c.population.short, pass_hat_k=c.pass_hat.get(k),
            pass_hat_k_ci_low=c.pass_hat_ci.get(k, (None, None))[0], pass_hat_k_ci_high=c.pass_hat_ci.get(k, (None, None))[1],
            pass_at_k=c.pass_at.get(k), pass_at_k_ci_low=c.pass_at_ci.get(k, (None, None))[0],
            pass_at_k_ci_high=c.pass_at_ci.get(k, (None, None))[1], consistency=c.consistency,
            consistency_ci_low=c.consistency_ci[0], consistency_ci_high=c.consistency_ci[1],
        )
        for c in cells
        if c.population.scenarios
        for k in range(1, c.population.planned + 1)
    ]  # fmt: skip
